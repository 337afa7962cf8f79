import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// `passkey-server migrate`, `export` and `import`: an SQLite database moved to PostgreSQL and
/// back, after which the same passkey signs in, the same refresh token refreshes, the ID token's
/// key is still published and the audit chain verifies; a target that holds data, and an export
/// that was cut or altered, are refused with nothing written.
@Suite(.serialized) struct MigrationTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func anSQLiteDatabaseMovesToPostgresAndBackWithEverySignIn() async throws {
        guard TestPostgres.isAvailable else { return }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = folder.appendingPathComponent("db.sqlite").path
        var held: (credential: TestCredential, secret: String?, refresh: String, kid: String, keys: Data)?
        try await withServer({ $0.database = sqlite }) { server, ceremonies, client in
            let rp = try await TestRelyingParty.register(server) { $0.scopes = ["openid", "profile", "offline_access"] }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let tokens = try await OpenIDLogoutTests.tokens(rp, session: ada.session, scope: "openid offline_access")
            let idToken = try #require(tokens["id_token"] as? String)
            let header = try #require(Base64URL.decode(String(idToken.split(separator: ".")[0])))
            let kid = try #require((try JSONSerialization.jsonObject(with: Data(header)) as? [String: Any])?["kid"] as? String)
            held = (ada.credential, rp.secret, try #require(tokens["refresh_token"] as? String), kid, try await client.get("/oauth/jwks").body)
        }
        let before = try #require(held)

        try await TestPostgres.withDatabase { url in
            let moved = try await CommandRun.run(["migrate", "--database", sqlite, "--to", url])
            #expect(moved.status == 0, "\(moved.errors)")
            #expect(moved.output.hasPrefix("migrate: ") && moved.output.contains("compared"), "\(moved.output)")
            // Into a database that now holds data: refused.
            let again = try await CommandRun.run(["migrate", "--database", sqlite, "--to", url])
            #expect(again.status == 1 && again.errors.contains("not empty"), "\(again.errors)")
            let verified = try await CommandRun.run(["events", "verify", "--database", url])
            #expect(verified.status == 0, "\(verified.output) \(verified.errors)")

            let moved2 = try await TestServer.start { $0.database = url }
            do {
                let signedIn = try await Ceremonies(server: moved2).signIn("ada", credential: before.credential, signCount: 7)
                #expect(signedIn.result.status == 200, "\(String(decoding: signedIn.result.body, as: UTF8.self))")
                let rp = TestRelyingParty(server: moved2, clientID: "wiki", secret: before.secret)
                let refreshed = try await rp.token([("grant_type", "refresh_token"), ("refresh_token", before.refresh)])
                #expect(refreshed.status == 200, "\(String(decoding: refreshed.body, as: UTF8.self))")
                let keys = try await Client(base: moved2.base).get("/oauth/jwks")
                #expect(keys.body == before.keys)
                #expect(String(decoding: keys.body, as: UTF8.self).contains(before.kid))
            } catch {
                await moved2.stopKeepingData()
                throw error
            }
            await moved2.stopKeepingData()

            // And back, through export and import (the same count of rows in every table), and
            // with migrate (which compares every row).
            let exported = try await CommandRun.run(["export", "--database", url])
            #expect(exported.status == 0, "\(exported.errors)")
            let back = folder.appendingPathComponent("back.sqlite").path
            let imported = try await CommandRun.run(["import", "--database", back], stdin: Data(exported.output.utf8))
            #expect(imported.status == 0, "\(imported.errors)")
            let reexported = try await CommandRun.run(["export", "--database", back])
            let counts = { (text: String) in text.split(separator: "\n").last.map(String.init) }
            #expect(counts(reexported.output) == counts(exported.output))
            #expect(reexported.output.contains("\"name\":\"ada\""))
            #expect(try await CommandRun.run(["events", "verify", "--database", back]).status == 0)
            let migratedBack = try await CommandRun.run(["migrate", "--database", url, "--to", folder.appendingPathComponent("again.sqlite").path])
            #expect(migratedBack.status == 0, "\(migratedBack.errors)")
            let twice = try await CommandRun.run(["import", "--database", back], stdin: Data(exported.output.utf8))
            #expect(twice.status == 1 && twice.errors.contains("not empty"), "\(twice.errors)")
        }
    }

    /// Every table of the engine is carried, or left out on purpose, by name: a new table must
    /// be put in one of the lists.
    @Test func everyTableIsCarriedOrLeftOutByName() async throws {
        try await withServer { server, _, _ in
            let transfer = try #require(server.app.store as? any DatabaseTransfer)
            let listed = DatabaseExport.tables + DatabaseExport.sessionTables + DatabaseExport.transientTables
            #expect(Set(try await transfer.tableNames()) == Set(listed))
            #expect(Set(listed).count == listed.count)
        }
    }

    @Test func hostileExportsAreRefusedAndWriteNothing() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.sqlite").path
        try await withServer({ $0.database = source }) { _, ceremonies, _ in
            _ = try await ceremonies.register("ada")
        }
        let export = try await CommandRun.run(["export", "--database", source])
        #expect(export.status == 0, "\(export.errors)")
        let lines = export.output.split(separator: "\n").map(String.init)
        let userLine = try #require(lines.firstIndex { $0.contains("\"table\":\"users\"") })
        let cases: [(String, String, String)] = [
            ("cut", lines.dropLast().joined(separator: "\n"), "cut short"),
            ("a row dropped", lines.enumerated().filter { $0.offset != userLine }.map(\.element).joined(separator: "\n"), "the end line counts"),
            ("not an export", "{\"hello\": 1}\n", "not a passkey-server export"),
            ("unknown table", lines[0] + "\n{\"table\":\"sqlite_master\",\"row\":{}}\n" + lines.last!, "a known table"),
            ("bad bytes", lines.map { $0.contains("\"table\":\"users\"") ? $0.replacingOccurrences(of: "{\"bytes\":\"", with: "{\"bytes\":\"=") : $0 }.joined(separator: "\n"), "bytes"),
            ("a future schema", lines[0].replacingOccurrences(of: "\"schema\":", with: "\"schema\":9") + "\n" + lines.dropFirst().joined(separator: "\n"), "newer"),
        ]
        for (name, text, reason) in cases {
            let target = folder.appendingPathComponent("\(UUID().uuidString).sqlite").path
            let run = try await CommandRun.run(["import", "--database", target], stdin: Data(text.utf8))
            #expect(run.status == 1 && run.errors.contains(reason), "\(name): \(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: target), "\(name): a refused import left \(target)")
        }
        // A database that holds an account: refused, and it keeps only its own.
        let occupied = folder.appendingPathComponent("occupied.sqlite").path
        try await withServer({ $0.database = occupied }) { _, ceremonies, _ in _ = try await ceremonies.register("bob") }
        let refused = try await CommandRun.run(["import", "--database", occupied], stdin: Data(export.output.utf8))
        #expect(refused.status == 1 && refused.errors.contains("not empty"), "\(refused.errors)")
        let still = try await CommandRun.run(["users", "list", "--database", occupied])
        #expect(still.output.contains("bob") && !still.output.contains("ada"))
    }
}
