import PasskeyCrypto
import Testing

/// ECDSASignature.der(concatenated:): r ‖ s (JWS, RFC 7518 §3.4) to DER ECDSA-Sig-Value.
@Suite("ECDSA r ‖ s to DER")
struct ECDSAConcatenatedSignatureTests {
    static let curves: [(name: String, curve: EllipticCurve)] = [("ES256", .p256), ("ES384", .p384), ("ES512", .p521)]

    static func padded(_ magnitude: [UInt8], to size: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: size - magnitude.count) + magnitude
    }

    /// pyca/cryptography's DER signatures, split and rejoined as r ‖ s, come back byte for byte
    /// and still verify (P-521 needs a long-form SEQUENCE length).
    @Test(arguments: [0, 1, 2])
    func roundTripsPycaSignatures(_ index: Int) throws {
        let (name, curve) = Self.curves[index]
        let vector = try Fixtures.vector(name)
        let message = try Fixtures.signatures().messageBytes
        let (r, s) = try ECDSASignature.components(der: vector.signatureBytes)
        let raw = Self.padded(r, to: curve.coordinateSize) + Self.padded(s, to: curve.coordinateSize)

        let der = try ECDSASignature.der(concatenated: raw)
        #expect(der == vector.signatureBytes)
        let key = try PublicKey(subjectPublicKeyInfo: vector.spkiBytes)
        #expect(key.isValidSignature(der, for: message, algorithm: try vector.signatureAlgorithm()))
    }

    /// Fresh OpenSSL signatures on every curve: many of them have a high bit set in r or s, or a
    /// leading zero byte, so both the 0x00 prefix and the stripping are exercised.
    @Test(arguments: [0, 1, 2])
    func roundTripsOpenSSLSignatures(_ index: Int) throws {
        let (_, curve) = Self.curves[index]
        let key = try PrivateKey.generateEC(curve)
        let algorithm: SignatureAlgorithm = .ecdsa(curve == .p256 ? .sha256 : curve == .p384 ? .sha384 : .sha512)
        for round in 0..<16 {
            let message = SecureRandom.bytes(20 + round)
            let signature = try key.signature(for: message, algorithm: algorithm)
            let (r, s) = try ECDSASignature.components(der: signature)
            let raw = Self.padded(r, to: curve.coordinateSize) + Self.padded(s, to: curve.coordinateSize)
            #expect(try ECDSASignature.der(concatenated: raw) == signature)
        }
    }

    @Test func encodesMinimalIntegers() throws {
        // High bit set: 0x00 prefix. Leading zeros: dropped. All zero: INTEGER 0.
        #expect(try ECDSASignature.der(concatenated: [0x80, 0x01, 0x00, 0x7F])
            == [0x30, 0x08, 0x02, 0x03, 0x00, 0x80, 0x01, 0x02, 0x01, 0x7F])
        #expect(try ECDSASignature.der(concatenated: [0x00, 0x00, 0x00, 0x05])
            == [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x05])
        #expect(try ECDSASignature.der(concatenated: [0x00, 0x00])
            == derTLV(0x30, derInteger([0]) + derInteger([0])))
    }

    /// r = 0 encodes, and is then refused by the strict parser and the verifier.
    @Test func zeroHalfDoesNotVerify() throws {
        let vector = try Fixtures.vector("ES256")
        let key = try PublicKey(subjectPublicKeyInfo: vector.spkiBytes)
        let (_, s) = try ECDSASignature.components(der: vector.signatureBytes)
        let der = try ECDSASignature.der(concatenated: [UInt8](repeating: 0, count: 32) + Self.padded(s, to: 32))
        #expect(throws: CryptoError.self) { try ECDSASignature.components(der: der) }
        #expect(!key.isValidSignature(der, for: try Fixtures.signatures().messageBytes, algorithm: .ecdsa(.sha256)))
    }

    @Test(arguments: [[], [0x01], [0x01, 0x02, 0x03]] as [[UInt8]])
    func refusesInputThatDoesNotSplit(_ raw: [UInt8]) {
        #expect(throws: CryptoError.self) { try ECDSASignature.der(concatenated: raw) }
    }

    /// DER back to r ‖ s: left-padded halves, the inverse of `der(concatenated:)`.
    @Test func concatenatedIsTheInverse() throws {
        let raw: [UInt8] = [0x00, 0x00, 0x7F, 0x01] + [UInt8](repeating: 0xAB, count: 28) + [0x80] + [UInt8](repeating: 0x02, count: 31)
        let der = try ECDSASignature.der(concatenated: raw)
        #expect(try ECDSASignature.concatenated(der: der, size: 32) == raw)
        // A half longer than the size is refused, not cut.
        #expect(throws: CryptoError.self) { try ECDSASignature.concatenated(der: der, size: 31) }
        #expect(throws: CryptoError.self) { try ECDSASignature.concatenated(der: [0x30, 0x00], size: 32) }
    }
}
