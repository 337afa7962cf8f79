@testable import PasskeyCrypto
import Synchronization
import Testing

/// The reserve `SecureRandom` hands short values out from: each byte once, zeroed behind the
/// reader, filled again when spent and after a fork.
@Suite struct RandomReserveTests {
    @Test func valuesAcrossRefillsAreAllDifferent() {
        let reserve = RandomReserve()
        // Three reserves' worth of 32-byte values: two refills on the way.
        let values = (0..<(3 * RandomReserve.size / 32)).map { _ in reserve.take(32) }
        #expect(Set(values).count == values.count)
        #expect(values.allSatisfy { $0.count == 32 && $0 != [UInt8](repeating: 0, count: 32) })
    }

    @Test func aValueGivenOutIsZeroedInTheReserve() {
        let reserve = RandomReserve()
        _ = reserve.take(16)
        _ = reserve.take(48)
        let unseen = reserve.unseen
        #expect(unseen.count == RandomReserve.size - 64)
        #expect(unseen.givenOutZeroed)
    }

    @Test func aValueThatDoesNotFitStartsAFreshReserve() {
        let reserve = RandomReserve()
        for _ in 0..<(RandomReserve.size / 64 - 1) { _ = reserve.take(64) }
        _ = reserve.take(40)  // 24 bytes left
        _ = reserve.take(32)  // does not fit: refilled
        #expect(reserve.unseen.count == RandomReserve.size - 32)
    }

    @Test func aForkedChildRefillsBeforeGivingAnythingOut() {
        let reserve = RandomReserve()
        _ = reserve.take(32)
        #expect(reserve.unseen.count == RandomReserve.size - 32)
        SecureRandom.forks.add(1, ordering: .relaxed)
        _ = reserve.take(8)
        #expect(reserve.unseen.count == RandomReserve.size - 8)
    }
}
