import Foundation
@testable import PasskeyAccounts
import PasskeyStorage
import Testing

/// A sign-in's ceremony rides sealed in its challenge: it reads back whole, under the same
/// secret only, and any change to a byte of the challenge makes it no ceremony.
@Suite struct SealedCeremonyTests {
    let seal = SealedCeremony(serverSecret: Array(repeating: 7, count: 32))

    static func ceremony(allow: [[UInt8]] = [[1, 2, 3], Array(repeating: 9, count: 1023)]) -> CeremonyRecord {
        CeremonyRecord(
            challenge: [], kind: .authentication, userHandle: Array(repeating: 4, count: 64), userName: nil, displayName: nil,
            isNewUser: false, userVerification: "preferred", allowCredentialIDs: allow, algorithms: [],
            createdAt: Date(timeIntervalSince1970: 1_765_000_000.123), expiresAt: Date(timeIntervalSince1970: 1_765_000_300.123),
            sessionHash: Array(repeating: 5, count: 32))
    }

    @Test("every field reads back, with the challenge as its own")
    func roundTrip() throws {
        for original in [Self.ceremony(), Self.ceremony(allow: [])] {
            let challenge = try seal.seal(original)
            var expected = original
            expected.challenge = challenge
            #expect(seal.open(challenge) == expected)
        }
        var bare = Self.ceremony(allow: [])
        bare.userHandle = nil
        bare.sessionHash = nil
        bare.userVerification = "discouraged"
        let challenge = try seal.seal(bare)
        #expect(seal.open(challenge)?.userHandle == nil)
        #expect(seal.open(challenge)?.sessionHash == nil)
        #expect(seal.open(challenge)?.userVerification == "discouraged")
        // A discoverable sign-in's challenge: 16 random bytes and the IV in 79 bytes.
        #expect(challenge.count == 1 + 12 + 16 + 37)
    }

    @Test("two seals of one ceremony differ, and each has its own spent key")
    func fresh() throws {
        let first = try seal.seal(Self.ceremony())
        let second = try seal.seal(Self.ceremony())
        #expect(first != second)
        #expect(SealedCeremony.spentKey(first) != SealedCeremony.spentKey(second))
        #expect(SealedCeremony.spentKey(first).count == 32)
    }

    @Test("a changed byte, a cut, an extension, another secret or another version: no ceremony")
    func tampered() throws {
        let challenge = try seal.seal(Self.ceremony())
        for index in challenge.indices {
            var changed = challenge
            changed[index] ^= 0x01
            #expect(seal.open(changed) == nil, "byte \(index)")
        }
        #expect(seal.open(Array(challenge.dropLast())) == nil)
        #expect(seal.open(challenge + [0]) == nil)
        #expect(seal.open([]) == nil)
        #expect(seal.open(Array(repeating: 1, count: 200)) == nil)
        #expect(SealedCeremony(serverSecret: Array(repeating: 8, count: 32)).open(challenge) == nil)
        // A registration's stored ceremony (its time and 32 random bytes) is no sealed one.
        #expect(seal.open(CeremonyChallenge.make(at: Date())) == nil)
    }

    @Test("only a sign-in's ceremony with fields in range is sealed")
    func notSealable() {
        var registration = Self.ceremony()
        registration.kind = .registration
        #expect(throws: SealError.self) { try seal.seal(registration) }
        var named = Self.ceremony()
        named.userName = "ada"
        #expect(throws: SealError.self) { try seal.seal(named) }
        var long = Self.ceremony()
        long.userHandle = Array(repeating: 1, count: 255)
        #expect(throws: SealError.self) { try seal.seal(long) }
        var odd = Self.ceremony()
        odd.userVerification = "sometimes"
        #expect(throws: SealError.self) { try seal.seal(odd) }
        var early = Self.ceremony()
        early.createdAt = Date(timeIntervalSince1970: -1)
        #expect(throws: SealError.self) { try seal.seal(early) }
        var late = Self.ceremony()
        late.expiresAt = Date(timeIntervalSince1970: 253_402_300_800)
        #expect(throws: SealError.self) { try seal.seal(late) }
    }

    @Test("a plaintext that does not read to its end is no ceremony")
    func plaintextReader() throws {
        let plaintext = try Plaintext.encode(Self.ceremony())
        #expect(Plaintext.decode(plaintext, challenge: [1]) != nil)
        #expect(Plaintext.decode(plaintext + [0], challenge: [1]) == nil)
        for cut in 0 ..< plaintext.count {
            #expect(Plaintext.decode(Array(plaintext.prefix(cut)), challenge: [1]) == nil, "cut at \(cut)")
        }
        var badVerification = plaintext
        badVerification[32] = 3
        #expect(Plaintext.decode(badVerification, challenge: [1]) == nil)
        // A time past 9999 (the fuzzer's find: it read back as another instant).
        var late = plaintext
        late.replaceSubrange(16 ..< 24, with: [0x00, 0x0F, 0xFF, 0x00, 0x02, 0x00, 0x00, 0x00])
        #expect(Plaintext.decode(late, challenge: [1]) == nil)
    }
}
