import PasskeyCrypto
import Testing

/// X963KDF and AESGCM against independent answers: the GCM specification's test cases
/// (McGrew and Viega, "The Galois/Counter Mode of Operation", cases 13, 14 and 18) and values
/// computed with Python's `cryptography` 48 (X963KDF, AESGCM). The Wycheproof AES-GCM vectors
/// with 16-byte IVs run in PasskeyMfBTests.
@Suite("X9.63 KDF and AES-256-GCM")
struct X963KDFAndAESGCMTests {
    static let z = [UInt8](1...48)
    static let sharedInfo: [UInt8] = [0x04] + [UInt8](0..<96)

    @Test func kdfMatchesAnIndependentImplementation() throws {
        #expect(try X963KDF.sha256(sharedSecret: Self.z, sharedInfo: Self.sharedInfo, length: 48) == hex(
            "a403a963110ecdd4f101746373404359261d4e0923c1158267067cc65ff10908334c39bb23dfdab4c7fb50fe090b2f6a"))
        #expect(try X963KDF.sha256(sharedSecret: Self.z, sharedInfo: [], length: 48) == hex(
            "9bea594e0f0ceb798bdc2d8919b9d420ea553690702be3948cd61bf0fb28575b75e608503ef59ef65d001c14d26180e2"))
        #expect(try X963KDF.sha256(sharedSecret: Self.z, sharedInfo: Array("abc".utf8), length: 100) == hex(
            "940f01b33e370167f705840d1e16fdc16bcecb1f22d96eb8152f390252ef2b6fdfda9d763d2571cea7dbcc2500c628da"
                + "524da3582206c2009a3902cb199754d3fc5ccf07d4e7d6cfde700fb5612d4dd2c92575824e82e12becb89d2f1272e4b9"
                + "c7161a0d"))
    }

    @Test func kdfOutputIsPrefixStable() throws {
        let long = try X963KDF.sha256(sharedSecret: Self.z, sharedInfo: Self.sharedInfo, length: 48)
        let short = try X963KDF.sha256(sharedSecret: Self.z, sharedInfo: Self.sharedInfo, length: 32)
        #expect(Array(long.prefix(32)) == short)
    }

    @Test func kdfRefusesBadArguments() {
        for length in [0, -1, X963KDF.maximumLength + 1, Int.max, Int.min] {
            #expect(throws: CryptoError.self, "length \(length)") {
                try X963KDF.sha256(sharedSecret: Self.z, sharedInfo: [], length: length)
            }
        }
        #expect(throws: CryptoError.self) { try X963KDF.sha256(sharedSecret: [], sharedInfo: [], length: 32) }
    }

    struct GCMCase: Sendable, CustomTestStringConvertible {
        let name: String
        let key, iv, aad, plaintext, ciphertext, tag: [UInt8]
        var testDescription: String { name }
    }

    static let gcmCases: [GCMCase] = [
        GCMCase(name: "GCM spec case 13 (empty)", key: [UInt8](repeating: 0, count: 32), iv: [UInt8](repeating: 0, count: 12),
                aad: [], plaintext: [], ciphertext: [], tag: hex("530f8afbc74536b9a963b4f1c4cb738b")),
        GCMCase(name: "GCM spec case 14", key: [UInt8](repeating: 0, count: 32), iv: [UInt8](repeating: 0, count: 12),
                aad: [], plaintext: [UInt8](repeating: 0, count: 16), ciphertext: hex("cea7403d4d606b6e074ec5d3baf39d18"),
                tag: hex("d0d1c8a799996bf0265b98b5d48ab919")),
        GCMCase(name: "GCM spec case 18 (60-byte IV, AAD)",
                key: hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"),
                iv: hex("9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b"),
                aad: hex("feedfacedeadbeeffeedfacedeadbeefabaddad2"),
                plaintext: hex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"),
                ciphertext: hex("5a8def2f0c9e53f1f75d7853659e2a20eeb2b22aafde6419a058ab4f6f746bf40fc0c3b780f244452da3ebf1c5d82cdea2418997200ef82e44ae7e3f"),
                tag: hex("a44a8266ee1c8eb0c8b5d4cf5ae9f19a")),
    ]

    @Test(arguments: gcmCases)
    func gcmKnownAnswers(_ test: GCMCase) throws {
        let sealed = try AESGCM.seal(plaintext: test.plaintext, key: test.key, iv: test.iv, aad: test.aad)
        #expect(sealed.ciphertext == test.ciphertext)
        #expect(sealed.tag == test.tag)
        #expect(try AESGCM.open(ciphertext: test.ciphertext, tag: test.tag, key: test.key, iv: test.iv, aad: test.aad) == test.plaintext)
    }

    @Test func gcmRefusesAnyChange() throws {
        let key = [UInt8](repeating: 7, count: 32), iv = [UInt8](repeating: 9, count: 16)
        let plaintext = Array("an access token".utf8), aad = Array("aad".utf8)
        let (ciphertext, tag) = try AESGCM.seal(plaintext: plaintext, key: key, iv: iv, aad: aad)
        #expect(try AESGCM.open(ciphertext: ciphertext, tag: tag, key: key, iv: iv, aad: aad) == plaintext)

        func refused(_ name: String, ciphertext: [UInt8] = ciphertext, tag: [UInt8] = tag,
                     key: [UInt8] = key, iv: [UInt8] = iv, aad: [UInt8] = aad) {
            #expect(throws: CryptoError.self, "\(name)") {
                try AESGCM.open(ciphertext: ciphertext, tag: tag, key: key, iv: iv, aad: aad)
            }
        }
        for index in ciphertext.indices { refused("ciphertext byte \(index)", ciphertext: flippingBit(ciphertext, at: index)) }
        for index in tag.indices { refused("tag byte \(index)", tag: flippingBit(tag, at: index, bit: 0x80)) }
        refused("key", key: flippingBit(key, at: 31))
        refused("IV", iv: flippingBit(iv, at: 15))
        refused("12-byte IV", iv: Array(iv.prefix(12)))
        refused("AAD", aad: [])
        refused("truncated tag", tag: Array(tag.prefix(15)))
        refused("empty tag", tag: [])
        refused("ciphertext one byte short", ciphertext: Array(ciphertext.dropLast()))
        refused("AES-128 key", key: Array(key.prefix(16)))
        refused("empty IV", iv: [])
        refused("IV over 128 bytes", iv: [UInt8](repeating: 0, count: 129))
    }

    @Test func gcmTagFailureIsItsOwnCode() throws {
        let key = [UInt8](repeating: 1, count: 32), iv = [UInt8](repeating: 2, count: 16)
        let (ciphertext, tag) = try AESGCM.seal(plaintext: [1, 2, 3], key: key, iv: iv)
        do {
            _ = try AESGCM.open(ciphertext: ciphertext, tag: flippingBit(tag, at: 0), key: key, iv: iv)
            Issue.record("a wrong tag was accepted")
        } catch let error as CryptoError {
            #expect(error.code == .authenticationFailed)
        }
    }
}
