import Foundation
import Testing
import PasskeyStorage

/// One row of the compare-and-set rule: applies iff (stored == 0 && new == 0) || new > stored.
struct CounterCase: Sendable {
    let stored: UInt32
    let new: UInt32
    let applies: Bool
}

/// The store contract: the sign counter's compare-and-set.
struct SignCountContract {
    static let checks: [StoreCheck] = [
        StoreCheck("recordAssertion CAS rules (every row of the rule)") { try await SignCountContract().compareAndSet($0) },
        StoreCheck("an unknown credential is not updated") { try await SignCountContract().unknownCredential($0) },
        StoreCheck("a sequence of assertions: the counter only moves forward") { try await SignCountContract().sequence($0) },
    ]

    static let counterCases = [
        CounterCase(stored: 0, new: 0, applies: true),
        CounterCase(stored: 5, new: 6, applies: true),
        CounterCase(stored: 5, new: 5, applies: false),
        CounterCase(stored: 5, new: 0, applies: false),
        CounterCase(stored: 0, new: 3, applies: true),
        CounterCase(stored: 3, new: 0, applies: false),
        CounterCase(stored: 9, new: 4, applies: false),
        CounterCase(stored: .max - 1, new: .max, applies: true),
        CounterCase(stored: .max, new: .max, applies: false),
    ]

    func compareAndSet(_ engine: any StoreEngine) async throws {
        for row in Self.counterCases { try await compareAndSet(engine, row) }
    }

    func compareAndSet(_ engine: any StoreEngine, _ row: CounterCase) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user()
            var credential = Fixture.credential(for: user, signCount: row.stored)
            credential.backupState = false
            credential.uvInitialized = false
            try await store.registerCredential(credential, newUser: user)

            let at = Fixture.date(60_000)
            let applied = try await store.recordAssertion(
                credentialID: credential.id, signCount: row.new, backupState: true,
                uvInitialized: true, at: at)
            #expect(applied == row.applies)

            let stored = try #require(try await store.credential(id: credential.id))
            if row.applies {
                var expected = credential
                expected.signCount = row.new
                expected.backupState = true
                expected.uvInitialized = true
                expected.lastUsedAt = at
                #expect(stored == expected)
            } else {
                #expect(stored == credential)  // refused: nothing changed
            }
        }
    }

    func unknownCredential(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let applied = try await store.recordAssertion(
                credentialID: Fixture.bytes(16), signCount: 1, backupState: false,
                uvInitialized: false, at: Fixture.date())
            #expect(applied == false)
        }
    }

    func sequence(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user()
            let credential = Fixture.credential(for: user)
            try await store.registerCredential(credential, newUser: user)
            var results: [Bool] = []
            for count: UInt32 in [1, 2, 2, 10, 3, 11] {
                results.append(try await store.recordAssertion(
                    credentialID: credential.id, signCount: count, backupState: false,
                    uvInitialized: true, at: Fixture.date(Int64(count))))
            }
            #expect(results == [true, true, false, true, false, true])
            let stored = try #require(try await store.credential(id: credential.id))
            #expect(stored.signCount == 11)
            #expect(stored.lastUsedAt == Fixture.date(11))
        }
    }
}
