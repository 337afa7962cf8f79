import PasskeyCrypto
import Testing

@Suite("Public key import")
struct KeyImportTests {
    static let curves: [(name: String, curve: EllipticCurve)] = [("ES256", .p256), ("ES384", .p384), ("ES512", .p521)]

    @Test func coordinateSizes() {
        #expect(EllipticCurve.p256.coordinateSize == 32)
        #expect(EllipticCurve.p384.coordinateSize == 48)
        #expect(EllipticCurve.p521.coordinateSize == 66)
        #expect(EdwardsCurve.ed25519.keySize == 32)
        #expect(EdwardsCurve.ed448.keySize == 57)
    }

    @Test(arguments: ["ES256", "ES384", "ES512"])
    func offCurvePointRefused(_ name: String) throws {
        let vector = try Fixtures.vector(name)
        let curve = try #require(vector.ellipticCurve)
        let x = base64(try #require(vector.x)), y = base64(try #require(vector.y))
        _ = try PublicKey.ec(curve: curve, x: x, y: y)  // the genuine point imports

        let error = #expect(throws: CryptoError.self) {
            try PublicKey.ec(curve: curve, x: x, y: flippingBit(y, at: y.count - 1))
        }
        #expect(error?.code == .invalidKey)
        #expect(throws: CryptoError.self) { try PublicKey.ec(curve: curve, x: flippingBit(x, at: 3, bit: 0x10), y: y) }
        // (0, 0) is how the point at infinity is sometimes smuggled in; it is not on the curve.
        let zeros = [UInt8](repeating: 0, count: curve.coordinateSize)
        #expect(throws: CryptoError.self) { try PublicKey.ec(curve: curve, x: zeros, y: zeros) }
        // Coordinates ≥ p.
        let ones = [UInt8](repeating: 0xFF, count: curve.coordinateSize)
        #expect(throws: CryptoError.self) { try PublicKey.ec(curve: curve, x: ones, y: y) }
    }

    @Test func ecCoordinateLengthsMustBeExact() throws {
        let vector = try Fixtures.vector("ES256")
        let x = base64(try #require(vector.x)), y = base64(try #require(vector.y))
        #expect(throws: CryptoError.self) { try PublicKey.ec(curve: .p256, x: Array(x.dropFirst()), y: y) }
        #expect(throws: CryptoError.self) { try PublicKey.ec(curve: .p256, x: [0] + x, y: y) }
        #expect(throws: CryptoError.self) { try PublicKey.ec(curve: .p256, x: x, y: y + [0]) }
        #expect(throws: CryptoError.self) { try PublicKey.ec(curve: .p384, x: x, y: y) }
        #expect(throws: CryptoError.self) { try PublicKey.ec(curve: .p256, x: [], y: []) }
    }

    @Test func edwardsLengthMustBeExact() throws {
        let ed25519 = base64(try #require(try Fixtures.vector("EdDSA-Ed25519").raw))
        let ed448 = base64(try #require(try Fixtures.vector("EdDSA-Ed448").raw))
        #expect(try PublicKey.edwards(curve: .ed25519, x: ed25519).kind == .edwards(.ed25519))
        #expect(try PublicKey.edwards(curve: .ed448, x: ed448).kind == .edwards(.ed448))

        for wrong in [Array(ed25519.dropLast()), ed25519 + [0], [], ed448] {
            let error = #expect(throws: CryptoError.self) { try PublicKey.edwards(curve: .ed25519, x: wrong) }
            #expect(error?.code == .invalidKey)
        }
        #expect(throws: CryptoError.self) { try PublicKey.edwards(curve: .ed448, x: ed25519) }
    }

    @Test func rsa1024RefusedByDefault() throws {
        let small = try PrivateKey.generateRSA(bits: 1024)
        #expect(small.publicKey.kind == .rsa(bits: 1024))
        let components = try #require(small.publicKey.rsaComponents)

        let error = #expect(throws: CryptoError.self) {
            try PublicKey.rsa(modulus: components.modulus, exponent: components.exponent)
        }
        #expect(error?.code == .invalidKey)
        #expect(throws: CryptoError.self) { try PublicKey(subjectPublicKeyInfo: small.publicKey.subjectPublicKeyInfo) }
        // An explicit lower minimum admits it.
        let admitted = try PublicKey.rsa(modulus: components.modulus, exponent: components.exponent, minimumBits: 1024)
        #expect(admitted.matches(small.publicKey))
    }

    @Test func rsaNumbersAreChecked() throws {
        let vector = try Fixtures.vector("RS256")
        let n = base64(try #require(vector.n)), e = base64(try #require(vector.e))
        _ = try PublicKey.rsa(modulus: n, exponent: e)
        // A leading zero byte on the modulus is tolerated (unsigned big-endian).
        #expect(try PublicKey.rsa(modulus: [0] + n, exponent: e).kind == .rsa(bits: 2048))
        #expect(throws: CryptoError.self) { try PublicKey.rsa(modulus: flippingBit(n, at: n.count - 1), exponent: e) } // even
        #expect(throws: CryptoError.self) { try PublicKey.rsa(modulus: n, exponent: [0x01, 0x00, 0x00]) }  // even e
        #expect(throws: CryptoError.self) { try PublicKey.rsa(modulus: n, exponent: [0x01]) }              // e = 1
        #expect(throws: CryptoError.self) { try PublicKey.rsa(modulus: n, exponent: []) }
        #expect(throws: CryptoError.self) { try PublicKey.rsa(modulus: n, exponent: n) }                   // e ≥ n
        #expect(throws: CryptoError.self) { try PublicKey.rsa(modulus: [], exponent: e) }
    }

    @Test func spkiMustBeExact() throws {
        let spki = try Fixtures.vector("ES256").spkiBytes
        _ = try PublicKey(subjectPublicKeyInfo: spki)
        #expect(throws: CryptoError.self) { try PublicKey(subjectPublicKeyInfo: spki + [0]) }
        #expect(throws: CryptoError.self) { try PublicKey(subjectPublicKeyInfo: Array(spki.dropLast())) }
        #expect(throws: CryptoError.self) { try PublicKey(subjectPublicKeyInfo: []) }
        #expect(throws: CryptoError.self) { try PublicKey(subjectPublicKeyInfo: [0x30, 0x00]) }
        // The point inside the SPKI is checked too.
        #expect(throws: CryptoError.self) { try PublicKey(subjectPublicKeyInfo: flippingBit(spki, at: spki.count - 1)) }
    }

    @Test func unsupportedKeyTypesRefused() throws {
        // An X25519 SPKI (RFC 8410): a real key type, but not a signature key we support.
        let x25519: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x03, 0x21, 0x00]
            + SecureRandom.bytes(32)
        let error = #expect(throws: CryptoError.self) { try PublicKey(subjectPublicKeyInfo: x25519) }
        #expect(error?.code == .unsupported)
    }

    @Test func matchesComparesKeys() throws {
        let a = try PrivateKey.generateEC(.p256).publicKey
        let b = try PrivateKey.generateEC(.p256).publicKey
        let aAgain = try PublicKey(subjectPublicKeyInfo: a.subjectPublicKeyInfo)
        let coordinates = try #require(a.ecCoordinates)
        let aFromCoordinates = try PublicKey.ec(curve: .p256, x: coordinates.x, y: coordinates.y)
        #expect(a.matches(aAgain))
        #expect(a.matches(aFromCoordinates))
        #expect(!a.matches(b))
        let ed = try PrivateKey.generateEdwards(.ed25519).publicKey
        #expect(!a.matches(ed))
    }

    @Test func generatedKeysExportFixedLengthCoordinates() throws {
        for curve in [EllipticCurve.p256, .p384, .p521] {
            for _ in 0..<4 {
                let key = try PrivateKey.generateEC(curve).publicKey
                let coordinates = try #require(key.ecCoordinates)
                #expect(coordinates.x.count == curve.coordinateSize)
                #expect(coordinates.y.count == curve.coordinateSize)
            }
        }
        let ed448 = try PrivateKey.generateEdwards(.ed448).publicKey
        #expect(ed448.edwardsRaw?.count == 57)
    }
}
