import Foundation
@testable import PasskeyAccounts
import Testing

/// Challenges are the time they were made, then 32 random bytes: in the store's index they come
/// in time order, and each is as hard to guess as a fully random one of 32 bytes.
@Suite struct CeremonyChallengeTests {
    @Test("6 bytes of milliseconds, big-endian, then 32 random bytes")
    func layout() {
        let date = Date(timeIntervalSince1970: 1_765_000_000.123)
        let challenge = CeremonyChallenge.make(at: date)
        #expect(challenge.count == 38)
        let milliseconds = challenge.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(milliseconds == 1_765_000_000_123)
        // The random part differs every time, at the same instant too.
        let again = CeremonyChallenge.make(at: date)
        #expect(again.prefix(6) == challenge.prefix(6))
        #expect(again.suffix(32) != challenge.suffix(32))
    }

    @Test("later challenges sort after earlier ones, byte by byte, as the store's index orders them")
    func timeOrder() {
        var previous: [UInt8] = []
        for offset in stride(from: 0.0, to: 5.0, by: 0.25) {
            let challenge = CeremonyChallenge.make(at: Date(timeIntervalSince1970: 1_765_000_000 + offset))
            #expect(previous.lexicographicallyPrecedes(challenge))
            previous = challenge
        }
    }

    @Test("a clock before 1970 or past 2^48 ms gives the nearest time that fits, not a trap")
    func clockOutOfRange() {
        #expect(CeremonyChallenge.make(at: Date(timeIntervalSince1970: -5)).prefix(6).allSatisfy { $0 == 0 })
        #expect(CeremonyChallenge.make(at: Date(timeIntervalSince1970: 1e12)).prefix(6).allSatisfy { $0 == 0xFF })
        #expect(CeremonyChallenge.make(at: Date(timeIntervalSince1970: .nan)).count == 38)
    }
}
