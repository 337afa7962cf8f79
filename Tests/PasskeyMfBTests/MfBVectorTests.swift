import PasskeyCrypto
import PasskeyMfB
import Testing

/// The public vectors: Apple-made ECIES ciphertexts, Wycheproof's P-384 ECDH points and its
/// AES-256-GCM tests with 16-byte IVs.
@Suite struct MfBVectorTests {
    // MARK: ecies-apple.json

    static let apple: [Vectors.AppleECIES.Vector] = (try? Vectors.load("ecies-apple", as: Vectors.AppleECIES.self).vectors) ?? []

    static func curve(_ name: String) throws -> EllipticCurve {
        switch name {
        case "P-256": .p256
        case "P-384": .p384
        case "P-521": .p521
        default: throw HexError()
        }
    }

    @Test func theAppleFileHoldsEightVectorsNoneOfThemMfBs() {
        #expect(Self.apple.count == 8)
        // P-384 + SHA-256 + variable IV is the seed's case; these are its neighbours.
        #expect(!Self.apple.contains { $0.curve == "P-384" && $0.kdfHash == "SHA-256" && $0.variant == "variableIV" })
    }

    /// Every Apple vector is another algorithm than MfB's (another curve, KDF hash or the zero
    /// IV), and MfBToken refuses each with the one error, without a fallback.
    @Test(arguments: apple)
    func mfbRefusesTheOtherVariants(_ vector: Vectors.AppleECIES.Vector) throws {
        let key = try ECPrivateKey(curve: try Self.curve(vector.curve), scalar: try base64(vector.privateKeyScalar))
        #expect(key.publicPoint == (try base64(vector.publicKey)))
        let ciphertext = try base64(vector.ciphertext)
        #expect(ciphertext.count == vector.ciphertextLength)
        #expect(throws: MfBError.decryptFailed) { try MfBToken.decrypt(token: ciphertext, privateKey: key) }
        // Not even with a P-384 key when the ciphertext is long enough to be parsed.
        let p384 = try ECPrivateKey.generate(.p384)
        #expect(throws: MfBError.decryptFailed) { try MfBToken.decrypt(token: ciphertext, privateKey: p384) }
    }

    /// The same vectors decrypt when the test composes the primitives as each variant says
    /// (for the AES-256 ones: P-384 and P-521), so the refusals above are MfBToken's choice, not
    /// broken ECDH, KDF or GCM. The zero-IV ones need the all-zero IV, which MfBToken never tries.
    /// (P384-SHA224-0IV is left out: PasskeyCrypto's Digest has no SHA-224.)
    @Test(arguments: apple.filter { $0.aesKeyBits == 256 && $0.kdfHash != "SHA-224" })
    func theVectorsDecryptWithTheirOwnVariant(_ vector: Vectors.AppleECIES.Vector) throws {
        let curve = try Self.curve(vector.curve)
        let key = try ECPrivateKey(curve: curve, scalar: try base64(vector.privateKeyScalar))
        let ciphertext = try base64(vector.ciphertext)
        let pointLength = 1 + 2 * curve.coordinateSize
        let ephemeral = Array(ciphertext.prefix(pointLength))
        let body = Array(ciphertext.dropFirst(pointLength).dropLast(16)), tag = Array(ciphertext.suffix(16))
        let digest: Digest = switch vector.kdfHash {
        case "SHA-256": .sha256
        case "SHA-384": .sha384
        case "SHA-512": .sha512
        default: throw HexError()
        }
        let z = try key.sharedSecret(withUncompressedPoint: ephemeral)
        let derived = referenceX963KDF(digest, z: z, sharedInfo: ephemeral, length: 48)
        let iv = vector.variant == "variableIV" ? Array(derived.suffix(16)) : [UInt8](repeating: 0, count: 16)
        let plaintext = try AESGCM.open(ciphertext: body, tag: tag, key: Array(derived.prefix(32)), iv: iv)
        #expect(String(decoding: plaintext, as: UTF8.self) == vector.plaintext)
    }

    @Test func theReferenceKDFAgreesWithOpenSSLs() throws {
        let z = SecureRandom.bytes(48), info = SecureRandom.bytes(97)
        #expect(referenceX963KDF(.sha256, z: z, sharedInfo: info, length: 48)
            == (try X963KDF.sha256(sharedSecret: z, sharedInfo: info, length: 48)))
    }

    // MARK: wycheproof-ecdh-secp384r1-ecpoint.json

    /// Valid tests give Wycheproof's shared secret; invalid ones (points off the curve, the
    /// empty encoding, an x with no point) are refused. The one "acceptable" test is a
    /// compressed point: refused here by design (an MfB ephemeral key must be uncompressed).
    @Test func wycheproofECDH() throws {
        let file = try Vectors.load("wycheproof-ecdh-secp384r1-ecpoint", as: Vectors.Wycheproof<Vectors.ECDHTest>.self)
        let tests = file.tests
        #expect(tests.count == file.numberOfTests)
        #expect(tests.count == 137)
        var outcomes: [String: Int] = [:]
        for test in tests {
            // Wycheproof writes the scalar as a DER INTEGER's content (a 0x00 where the top bit
            // is set), or shorter; the key reads both.
            let key = try ECPrivateKey(curve: .p384, scalar: try hex(test.private))
            let point = try hex(test.public)
            let secret = try? key.sharedSecret(withUncompressedPoint: point)
            switch test.result {
            case "valid":
                #expect(secret == (try hex(test.shared)), "tcId \(test.tcId): \(test.comment)")
                if secret != nil { outcomes["valid", default: 0] += 1 }
            case "acceptable":
                #expect(test.flags.contains("CompressedPoint"), "tcId \(test.tcId): an acceptable test that is not a compressed point")
                #expect(secret == nil, "tcId \(test.tcId): compressed point accepted")
                if secret == nil { outcomes["refused acceptable", default: 0] += 1 }
            default:
                #expect(test.result == "invalid")
                #expect(secret == nil, "tcId \(test.tcId): \(test.comment) accepted")
                if secret == nil { outcomes["refused invalid", default: 0] += 1 }
            }
        }
        #expect(outcomes == ["valid": 118, "refused acceptable": 1, "refused invalid": 18])
    }

    // MARK: wycheproof-aes-gcm-256-iv128.json

    @Test func wycheproofAESGCM() throws {
        let file = try Vectors.load("wycheproof-aes-gcm-256-iv128", as: Vectors.Wycheproof<Vectors.AEADTest>.self)
        let tests = file.tests
        #expect(tests.count == file.numberOfTests)
        #expect(tests.count == 19)
        for test in tests {
            let key = try hex(test.key), iv = try hex(test.iv), aad = try hex(test.aad)
            let msg = try hex(test.msg), ct = try hex(test.ct), tag = try hex(test.tag)
            #expect(iv.count == 16 && key.count == 32)
            let opened = try? AESGCM.open(ciphertext: ct, tag: tag, key: key, iv: iv, aad: aad)
            if test.result == "valid" {
                #expect(opened == msg, "tcId \(test.tcId): \(test.comment)")
                let sealed = try AESGCM.seal(plaintext: msg, key: key, iv: iv, aad: aad)
                #expect(sealed.ciphertext == ct && sealed.tag == tag, "tcId \(test.tcId): seal")
                // The file has no invalid tests with 16-byte IVs; make the modified-tag ones.
                for index in tag.indices {
                    #expect(throws: CryptoError.self, "tcId \(test.tcId): tag byte \(index) flipped") {
                        try AESGCM.open(ciphertext: ct, tag: flipping(tag, byte: index, bit: index), key: key, iv: iv, aad: aad)
                    }
                }
            } else {
                #expect(opened == nil, "tcId \(test.tcId): \(test.comment) accepted")
            }
        }
    }
}
