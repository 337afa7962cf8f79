import Foundation
import PasskeyCrypto
import Testing

/// The four files in Vectors/ (see Vectors/README.md for where each came from).
enum Vectors {
    static func load<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
        let url = try #require(Bundle.module.url(forResource: "Vectors/\(name)", withExtension: "json"))
        return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
    }

    /// mfb-seed.json: the seed's decryption exercise, base64 as the seed writes it.
    struct Seed: Decodable {
        struct WithoutSharedInfo: Decodable { let derivedKey, iv: String }
        struct Erratum: Decodable {
            let id: String
            let withoutSharedInfo: WithoutSharedInfo?
        }
        let publicKey, privateKey, token, ephemeralPublicKey, x, y, sharedKey, derivedKey, iv, ciphertext, tag, plaintext: String
        let errata: [Erratum]
    }

    /// ecies-apple.json: ciphertexts made by SecKeyCreateEncryptedData.
    struct AppleECIES: Decodable {
        struct Vector: Decodable, Sendable, CustomTestStringConvertible {
            let name, curve, kdfHash, variant, privateKeyScalar, publicKey, ciphertext, plaintext: String
            let aesKeyBits, ciphertextLength: Int
            var testDescription: String { name }
        }
        let vectors: [Vector]
    }

    /// Wycheproof's test files: groups of tests, each with a tcId, a result and flags.
    struct Wycheproof<Test: Decodable>: Decodable {
        struct Group: Decodable { let tests: [Test] }
        let numberOfTests: Int
        let testGroups: [Group]
        var tests: [Test] { testGroups.flatMap(\.tests) }
    }

    struct ECDHTest: Decodable, Sendable {
        let tcId: Int
        let comment: String
        let flags: [String]
        let `public`, `private`, shared, result: String
    }

    struct AEADTest: Decodable, Sendable {
        let tcId: Int
        let comment: String
        let flags: [String]
        let key, iv, aad, msg, ct, tag, result: String
    }
}

func base64(_ text: String) throws -> [UInt8] {
    try [UInt8](#require(Data(base64Encoded: text), "bad base64: \(text.prefix(16))…"))
}

func hex(_ text: String) throws -> [UInt8] {
    guard text.count % 2 == 0 else { throw HexError() }
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        guard let byte = UInt8(text[index..<next], radix: 16) else { throw HexError() }
        bytes.append(byte)
        index = next
    }
    return bytes
}

struct HexError: Error {}

/// An unsigned big-endian integer in decimal (for the seed's x and y).
func decimal(_ bytes: [UInt8]) -> String {
    var number = Array(bytes.drop { $0 == 0 })
    var digits: [Character] = []
    while !number.isEmpty {
        var remainder = 0
        var quotient: [UInt8] = []
        for byte in number {
            let value = remainder * 256 + Int(byte)
            let digit = value / 10
            remainder = value % 10
            if !quotient.isEmpty || digit != 0 { quotient.append(UInt8(digit)) }
        }
        digits.append(Character(String(remainder)))
        number = quotient
    }
    return digits.isEmpty ? "0" : String(digits.reversed())
}

/// `bytes` with bit `bit` of byte `index` flipped.
func flipping(_ bytes: [UInt8], byte index: Int, bit: Int = 0) -> [UInt8] {
    var copy = bytes
    copy[index] ^= UInt8(1) << UInt8(bit % 8)
    return copy
}

/// X9.63 KDF written out (SEC 1 §3.6.1) over any of PasskeyCrypto's digests, to decrypt the
/// Apple vectors whose KDF hash is not SHA-256, i.e. the variants MfBToken must refuse.
func referenceX963KDF(_ digest: Digest, z: [UInt8], sharedInfo: [UInt8], length: Int) -> [UInt8] {
    var output: [UInt8] = []
    var counter: UInt32 = 1
    while output.count < length {
        let counterBytes = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
        output += digest.hash(z + counterBytes + sharedInfo)
        counter += 1
    }
    return Array(output.prefix(length))
}
