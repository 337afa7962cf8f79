import Foundation
import PasskeyStoreContract
import Testing
import PasskeyStorage
@testable import PasskeySQLite

@Suite("Sign counter on SQLite")
struct SignCountTests {
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
