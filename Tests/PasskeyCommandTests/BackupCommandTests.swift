import Foundation
import PasskeyAccounts
import PasskeyApp
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// `passkey-server backup FILE`: SQLite's online backup of a serving database, to a new file that
/// `serve` opens as it is; refusals change nothing.
@Suite struct BackupCommandTests {
    @Test func aServingDatabaseIsCopiedAndTheCopyServesTheSamePasskeys() async throws {
        guard !TestServer.onPostgres else { return }   // an SQLite file's backup; PostgreSQL's refusal is below
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-backup-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        var credential: TestCredential?
        try await withServer { server, ceremonies, _ in
            let (registered, made, _) = try await ceremonies.register("Ada")
            #expect(registered.status == 200)
            credential = made
            // Registrations go on while the copy is made: the copy is one moment of the database.
            let writes = Task {
                for index in 0..<20 { _ = try await ceremonies.register("writer\(index)") }
            }
            let run = try await CommandRun.run(["backup", copy, "--database", server.databasePath])
            try await writes.value
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.hasPrefix("backup: \(copy) written"), "\(run.output)")
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "the copy is readable by others: \(String(mode, radix: 8))")
        }
        let restored = try await TestServer.start { $0.database = copy }
        do {
            let signedIn = try await Ceremonies(server: restored).signIn("ada", credential: try #require(credential), signCount: 5)
            #expect(signedIn.result.status == 200, "\(String(decoding: signedIn.result.body, as: UTF8.self))")
        } catch {
            await restored.stopKeepingData()
            throw error
        }
        await restored.stopKeepingData()
    }

    @Test func refusalsChangeNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let existing = directory.appendingPathComponent("existing.sqlite").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        let source = directory.appendingPathComponent("source.sqlite").path
        try await withServer({ $0.database = source }) { server, ceremonies, _ in
            _ = try await ceremonies.register("ada")
            let exists = try await CommandRun.run(["backup", existing, "--database", source])
            #expect(exists.status == 1 && exists.errors.contains("exists already"), "\(exists.errors)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("keep me".utf8))
        }
        let missing = try await CommandRun.run(["backup", directory.appendingPathComponent("new.sqlite").path, "--database", directory.appendingPathComponent("none.sqlite").path])
        #expect(missing.status == 1 && missing.errors.contains("no database"), "\(missing.errors)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("new.sqlite").path))
        let notADatabase = try await CommandRun.run(["backup", directory.appendingPathComponent("new.sqlite").path, "--database", existing])
        #expect(notADatabase.status == 1, "\(notADatabase.errors)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("new.sqlite").path), "a failed backup left its file")
        let postgres = try await CommandRun.run(["backup", directory.appendingPathComponent("pg.sqlite").path, "--database", "postgres://u@127.0.0.1:1/db"])
        #expect(postgres.status == 2 && postgres.errors.contains("pg_dump"), "\(postgres.errors)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("pg.sqlite").path))
    }
}
