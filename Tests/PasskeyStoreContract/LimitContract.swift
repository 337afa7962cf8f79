import Foundation
import Testing
import PasskeyStorage

/// The store contract: the counters of the limits that hold across instances.
struct LimitContract {
    static let checks: [StoreCheck] = [
        StoreCheck("attempts are counted per key and window up to the limit, checked without counting, and swept") {
            try await LimitContract().counting($0)
        },
        StoreCheck("two stores on one database share the count: racing attempts get the limit, not twice it") {
            try await LimitContract().shared($0)
        },
        StoreCheck("a one-time id is spent once until it expires, then again; sweeping forgets only expired ones") {
            try await LimitContract().spentOnce($0)
        },
    ]

    func spentOnce(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let now = Fixture.date()
            let (first, second) = (Fixture.bytes(32), Fixture.bytes(32))
            #expect(try await store.spendOnce(keyHash: first, expiresAt: now.addingTimeInterval(60), now: now) == true)
            #expect(try await store.spendOnce(keyHash: first, expiresAt: now.addingTimeInterval(600), now: now.addingTimeInterval(59)) == false)
            #expect(try await store.spendOnce(keyHash: second, expiresAt: now.addingTimeInterval(120), now: now) == true)
            // Expired: the id may be spent again (its assertion could not be presented anyway).
            #expect(try await store.spendOnce(keyHash: first, expiresAt: now.addingTimeInterval(200), now: now.addingTimeInterval(61)) == true)
            #expect(try await store.spendOnce(keyHash: first, expiresAt: now.addingTimeInterval(300), now: now.addingTimeInterval(62)) == false)
            _ = try await store.sweepExpired(now: now.addingTimeInterval(150))
            #expect(try await store.spendOnce(keyHash: second, expiresAt: now.addingTimeInterval(400), now: now.addingTimeInterval(100)) == true)
            #expect(try await store.spendOnce(keyHash: first, expiresAt: now.addingTimeInterval(400), now: now.addingTimeInterval(150)) == false)
        }
    }

    /// A minute's window: the fixture's moment and the end of its window.
    static let window: Int64 = 60_000
    static func windowEnd(_ at: Date) -> Int64 {
        let ms = Int64((at.timeIntervalSince1970 * 1000).rounded())
        return ms - ms % window + window
    }

    func counting(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let now = Fixture.date()
            let end = Self.windowEnd(now)
            for _ in 0..<3 {
                #expect(try await store.countAttempts(keys: ["a", "b"], limit: 3, window: Self.window, now: now, counting: true) == nil)
            }
            // At the limit: refused with the window's end, on checking and on counting.
            #expect(try await store.countAttempts(keys: ["a"], limit: 3, window: Self.window, now: now, counting: false) == end)
            #expect(try await store.countAttempts(keys: ["a"], limit: 3, window: Self.window, now: now, counting: true) == end)
            // One key at its limit refuses the pair; another key is its own.
            #expect(try await store.countAttempts(keys: ["c", "a"], limit: 3, window: Self.window, now: now, counting: true) == end)
            #expect(try await store.countAttempts(keys: ["c"], limit: 3, window: Self.window, now: now, counting: false) == nil)
            // Checking counts nothing.
            for _ in 0..<5 {
                #expect(try await store.countAttempts(keys: ["d"], limit: 1, window: Self.window, now: now, counting: false) == nil)
            }
            // The next window starts again.
            let later = now.addingTimeInterval(60)
            #expect(try await store.countAttempts(keys: ["a"], limit: 3, window: Self.window, now: later, counting: true) == nil)
            // A day later the old windows are swept.
            _ = try await store.sweepExpired(now: now.addingTimeInterval(2 * 86400))
            #expect(try await store.countAttempts(keys: ["a"], limit: 1, window: Self.window, now: now, counting: false) == nil)
        }
    }

    func shared(_ engine: any StoreEngine) async throws {
        try await engine.withStores(2) { stores in
            let now = Fixture.date()
            let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<12 {
                    let store = stores[index % 2]
                    group.addTask {
                        try await store.countAttempts(keys: ["recovery-name:ada"], limit: 5, window: Self.window, now: now, counting: true) == nil
                    }
                }
                var allowed = 0
                for try await ok in group where ok { allowed += 1 }
                return allowed
            }
            #expect(allowed == 5)
        }
    }
}
