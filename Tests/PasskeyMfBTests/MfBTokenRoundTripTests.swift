import PasskeyCrypto
import PasskeyMfB
import Testing

/// The device's side (`encrypt`) against the business's (`decrypt`), and tampering.
@Suite struct MfBTokenRoundTripTests {
    @Test(arguments: [0, 1, 30, 1000, MfBToken.maximumLength - MfBToken.minimumLength])
    func encryptThenDecrypt(length: Int) throws {
        let recipient = try ECPrivateKey.generate(.p384)
        let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let token = try MfBToken.encrypt(plaintext: plaintext, recipientPublicPoint: recipient.publicPoint)
        #expect(token.count == MfBToken.minimumLength + length)
        #expect(token.first == 0x04)
        let steps = try MfBToken.decryptWithSteps(token: token, privateKey: recipient)
        #expect(steps.plaintext == plaintext)
        #expect(steps.ephemeralPublicKey == Array(token.prefix(97)))
        #expect(steps.ciphertext.count == length && steps.tag.count == 16)
        #expect(try MfBToken.decrypt(token: token, privateKey: recipient) == plaintext)
    }

    @Test func eachTokenHasAFreshEphemeralKey() throws {
        let recipient = try ECPrivateKey.generate(.p384)
        let first = try MfBToken.encrypt(plaintext: [1, 2, 3], recipientPublicPoint: recipient.publicPoint)
        let second = try MfBToken.encrypt(plaintext: [1, 2, 3], recipientPublicPoint: recipient.publicPoint)
        #expect(first.prefix(97) != second.prefix(97))
        #expect(first != second)
    }

    @Test func everyFlippedBitIsRefused() throws {
        let recipient = try ECPrivateKey.generate(.p384)
        let token = try MfBToken.encrypt(plaintext: Array("an authorization code".utf8), recipientPublicPoint: recipient.publicPoint)
        var refused = 0
        for index in token.indices {
            for bit in 0..<8 {
                #expect(throws: MfBError.decryptFailed, "byte \(index) bit \(bit)") {
                    try MfBToken.decrypt(token: flipping(token, byte: index, bit: bit), privateKey: recipient)
                }
                refused += 1
            }
        }
        #expect(refused == token.count * 8)
    }

    @Test func aWrongPrivateKeyIsRefused() throws {
        let recipient = try ECPrivateKey.generate(.p384)
        let other = try ECPrivateKey.generate(.p384)
        let token = try MfBToken.encrypt(plaintext: Array("token".utf8), recipientPublicPoint: recipient.publicPoint)
        #expect(throws: MfBError.decryptFailed) { try MfBToken.decrypt(token: token, privateKey: other) }
    }

    @Test func aCompressedEphemeralKeyIsRefused() throws {
        let recipient = try ECPrivateKey.generate(.p384)
        let token = try MfBToken.encrypt(plaintext: [UInt8](repeating: 0x41, count: 40), recipientPublicPoint: recipient.publicPoint)
        let x = Array(token[1...48]), y = Array(token[49...96]), rest = Array(token[97...])
        let prefix: UInt8 = (y.last ?? 0) & 1 == 1 ? 0x03 : 0x02
        // 49 bytes of key, then the ciphertext and tag as they were.
        #expect(throws: MfBError.decryptFailed) { try MfBToken.decrypt(token: [prefix] + x + rest, privateKey: recipient) }
        // The 97-byte slot holding a compressed key and padding.
        #expect(throws: MfBError.decryptFailed) {
            try MfBToken.decrypt(token: [prefix] + x + [UInt8](repeating: 0, count: 48) + rest, privateKey: recipient)
        }
    }

    @Test func lengthsOutsideTheBoundsAreRefused() throws {
        let recipient = try ECPrivateKey.generate(.p384)
        let token = try MfBToken.encrypt(plaintext: [], recipientPublicPoint: recipient.publicPoint)
        #expect(token.count == MfBToken.minimumLength)
        #expect(try MfBToken.decrypt(token: token, privateKey: recipient) == [])
        for candidate in [[], Array(token.prefix(1)), Array(token.prefix(97)), Array(token.dropLast()),
                          [UInt8](repeating: 0x04, count: MfBToken.maximumLength + 1)] {
            #expect(throws: MfBError.decryptFailed, "\(candidate.count) bytes") {
                try MfBToken.decrypt(token: candidate, privateKey: recipient)
            }
        }
    }

    @Test func garbageOfAValidLengthIsRefused() throws {
        let recipient = try ECPrivateKey.generate(.p384)
        for length in [MfBToken.minimumLength, 143, 500] {
            let garbage = [0x04] + SecureRandom.bytes(length - 1)
            #expect(throws: MfBError.decryptFailed) { try MfBToken.decrypt(token: garbage, privateKey: recipient) }
        }
    }

    @Test func encryptRefusesBadRecipientsAndOversizedPlaintext() throws {
        let recipient = try ECPrivateKey.generate(.p384)
        let point = recipient.publicPoint
        let badPoints: [[UInt8]] = [
            [], [0x02] + Array(point[1...48]), flipping(point, byte: 96), try ECPrivateKey.generate(.p256).publicPoint,
        ]
        for bad in badPoints {
            #expect(throws: (any Error).self, "\(bad.count)-byte point") { try MfBToken.encrypt(plaintext: [1], recipientPublicPoint: bad) }
        }
        #expect(throws: (any Error).self) {
            try MfBToken.encrypt(plaintext: [UInt8](repeating: 0, count: MfBToken.maximumLength - MfBToken.minimumLength + 1),
                                 recipientPublicPoint: point)
        }
    }
}
