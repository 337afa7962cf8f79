import Foundation
import PasskeyCrypto
import Testing

/// PKCS#8 import (`PrivateKey(pem:)`) and the JWS r‖s → DER conversion, against keys and
/// signatures made by Fixtures/generate_private_keys.py (pyca/cryptography).
@Suite("Private key import and JWS ECDSA signatures")
struct PrivateKeyImportTests {
    struct Document: Decodable {
        let message: String
        let keys: [Key]
        struct Key: Decodable {
            let name: String
            let algorithm: String
            let spki: String
            let signature: String
            let jws: String?
        }
    }

    static let names = ["p256", "p384", "rsa2048", "ed25519"]

    static func document() throws -> Document {
        try Fixtures.json(Document.self, "private-keys/private-keys.json")
    }

    static func algorithm(_ name: String) -> SignatureAlgorithm {
        switch name {
        case "ES256": .ecdsa(.sha256)
        case "ES384": .ecdsa(.sha384)
        case "RS256": .rsaPKCS1v15(.sha256)
        default: .eddsa
        }
    }

    @Test(arguments: names)
    func importsTheKeyPythonWrote(_ name: String) throws {
        let document = try Self.document()
        let entry = try #require(document.keys.first { $0.name == name })
        let key = try PrivateKey(pem: try Fixtures.text("private-keys/\(name).pem"))
        // The same key: its public half is the SPKI Python wrote, and Python's signature verifies.
        #expect(key.publicKey.subjectPublicKeyInfo == base64(entry.spki))
        let algorithm = Self.algorithm(entry.algorithm)
        let message = base64(document.message)
        #expect(key.publicKey.isValidSignature(base64(entry.signature), for: message, algorithm: algorithm))
        // And it signs.
        let signature = try key.signature(for: message + [0x01], algorithm: algorithm)
        #expect(key.publicKey.isValidSignature(signature, for: message + [0x01], algorithm: algorithm))
    }

    @Test func refusesWhatIsNotAnUnencryptedPKCS8Key() throws {
        #expect(throws: CryptoError.self) { try PrivateKey(pem: try Fixtures.text("private-keys/encrypted.pem")) }
        #expect(throws: CryptoError.self) { try PrivateKey(pem: "no key here") }
        #expect(throws: CryptoError.self) {
            try PrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
        // A public key block is not a private key.
        let spki = base64(try Self.document().keys[0].spki)
        #expect(throws: CryptoError.self) { try PrivateKey(pkcs8: spki) }
        // Trailing bytes after the PrivateKeyInfo.
        let pem = try Fixtures.text("private-keys/p256.pem")
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") && !$0.hasPrefix("A PKCS") }.joined()
        let der = [UInt8](try #require(Data(base64Encoded: body)))
        _ = try PrivateKey(pkcs8: der)
        #expect(throws: CryptoError.self) { try PrivateKey(pkcs8: der + [0x00]) }
    }

    @Test(arguments: [("p256", EllipticCurve.p256), ("p384", EllipticCurve.p384)])
    func jwsSignatureBecomesTheSameDER(_ name: String, _ curve: EllipticCurve) throws {
        let entry = try #require(try Self.document().keys.first { $0.name == name })
        let raw = base64(try #require(entry.jws))
        let der = try ECDSASignature.der(raw: raw, curve: curve)
        #expect(der == base64(entry.signature))
    }

    @Test func jwsSignatureSizesAndZerosAreRefused() throws {
        let size = EllipticCurve.p256.coordinateSize
        let one = [UInt8](repeating: 0, count: size - 1) + [1]
        let zero = [UInt8](repeating: 0, count: size)
        _ = try ECDSASignature.der(raw: one + one, curve: .p256)
        #expect(throws: CryptoError.self) { try ECDSASignature.der(raw: one + one + [0], curve: .p256) }
        #expect(throws: CryptoError.self) { try ECDSASignature.der(raw: Array((one + one).dropFirst()), curve: .p256) }
        #expect(throws: CryptoError.self) { try ECDSASignature.der(raw: zero + one, curve: .p256) }
        #expect(throws: CryptoError.self) { try ECDSASignature.der(raw: one + zero, curve: .p256) }
        // High bit set: a 0x00 is prefixed so the INTEGER stays positive, and it parses back.
        let high = [UInt8](repeating: 0xff, count: size)
        let der = try ECDSASignature.der(raw: high + one, curve: .p256)
        let (r, s) = try ECDSASignature.components(der: der)
        #expect(r == high && s == [1])
    }
}

@Suite struct PrivateKeyExportTests {
    /// PEM out, PEM in: the same key (it signs what the first key's public half verifies).
    @Test(arguments: ["rsa", "ec"])
    func pemRoundTrips(_ kind: String) throws {
        let key = kind == "rsa" ? try PrivateKey.generateRSA(bits: 2048) : try PrivateKey.generateEC(.p256)
        let pem = try key.pem()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n") && pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        let back = try PrivateKey(pem: pem)
        #expect(back.publicKey.matches(key.publicKey))
        let algorithm: SignatureAlgorithm = kind == "rsa" ? .rsaPKCS1v15(.sha256) : .ecdsa(.sha256)
        let signature = try back.signature(for: [1, 2, 3], algorithm: algorithm)
        #expect(key.publicKey.isValidSignature(signature, for: [1, 2, 3], algorithm: algorithm))
        #expect(try back.pkcs8() == key.pkcs8())
    }
}
