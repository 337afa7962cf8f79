import PasskeyCrypto
import Testing

/// Known answers from FIPS 180-2 / the NIST "Examples with intermediate values", and RFC 4231.
@Suite("Digests, HMAC, random, constant-time compare")
struct DigestTests {
    struct KnownAnswer: Sendable, CustomTestStringConvertible {
        let digest: Digest
        let message: String
        let repeatCount: Int
        let expected: String
        var testDescription: String { "\(digest) of \(repeatCount == 1 ? "\"\(message)\"" : "\(repeatCount) × \"\(message)\"")" }
    }

    static let knownAnswers: [KnownAnswer] = [
        .init(digest: .sha1, message: "abc", repeatCount: 1,
              expected: "a9993e364706816aba3e25717850c26c9cd0d89d"),
        .init(digest: .sha1, message: "", repeatCount: 1,
              expected: "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        .init(digest: .sha1, message: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", repeatCount: 1,
              expected: "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        .init(digest: .sha1, message: "a", repeatCount: 1_000_000,
              expected: "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        .init(digest: .sha256, message: "abc", repeatCount: 1,
              expected: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        .init(digest: .sha256, message: "", repeatCount: 1,
              expected: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        .init(digest: .sha256, message: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", repeatCount: 1,
              expected: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        .init(digest: .sha256, message: "a", repeatCount: 1_000_000,
              expected: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        .init(digest: .sha384, message: "abc", repeatCount: 1,
              expected: "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        .init(digest: .sha384, message: "", repeatCount: 1,
              expected: "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b"),
        .init(digest: .sha384, message: "a", repeatCount: 1_000_000,
              expected: "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985"),
        .init(digest: .sha512, message: "abc", repeatCount: 1,
              expected: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        .init(digest: .sha512, message: "", repeatCount: 1,
              expected: "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        .init(digest: .sha512, message: "a", repeatCount: 1_000_000,
              expected: "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"),
    ]

    @Test(arguments: knownAnswers)
    func digestKnownAnswer(_ answer: KnownAnswer) {
        let message = [UInt8](String(repeating: answer.message, count: answer.repeatCount).utf8)
        let output = answer.digest.hash(message)
        #expect(output == hex(answer.expected))
        #expect(output.count == answer.digest.outputSize)
    }

    @Test func outputSizes() {
        #expect(Digest.sha1.outputSize == 20)
        #expect(Digest.sha256.outputSize == 32)
        #expect(Digest.sha384.outputSize == 48)
        #expect(Digest.sha512.outputSize == 64)
    }

    /// RFC 4231 §4.2, §4.3 and §4.7 (key longer than the block size).
    @Test(arguments: [
        (key: [UInt8](repeating: 0x0b, count: 20), data: "Hi There",
         expected: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (key: [UInt8]("Jefe".utf8), data: "what do ya want for nothing?",
         expected: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (key: [UInt8](repeating: 0xaa, count: 131), data: "Test Using Larger Than Block-Size Key - Hash Key First",
         expected: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func hmacSHA256RFC4231(key: [UInt8], data: String, expected: String) {
        #expect(HMAC.sha256(key: key, data: Array(data.utf8)) == hex(expected))
    }

    @Test func hmacWithEmptyKeyAndData() {
        // An empty key is a valid HMAC key; OpenSSL must not read it as "no key given".
        let empty = HMAC.sha256(key: [], data: [])
        #expect(empty.count == 32)
        // RFC 2104: keys shorter than the block are zero-padded, so [] and [0] give the same MAC.
        #expect(empty == HMAC.sha256(key: [0], data: []))
        #expect(empty != HMAC.sha256(key: [1], data: []))
    }

    @Test func secureRandom() {
        let first = SecureRandom.bytes(32)
        let second = SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(first != second)
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.bytes(1000).count == 1000)
    }

    @Test func constantTimeEqualsCompares() {
        let value = SecureRandom.bytes(32)
        #expect(constantTimeEquals(value, value))
        #expect(!constantTimeEquals(value, flippingBit(value, at: 31)))
        #expect(!constantTimeEquals(value, flippingBit(value, at: 0, bit: 0x80)))
        #expect(!constantTimeEquals(value, Array(value.prefix(31))))
        #expect(!constantTimeEquals([], [0]))
        #expect(constantTimeEquals([], []))
    }
}
