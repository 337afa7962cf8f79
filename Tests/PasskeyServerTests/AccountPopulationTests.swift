import Foundation
import PasskeyJSON
@testable import PasskeyApp
import PasskeyStorage
import PasskeyServerTestSupport
import Testing

/// `passkey-bench populate`'s filler: accounts the running server reads as its own, on the
/// server's store (SQLite, or PostgreSQL in the second pass).
@Suite struct AccountPopulationTests {
    @Test func filledAccountsAreTheServersOwn() async throws {
        try await withServer { server, ceremonies, client in
            let report = try await AccountPopulation.populate(
                database: server.databasePath, users: 2_500, passkeysPerUser: 1.2, batch: 1_000, prefix: "bulk-")
            #expect(report.users == 2_500)
            #expect(report.credentials == 3_000)

            // Every fifth account has a second passkey, and each row reads back as a synced ES256 passkey.
            let store = server.app.store
            for (number, passkeys) in [(0, 1), (3, 1), (4, 2), (2_499, 2)] {
                let user = try #require(try await store.user(nameKey: "bulk-\(number)"))
                let credentials = try await store.credentials(userHandle: user.handle)
                #expect(credentials.count == passkeys)
                #expect(credentials.allSatisfy { $0.algorithm == -7 && $0.backupEligible && $0.discoverable && $0.publicKey.count == 77 })
            }
            #expect(try await store.user(nameKey: "bulk-2500") == nil)

            // The server names them in a sign-in's allowCredentials, by their stored ids.
            let user = try #require(try await store.user(nameKey: "bulk-4"))
            let ids = try await store.credentials(userHandle: user.handle).map { Base64URL.encode($0.id) }
            let options = try await client.get("/authentication_initialize?user_name=bulk-4")
            let allowed = ((options.json["publicKey"] as? [String: Any])?["allowCredentials"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(Set(allowed) == Set(ids))

            // A name already there fails its batch; the batches before it stay, the server goes on.
            _ = try await AccountPopulation.populate(
                database: server.databasePath, users: 5, passkeysPerUser: 1, batch: 10, prefix: "bulk-", first: 3_000)
            await #expect(throws: StoreError.self) {
                _ = try await AccountPopulation.populate(
                    database: server.databasePath, users: 20, passkeysPerUser: 1, batch: 10, prefix: "bulk-", first: 2_990)
            }
            #expect(try await store.user(nameKey: "bulk-2999") != nil)
            #expect(try await store.user(nameKey: "bulk-3005") == nil)
            #expect(try await ceremonies.register("after-the-fill").0.status == 200)
        }
    }

    @Test func refusesWhatWouldNotMakeAccountsBeforeOpeningTheDatabase() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("populate-\(UUID().uuidString).sqlite").path
        for (users, prefix, first, share) in [(1, "al\u{200B}ice-", 0, 1.2), (1, String(repeating: "x", count: 64), 0, 1.2), (-1, "a-", 0, 1.2), (1, "a-", -5, 1.2), (1, "a-", 0, 2.5)] {
            await #expect(throws: CommandFailure.self) {
                _ = try await AccountPopulation.populate(database: missing, users: users, passkeysPerUser: share, batch: 10, prefix: prefix, first: first)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func secondPasskeysAverageTheShareAsked() {
        for (share, users, expected) in [(1.2, 1_000, 200), (1.0, 1_000, 0), (2.0, 1_000, 1_000), (1.5, 9, 4), (1.2, 5, 1)] {
            #expect((0..<users).filter { AccountPopulation.hasSecond($0, share) }.count == expected)
        }
    }
}
