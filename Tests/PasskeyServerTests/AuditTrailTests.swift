import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
@testable import PasskeySQLite
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// The audit trail end to end (docs/contracts/accounts.md, "A tamper-evident audit trail"): events of real
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

    /// Five events of real ceremonies, sealed, at distinct times a minute apart.
    static func fiveEvents(_ server: TestServer, _ ceremonies: Ceremonies) async throws -> [Int64] {
        server.clock.freeze()
        let ada = try await TestRelyingParty.signedIn(ceremonies, "ada")
        server.clock.advance(60)
        _ = try await TestRelyingParty.signedIn(ceremonies, "bob")
        for count in 1...3 {
            server.clock.advance(60)
            #expect(try await ceremonies.signIn("ada", credential: ada.credential, signCount: UInt32(count)).result.status == 200)
        }
        for _ in 0..<100 {
            if try await server.app.store.chainedEvents(after: 0, limit: 100).count >= 5 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await server.app.store.sealAuditChain()
        let ids = try await server.app.store.chainedEvents(after: 0, limit: 100).map(\.id)
        #expect(ids.count == 5)
        return ids
    }

    /// The attack the chain's start let through: the oldest events' hashes stripped (so that
    /// they read as from before the chain), the events edited, and the start moved past them.
    @Test func aRewrittenStartOfTheChainIsFound() async throws {
        try await withServer({ $0.auditCheckpointInterval = 0 }) { server, ceremonies, _ in
            let ids = try await Self.fiveEvents(server, ceremonies)
            let trail = AuditTrail(store: server.app.store, signingKeys: SigningKeys(store: server.app.store))
            _ = try #require(try await trail.checkpoint(now: server.clock.now()))
            #expect(try await Self.verify(server).status == 0)

            // Stripped and edited, the start left alone: the events after the first chained
            // position carry no hash.
            try await Self.tamper(server, "UPDATE audit_chain SET start_hash = (SELECT hash FROM events WHERE id = \(ids[1])) WHERE id = 1")
            try await Self.tamper(server, "UPDATE events SET prev_hash = NULL, hash = NULL, ip = '198.51.100.66' WHERE id IN (\(ids[0]), \(ids[1]))")
            let moved = try await Self.verify(server)
            #expect(moved.status == 1 && moved.output.contains("the chain's start moved after the last signed checkpoint"), "\(moved.output)")
            // The server does not sign the moved start either.
            await #expect(throws: AuditTrail.StartMoved.self) {
                _ = try await trail.checkpoint(now: server.clock.now().addingTimeInterval(60))
            }
        }
    }

    @Test func strippedHashesAfterTheFirstChainedEventAreFound() async throws {
        try await withServer({ $0.auditCheckpointInterval = 0 }) { server, ceremonies, _ in
            let ids = try await Self.fiveEvents(server, ceremonies)
            let trail = AuditTrail(store: server.app.store, signingKeys: SigningKeys(store: server.app.store))
            _ = try #require(try await trail.checkpoint(now: server.clock.now()))
            try await Self.tamper(server, "UPDATE events SET prev_hash = NULL, hash = NULL WHERE id = \(ids[0])")
            let stripped = try await Self.verify(server)
            #expect(stripped.status == 1 && stripped.output.contains("event \(ids[0]): the event carries no hash, after the chain began"), "\(stripped.output)")
        }
    }

    /// Retention moves the start and signs the move at once; the chain then holds, and a copy of
    /// the checkpoints kept elsewhere finds a checkpoint row deleted from the database.
    @Test func aSignedRetentionExplainsTheMovedStartAndKeptCopiesFindDeletedCheckpoints() async throws {
        try await withServer({ $0.auditCheckpointInterval = 0 }) { server, ceremonies, _ in
            let ids = try await Self.fiveEvents(server, ceremonies)
            let trail = AuditTrail(store: server.app.store, signingKeys: SigningKeys(store: server.app.store))
            _ = try #require(try await trail.checkpoint(now: server.clock.now()))
            // The two oldest events are past retention: deleted, the start moved.
            let cutoff = try #require(try await server.app.store.chainedEvents(after: 0, limit: 100).first { $0.id == ids[2] }).atMilliseconds
            #expect(try await server.app.store.deleteEvents(olderThan: Date(timeIntervalSince1970: Double(cutoff) / 1000)) == 2)
            let unexplained = try await Self.verify(server)
            #expect(unexplained.status == 1 && unexplained.output.contains("no signed retention record"), "\(unexplained.output)")
            _ = try #require(try await trail.checkpoint(now: server.clock.now(), retention: true))
            let held = try await Self.verify(server)
            #expect(held.status == 0, "\(held.output)")

            // The checkpoints as JSON lines, kept elsewhere.
            let printed = try await CommandRun.run(["events", "checkpoints", "--database", server.databasePath])
            #expect(printed.status == 0, "\(printed.errors)")
            let lines = printed.output.split(separator: "\n")
            #expect(lines.count == 2)
            let copy = server.directory.appendingPathComponent("checkpoints.jsonl")
            try Data(printed.output.utf8).write(to: copy)
            let withCopies = try await CommandRun.run(["events", "verify", "--checkpoints", copy.path, "--database", server.databasePath])
            #expect(withCopies.status == 0 && withCopies.output.contains("2 kept copies"), "\(withCopies.output) \(withCopies.errors)")
            // The first checkpoint row deleted: only the kept copy shows it.
            let first = try #require(try await server.app.store.checkpoints().first)
            try await Self.tamper(server, "DELETE FROM audit_checkpoints WHERE id = \(first.id)")
            #expect(try await Self.verify(server).status == 0)
            let found = try await CommandRun.run(["events", "verify", "--checkpoints", copy.path, "--database", server.databasePath])
            #expect(found.status == 1 && found.output.contains("missing from the database"), "\(found.output)")
            // A copy that is not checkpoints is refused as a command-line error.
            let garbage = server.directory.appendingPathComponent("garbage.txt")
            try Data("not json\n".utf8).write(to: garbage)
            let refused = try await CommandRun.run(["events", "verify", "--checkpoints", garbage.path, "--database", server.databasePath])
            #expect(refused.status == 2 && refused.errors.contains("line 1 is not JSON"), "\(refused.errors)")
        }
    }
}
