import Foundation
@testable import PasskeyPostgres
import Synchronization
import Testing

/// The one sweeper that expires the PostgreSQL store's deadlines.
@Suite("Deadline watch")
struct DeadlineWatchTests {
    @Test("a deadline that passes expires once; one forgotten first never does")
    func expiresOnceUnlessForgotten() async throws {
        let watch = DeadlineWatch(tick: .milliseconds(5))
        let expired = Mutex<[String]>([])
        let soon = ContinuousClock.now.advanced(by: .milliseconds(20))
        _ = watch.watch(until: soon) { expired.withLock { $0.append("kept") } }
        let forgotten = watch.watch(until: soon) { expired.withLock { $0.append("forgotten") } }
        watch.forget(forgotten)
        #expect(watch.pendingCount == 1)
        try await waitUntil { watch.pendingCount == 0 }
        // Past its time, and several ticks later: still once, and never the forgotten one.
        try await Task.sleep(for: .milliseconds(50))
        #expect(expired.withLock { $0 } == ["kept"])
    }

    @Test("a deadline not yet due is left waiting, and one added after the sweeper stopped still expires")
    func waitsForItsTimeAndRestarts() async throws {
        let watch = DeadlineWatch(tick: .milliseconds(5))
        let fired = Mutex(0)
        let later = watch.watch(until: ContinuousClock.now.advanced(by: .seconds(3600))) { fired.withLock { $0 += 100 } }
        try await Task.sleep(for: .milliseconds(50))
        #expect(watch.pendingCount == 1, "an hour away, expired after a few ticks")
        watch.forget(later)
        try await Task.sleep(for: .milliseconds(50))  // the sweeper finds the table empty and ends
        _ = watch.watch(until: ContinuousClock.now) { fired.withLock { $0 += 1 } }
        try await waitUntil { fired.withLock { $0 } == 1 }
        #expect(watch.pendingCount == 0)
    }

    /// Polls `condition` for up to 60 s: with every test running on two cores, ticks come late.
    private func waitUntil(_ condition: () -> Bool) async throws {
        let end = ContinuousClock.now.advanced(by: .seconds(60))
        while !condition() {
            guard ContinuousClock.now < end else {
                Issue.record("not within 60 s")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
