import Foundation
import Testing
import PasskeyStorage

/// The store contract: closing, and the precision of stored times.
struct LifecycleContract {
    static let checks: [StoreCheck] = [
        StoreCheck("after close, calls throw .database; close twice is fine") { try await LifecycleContract().closedStoreThrows($0) },
        StoreCheck("times are kept to the millisecond (rounded to nearest)") { try await LifecycleContract().millisecondPrecision($0) },
    ]

    func closedStoreThrows(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            await store.close()
            await store.close()
            let error = await #expect(throws: StoreError.self) {
                _ = try await store.user(nameKey: "alice")
            }
            #expect(error?.code == .database)
        }
    }

    func millisecondPrecision(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            var user = Fixture.user()
            user.createdAt = Date(timeIntervalSince1970: 1_700_000_000.123_6)
            try await store.registerCredential(Fixture.credential(for: user), newUser: user)
            let stored = try #require(try await store.user(handle: user.handle))
            #expect(stored.createdAt == Date(timeIntervalSince1970: 1_700_000_000.124))
        }
    }
}
