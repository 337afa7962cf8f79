import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
@testable import PasskeySQLite
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// The audit trail end to end (accounts.md, "A tamper-evident audit trail"): events of real
/// ceremonies, a signed checkpoint, `passkey-server events verify` on the running server's
/// database (SQLite here, PostgreSQL in the second pass), then the database edited directly.
@Suite struct AuditTrailTests {
    /// Runs `sql` on the server's database behind its back.
    static func tamper(_ server: TestServer, _ sql: String) async throws {
        if let url = server.postgresDatabase {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        } else {
            let store = try #require(server.app.store as? SQLitePasskeyStore)
            try await store.database.write { db in try db.execute(sql, cached: false) }
        }
    }

    static func verify(_ server: TestServer) async throws -> CommandRun {
        try await CommandRun.run(["events", "verify", "--database", server.databasePath])
    }

    @Test func eventsVerifyFindsTheFirstEditedDeletedOrMovedEventAndChecksTheCheckpoints() async throws {
        // The server's own checkpoints off: this test signs the ones it counts. Its sweeper's
        // first round, late under the whole suite's load, once signed one in between.
        try await withServer({ $0.auditCheckpointInterval = 0 }) { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies, "ada")
            _ = try await TestRelyingParty.signedIn(ceremonies, "bob")
            for count in 1...3 {
                #expect(try await ceremonies.signIn("ada", credential: ada.credential, signCount: UInt32(count)).result.status == 200)
            }
            // The running server seals what was written into the chain by itself (PostgreSQL
            // links after the commit; SQLite in it), within a few seconds at most.
            for _ in 0..<100 {
                if try await server.app.store.chainedEvents(after: 0, limit: 100).count >= 5 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try await server.app.store.chainedEvents(after: 0, limit: 100).count == 5)
            let trail = AuditTrail(store: server.app.store, signingKeys: SigningKeys(store: server.app.store))
            let checkpoint = try #require(try await trail.checkpoint(now: server.clock.now()))
            #expect(try await trail.checkpoint(now: server.clock.now()) == nil)  // nothing new to sign
            let held = try await Self.verify(server)
            #expect(held.status == 0, "\(held.output) \(held.errors)")
            #expect(held.output.contains("5 events") && held.output.contains("1 checkpoints: the chain holds"))

            // The checkpoints, for an admin to keep elsewhere.
            let token = try await AccountAdministration(store: server.app.store).createAdminToken(name: "ci", now: server.clock.now())
            let listed = try await client.get("/admin/api/events/checkpoints", bearer: token)
            let first = try #require((listed.json["checkpoints"] as? [[String: Any]])?.first)
            #expect((first["event_id"] as? NSNumber)?.int64Value == checkpoint.eventID && (first["jws"] as? String) == checkpoint.jws)

            try await server.app.store.sealAuditChain()
            let ids = try await server.app.store.chainedEvents(after: 0, limit: 100).map(\.id)
            // An edited event.
            try await Self.tamper(server, "UPDATE events SET ip = '203.0.113.7' WHERE id = \(ids[2])")
            let edited = try await Self.verify(server)
            #expect(edited.status == 1 && edited.output.contains("event \(ids[2]): the event was edited"), "\(edited.output)")
            try await Self.tamper(server, "UPDATE events SET ip = '127.0.0.1' WHERE id = \(ids[2])")
            #expect(try await Self.verify(server).status == 0)

            // A deleted event breaks the link of the next.
            try await Self.tamper(server, "DELETE FROM events WHERE id = \(ids[1])")
            let deleted = try await Self.verify(server)
            #expect(deleted.status == 1 && deleted.output.contains("event \(ids[2]): the event does not follow"), "\(deleted.output)")
        }
    }

    @Test func aForgedCheckpointIsFound() async throws {
        try await withServer { server, ceremonies, _ in
            _ = try await TestRelyingParty.signedIn(ceremonies, "ada")
            let trail = AuditTrail(store: server.app.store, signingKeys: SigningKeys(store: server.app.store))
            let made = try #require(try await trail.checkpoint(now: server.clock.now()))
            // A checkpoint row whose hash was changed no longer matches what was signed.
            try await Self.tamper(server, "UPDATE audit_checkpoints SET event_id = event_id + 1 WHERE id = \(made.id == 0 ? 1 : made.id)")
            let run = try await Self.verify(server)
            #expect(run.status == 1 && run.output.contains("differs from what was signed"), "\(run.output)")
        }
    }
}
