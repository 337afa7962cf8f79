import Foundation
import PasskeyCrypto
import Testing

/// Test data under Fixtures/, made by Fixtures/generate.py (pyca/cryptography). The test target
/// declares no resources, so files are read relative to this source file.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appending(path: "Fixtures")

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appending(path: path)))
    }

    static func text(_ path: String) throws -> String {
        try String(contentsOf: directory.appending(path: path), encoding: .utf8)
    }

    static func json<T: Decodable>(_ type: T.Type, _ path: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(contentsOf: directory.appending(path: path)))
    }

    static func signatures() throws -> SignatureFixtures {
        try json(SignatureFixtures.self, "signatures.json")
    }

    static func vector(_ name: String) throws -> SignatureFixtures.Vector {
        let fixtures = try signatures()
        return try #require(fixtures.vectors.first { $0.name == name }, "no vector \(name) in signatures.json")
    }

    static func certificates() throws -> CertificateFixtures {
        try json(CertificateFixtures.self, "certificates/certificates.json")
    }

    static func certificate(_ file: String) throws -> Certificate {
        try Certificate(derEncoded: bytes("certificates/" + file))
    }
}

/// signatures.json
struct SignatureFixtures: Decodable {
    let message: String
    let vectors: [Vector]

    var messageBytes: [UInt8] { base64(message) }

    struct Vector: Decodable {
        let name: String
        let algorithm: String
        let digest: String?
        let wrongDigest: String?
        let keyType: String
        let curve: String?
        let bits: Int?
        let spki: String
        let x: String?
        let y: String?
        let raw: String?
        let n: String?
        let e: String?
        let signature: String
        let order: String?
        let ecdsaVariants: [String: String]?

        var signatureBytes: [UInt8] { base64(signature) }
        var spkiBytes: [UInt8] { base64(spki) }

        func signatureAlgorithm(digest name: String? = nil) throws -> SignatureAlgorithm {
            let digestName = name ?? digest
            switch algorithm {
            case "eddsa": return .eddsa
            case "ecdsa": return .ecdsa(try parseDigest(digestName))
            case "rsaPKCS1v15": return .rsaPKCS1v15(try parseDigest(digestName))
            case "rsaPSS": return .rsaPSS(try parseDigest(digestName))
            default: throw FixtureError("unknown algorithm \(algorithm)")
            }
        }

        var ellipticCurve: EllipticCurve? {
            switch curve {
            case "P-256": .p256
            case "P-384": .p384
            case "P-521": .p521
            default: nil
            }
        }

        var edwardsCurve: EdwardsCurve? {
            switch curve {
            case "Ed25519": .ed25519
            case "Ed448": .ed448
            default: nil
            }
        }

        var expectedKind: PublicKeyKind? {
            switch keyType {
            case "ec": ellipticCurve.map { .ec($0) }
            case "edwards": edwardsCurve.map { .edwards($0) }
            case "rsa": bits.map { .rsa(bits: $0) }
            default: nil
            }
        }

        /// The key imported from its raw components (not from the SPKI).
        func keyFromComponents() throws -> PublicKey {
            switch keyType {
            case "ec":
                return try PublicKey.ec(curve: try #require(ellipticCurve), x: base64(try #require(x)),
                                        y: base64(try #require(y)))
            case "edwards":
                return try PublicKey.edwards(curve: try #require(edwardsCurve), x: base64(try #require(raw)))
            case "rsa":
                return try PublicKey.rsa(modulus: base64(try #require(n)), exponent: base64(try #require(e)))
            default:
                throw FixtureError("unknown key type \(keyType)")
            }
        }
    }
}

/// certificates/certificates.json
struct CertificateFixtures: Decodable {
    let aaguid: String
    let certificates: [Entry]

    struct Attribute: Decodable {
        let oid: String
        let value: String
    }

    struct Extension: Decodable {
        let oid: String
        let critical: Bool
        let value: String
    }

    struct Entry: Decodable {
        let file: String
        let version: Int
        let subject: [Attribute]
        let issuer: [Attribute]
        let notBefore: Int
        let notAfter: Int
        let isCA: Bool?
        let extendedKeyUsage: [String]
        let spki: String
        let extensions: [Extension]
    }

    func entry(_ file: String) throws -> Entry {
        try #require(certificates.first { $0.file == file })
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func parseDigest(_ name: String?) throws -> Digest {
    switch name {
    case "sha1": .sha1
    case "sha256": .sha256
    case "sha384": .sha384
    case "sha512": .sha512
    default: throw FixtureError("unknown digest \(name ?? "nil")")
    }
}

func base64(_ text: String) -> [UInt8] {
    guard let data = Data(base64Encoded: text) else {
        Issue.record("bad base64 in a fixture: \(text.prefix(20))…")
        return []
    }
    return [UInt8](data)
}

func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

/// The same bytes with one bit flipped.
func flippingBit(_ bytes: [UInt8], at byteIndex: Int, bit: UInt8 = 0x01) -> [UInt8] {
    var copy = bytes
    copy[byteIndex] ^= bit
    return copy
}

/// Minimal DER for tests: TLV with a definite minimal length.
func derTLV(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    var length: [UInt8]
    if content.count < 0x80 {
        length = [UInt8(content.count)]
    } else {
        var value = content.count
        var octets: [UInt8] = []
        while value > 0 {
            octets.insert(UInt8(value & 0xFF), at: 0)
            value >>= 8
        }
        length = [0x80 | UInt8(octets.count)] + octets
    }
    return [tag] + length + content
}

/// A DER INTEGER for a non-negative big-endian magnitude.
func derInteger(_ magnitude: [UInt8]) -> [UInt8] {
    var content = Array(magnitude.drop { $0 == 0 })
    if content.isEmpty { content = [0] }
    if content[0] & 0x80 != 0 { content.insert(0, at: 0) }
    return derTLV(0x02, content)
}
