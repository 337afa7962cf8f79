import Glibc
@testable import PasskeyCrypto
import Synchronization
import Testing

/// The reserve `SecureRandom` hands short values out from: each byte once, zeroed behind the
/// reader, filled again when spent and after a fork. Each reserve here counts forks on a
/// counter of its own: the tests run in parallel, and one test's fork is not another's.
@Suite struct RandomReserveTests {
    final class ForkCounter: Sendable {
        let value = Atomic<UInt64>(0)
    }

    /// A reserve that sees no fork but those `counter` counts.
    static func reserve(_ counter: ForkCounter = ForkCounter()) -> RandomReserve {
        RandomReserve(forkCount: { counter.value.load(ordering: .relaxed) })
    }

    @Test func valuesAcrossRefillsAreAllDifferent() {
        let reserve = Self.reserve()
        // Three reserves' worth of 32-byte values: two refills on the way.
        let values = (0..<(3 * RandomReserve.size / 32)).map { _ in reserve.take(32) }
        #expect(Set(values).count == values.count)
        #expect(values.allSatisfy { $0.count == 32 && $0 != [UInt8](repeating: 0, count: 32) })
    }

    @Test func aValueGivenOutIsZeroedInTheReserve() {
        let reserve = Self.reserve()
        _ = reserve.take(16)
        _ = reserve.take(48)
        let unseen = reserve.unseen
        #expect(unseen.count == RandomReserve.size - 64)
        #expect(unseen.givenOutZeroed)
    }

    @Test func aValueThatDoesNotFitStartsAFreshReserve() {
        let reserve = Self.reserve()
        for _ in 0..<(RandomReserve.size / 64 - 1) { _ = reserve.take(64) }
        _ = reserve.take(40)  // 24 bytes left
        _ = reserve.take(32)  // does not fit: refilled
        #expect(reserve.unseen.count == RandomReserve.size - 32)
    }

    @Test func aForkedChildRefillsBeforeGivingAnythingOut() {
        let forks = ForkCounter()
        let reserve = Self.reserve(forks)
        _ = reserve.take(32)
        #expect(reserve.unseen.count == RandomReserve.size - 32)
        forks.value.add(1, ordering: .relaxed)
        _ = reserve.take(8)
        #expect(reserve.unseen.count == RandomReserve.size - 8)
    }

    /// The process's own count, which `SecureRandom`'s reserve reads: a real fork counts one
    /// (the `pthread_atfork` handler runs in the child).
    @Test func aRealForkIsCounted() {
        _ = SecureRandom.bytes(8)  // the reserve exists, so its handler is registered
        let before = SecureRandom.forks.load(ordering: .relaxed)
        let child = fork()
        if child == 0 {
            _exit(SecureRandom.forks.load(ordering: .relaxed) > before ? 0 : 1)
        }
        #expect(child > 0)
        var status: Int32 = 0
        #expect(waitpid(child, &status, 0) == child)
        #expect(status == 0, "the child did not count its fork")
    }
}
