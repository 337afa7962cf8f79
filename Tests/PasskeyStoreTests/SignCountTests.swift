import Foundation
import Testing
import PasskeyStorage
@testable import PasskeySQLite

/// One row of the compare-and-set rule: applies iff (stored == 0 && new == 0) || new > stored.
struct CounterCase: Sendable, CustomTestStringConvertible {
    let stored: UInt32
    let new: UInt32
    let applies: Bool
    var testDescription: String { "\(stored) → \(new): \(applies ? "applies" : "refused")" }
}

@Suite("Sign counter compare-and-set")
struct SignCountTests {
    @Test(
        "recordAssertion CAS rules",
        arguments: StoreKind.available, [
            CounterCase(stored: 0, new: 0, applies: true),
            CounterCase(stored: 5, new: 6, applies: true),
            CounterCase(stored: 5, new: 5, applies: false),
            CounterCase(stored: 5, new: 0, applies: false),
            CounterCase(stored: 0, new: 3, applies: true),
            CounterCase(stored: 3, new: 0, applies: false),
            CounterCase(stored: 9, new: 4, applies: false),
            CounterCase(stored: .max - 1, new: .max, applies: true),
            CounterCase(stored: .max, new: .max, applies: false),
        ])
    func compareAndSet(_ kind: StoreKind, _ row: CounterCase) async throws {
        try await withStore(kind) { store in
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

    @Test("an unknown credential is not updated", arguments: StoreKind.available)
    func unknownCredential(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let applied = try await store.recordAssertion(
                credentialID: Fixture.bytes(16), signCount: 1, backupState: false,
                uvInitialized: false, at: Fixture.date())
            #expect(applied == false)
        }
    }

    @Test("a sequence of assertions: the counter only moves forward", arguments: StoreKind.available)
    func sequence(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
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

    @Test("markPossiblyCloned persists and changes nothing else")
    func markPossiblyCloned() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("cloned.sqlite").path
            let user = Fixture.user()
            let credential = Fixture.credential(for: user, signCount: 5)
            let other = Fixture.credential(for: user, signCount: 5, at: 1)

            let store = try await SQLitePasskeyStore(path: path)
            try await store.registerCredential(credential, newUser: user)
            try await store.registerCredential(other, newUser: nil)
            let refused = try await store.recordAssertion(
                credentialID: credential.id, signCount: 4, backupState: true, uvInitialized: true,
                at: Fixture.date(1_000))
            #expect(refused == false)
            try await store.markPossiblyCloned(credentialID: credential.id)
            await store.close()

            let reopened = try await SQLitePasskeyStore(path: path)
            var expected = credential
            expected.possiblyCloned = true
            #expect(try await reopened.credential(id: credential.id) == expected)
            #expect(try await reopened.credential(id: other.id) == other)
            await reopened.close()
        }
    }
}
