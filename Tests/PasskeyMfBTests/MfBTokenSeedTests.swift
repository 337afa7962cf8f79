import PasskeyCrypto
import PasskeyMfB
import Testing

/// The seed's decryption exercise (mfb-seed.json) byte for byte, and each of its errata.
@Suite struct MfBTokenSeedTests {
    let seed: Vectors.Seed
    let privateKey: ECPrivateKey
    let token: [UInt8]

    init() throws {
        seed = try Vectors.load("mfb-seed", as: Vectors.Seed.self)
        privateKey = try ECPrivateKey(curve: .p384, scalar: try base64(seed.privateKey))
        token = try base64(seed.token)
    }

    @Test func theSeedKeyIsTheScalarOfItsPublicKey() throws {
        #expect(privateKey.scalar == (try base64(seed.privateKey)))
        #expect(privateKey.scalar.count == 48)
        #expect(privateKey.publicPoint == (try base64(seed.publicKey)))
    }

    @Test func everyIntermediateValueComesOutExactly() throws {
        let steps = try MfBToken.decryptWithSteps(token: token, privateKey: privateKey)
        #expect(steps.ephemeralPublicKey == (try base64(seed.ephemeralPublicKey)))
        #expect(steps.x.count == 48 && steps.y.count == 48)
        #expect(decimal(steps.x) == seed.x)
        #expect(decimal(steps.y) == seed.y)
        #expect(steps.sharedKey == (try base64(seed.sharedKey)))
        #expect(steps.derivedKey == (try base64(seed.derivedKey)))
        #expect(steps.iv == (try base64(seed.iv)))
        #expect(steps.ciphertext == (try base64(seed.ciphertext)))
        #expect(steps.tag == (try base64(seed.tag)))
        #expect(steps.plaintext == Array(seed.plaintext.utf8))
        #expect(String(decoding: steps.plaintext, as: UTF8.self) == "xXTi32iZwrQ6O8Sy6r1isKwF6Ff1Py")
        // And what the seed's own abbreviations say.
        #expect(seed.derivedKey.hasPrefix("mAzkYatD") && seed.iv.hasPrefix("rV3qrszd"))
    }

    @Test func decryptGivesThePlaintext() throws {
        #expect(try MfBToken.decrypt(token: token, privateKey: privateKey) == Array("xXTi32iZwrQ6O8Sy6r1isKwF6Ff1Py".utf8))
    }

    @Test func theSharedKeyIsPlainECDH() throws {
        let ephemeral = try base64(seed.ephemeralPublicKey)
        #expect(try privateKey.sharedSecret(withUncompressedPoint: ephemeral) == (try base64(seed.sharedKey)))
    }

    /// E1: the token is 143 bytes, not 142; cutting it to 142 loses a tag byte and fails.
    @Test func e1TheTokenIs143BytesAnd142Fail() throws {
        #expect(token.count == 143)
        #expect(throws: MfBError.decryptFailed) { try MfBToken.decrypt(token: Array(token.prefix(142)), privateKey: privateKey) }
        #expect(throws: MfBError.decryptFailed) { try MfBToken.decrypt(token: Array(token.dropFirst()), privateKey: privateKey) }
    }

    /// E2: the tag is the last 16 bytes; a 15-byte tag (the seed's n-15…n-1) does not verify.
    @Test func e2TheTagIs16Bytes() throws {
        let tag = try base64(seed.tag)
        #expect(tag.count == 16)
        #expect(Array(token.suffix(16)) == tag)
        let key = try base64(seed.derivedKey), iv = try base64(seed.iv)
        let fifteenByteSplit = (ciphertext: Array(token[97..<(token.count - 15)]), tag: Array(token.suffix(15)))
        #expect(throws: CryptoError.self) {
            try AESGCM.open(ciphertext: fifteenByteSplit.ciphertext, tag: fifteenByteSplit.tag, key: key, iv: iv)
        }
        #expect(try AESGCM.open(ciphertext: try base64(seed.ciphertext), tag: tag, key: key, iv: iv) == Array(seed.plaintext.utf8))
    }

    /// E3: the KDF's SharedInfo is the ephemeral key; without it the key and IV are wrong.
    @Test func e3WithoutSharedInfoTheKeyIsWrong() throws {
        let without = try #require(seed.errata.first { $0.id == "E3" }?.withoutSharedInfo)
        let z = try base64(seed.sharedKey)
        let derived = try X963KDF.sha256(sharedSecret: z, sharedInfo: [], length: 48)
        #expect(Array(derived.prefix(32)) == (try base64(without.derivedKey)))
        #expect(Array(derived.suffix(16)) == (try base64(without.iv)))
        #expect(Array(derived.prefix(32)) != (try base64(seed.derivedKey)))
        #expect(throws: CryptoError.self) {
            try AESGCM.open(ciphertext: try base64(seed.ciphertext), tag: try base64(seed.tag),
                            key: Array(derived.prefix(32)), iv: Array(derived.suffix(16)))
        }
        let right = try X963KDF.sha256(sharedSecret: z, sharedInfo: try base64(seed.ephemeralPublicKey), length: 48)
        #expect(Array(right.prefix(32)) == (try base64(seed.derivedKey)))
        #expect(Array(right.suffix(16)) == (try base64(seed.iv)))
    }

    /// E5: the variable-IV variant only: the right key with the legacy all-zero IV fails.
    @Test func e5TheZeroIVVariantDoesNotDecryptIt() throws {
        #expect(throws: CryptoError.self) {
            try AESGCM.open(ciphertext: try base64(seed.ciphertext), tag: try base64(seed.tag),
                            key: try base64(seed.derivedKey), iv: [UInt8](repeating: 0, count: 16))
        }
    }

    /// E7: the ephemeral key must be 0x04 || X || Y; compressed and hybrid forms are refused
    /// even where they name the same point.
    @Test func e7OnlyTheUncompressedFormIsAccepted() throws {
        let x = Array(token[1...48]), y = Array(token[49...96])
        let yIsOdd = (y.last ?? 0) & 1 == 1
        let rest = Array(token[97...])
        let compressed = [yIsOdd ? 0x03 : 0x02] + x
        let forms: [(String, [UInt8])] = [
            ("compressed, then the rest", compressed + rest),
            ("compressed, padded to 97 bytes", compressed + [UInt8](repeating: 0, count: 48) + rest),
            ("a compressed prefix on X and Y", [yIsOdd ? 0x03 : 0x02] + x + y + rest),
            ("hybrid", [yIsOdd ? 0x07 : 0x06] + x + y + rest),
            ("no prefix", x + y + rest),
        ]
        for (name, candidate) in forms {
            #expect(throws: MfBError.decryptFailed, "\(name)") { try MfBToken.decrypt(token: candidate, privateKey: privateKey) }
        }
    }

    @Test func onlyAP384KeyIsAccepted() throws {
        let p256 = try ECPrivateKey.generate(.p256)
        let p521 = try ECPrivateKey.generate(.p521)
        #expect(throws: MfBError.decryptFailed) { try MfBToken.decrypt(token: token, privateKey: p256) }
        #expect(throws: MfBError.decryptFailed) { try MfBToken.decrypt(token: token, privateKey: p521) }
    }
}
