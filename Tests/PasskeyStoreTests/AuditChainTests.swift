import Foundation
@testable import PasskeyPostgres
import PasskeyStorage
@testable import PasskeySQLite
import PasskeyStoreContract
import PostgresNIO
import Testing

/// The tamper-evident audit trail (docs/contracts/accounts.md): events written by the store's own methods form
/// a chain that `AuditChain.verify` walks; the tests then edit the database directly, as an
/// attacker with database access would, and see the first break found.
@Suite("Audit chain")
struct AuditChainTests {
    /// Runs `sql` on the store's database, outside the store's methods.
    static func tamper(_ store: any StoreFixtures, _ sql: String) async throws {
        if let sqlite = store as? SQLitePasskeyStore {
            try await sqlite.database.write { db in try db.execute(sql, cached: false) }
        } else if let postgres = store as? PostgresPasskeyStore {
            try await postgres.write { db in try await db.query(PostgresQuery(unsafeSQL: sql), logger: PostgresPasskeyStore.quiet) }
        }
    }

    static func walk(_ store: any StoreFixtures) async throws -> ChainBreak? {
        try await store.sealAuditChain()
        return AuditChain.verify(try await store.chainedEvents(after: 0, limit: 10_000), state: try await store.auditChainState())
    }

    /// Ten events of two accounts, through the store's methods; answers their ids.
    static func fill(_ store: any StoreFixtures) async throws -> (ids: [Int64], ada: UserRecord) {
        let ada = Fixture.user(name: "ada"), bob = Fixture.user(name: "bob")
        try await store.registerCredential(Fixture.credential(for: ada), newUser: ada)
        try await store.registerCredential(Fixture.credential(for: bob), newUser: bob)
        for index in 0..<10 {
            let user = index.isMultiple(of: 2) ? ada : bob
            try await store.insertEvent(AuditEvent(
                userHandle: user.handle, type: "sign_in", at: Fixture.date(Int64(index) * 1000), ip: "192.0.2.\(index)", userAgent: "UA/\(index)",
                details: ["name": "Passkey \(index)", "method": "passkey"]))
        }
        try await store.sealAuditChain()
        let ids = try await store.chainedEvents(after: 0, limit: 100).map(\.id)
        #expect(ids.count == 10)
        return (ids, ada)
    }

    @Test("an untouched chain verifies, and its head is the last event", arguments: StoreKind.available)
    func untouched(_ kind: StoreKind) async throws {
        try await kind.withStores(1) { stores in
            let store = stores[0]
            let (ids, _) = try await Self.fill(store)
            #expect(try await Self.walk(store) == nil)
            let state = try await store.auditChainState()
            #expect(state.headID == ids.last && state.startHash == AuditChain.genesis)
            let events = try await store.chainedEvents(after: 0, limit: 100)
            #expect(events.first?.prevHash == AuditChain.genesis)
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.hash == $1.prevHash })
        }
    }

    @Test("an edited event is found", arguments: StoreKind.available)
    func edited(_ kind: StoreKind) async throws {
        try await kind.withStores(1) { stores in
            let (ids, _) = try await Self.fill(stores[0])
            try await Self.tamper(stores[0], "UPDATE events SET ip = '203.0.113.9' WHERE id = \(ids[4])")
            let found = try await Self.walk(stores[0])
            #expect(found?.eventID == ids[4] && found?.reason.contains("edited") == true)
        }
    }

    @Test("an event edited with its hash recomputed breaks the link of the next", arguments: StoreKind.available)
    func rehashed(_ kind: StoreKind) async throws {
        try await kind.withStores(1) { stores in
            let store = stores[0]
            let (ids, _) = try await Self.fill(store)
            let events = try await store.chainedEvents(after: 0, limit: 100)
            let victim = events[3]
            let details = try EventDetails.decode(victim.details)
            let forged = AuditChain.link(
                previous: try #require(victim.prevHash),
                canonical: AuditChain.canonical(
                    userHandle: victim.userHandle, type: "sign_in_refused", atMilliseconds: victim.atMilliseconds, ip: victim.ip,
                    userAgent: victim.userAgent, details: details))
            let hex = forged.map { String(format: "%02x", $0) }.joined()
            let literal = store is SQLitePasskeyStore ? "X'\(hex)'" : "'\\x\(hex)'"
            try await Self.tamper(store, "UPDATE events SET type = 'sign_in_refused', hash = \(literal) WHERE id = \(ids[3])")
            let found = try await Self.walk(store)
            #expect(found?.eventID == ids[4] && found?.reason.contains("does not follow") == true)
        }
    }

    @Test("a deleted event is found at the next one", arguments: StoreKind.available)
    func deleted(_ kind: StoreKind) async throws {
        try await kind.withStores(1) { stores in
            let (ids, _) = try await Self.fill(stores[0])
            try await Self.tamper(stores[0], "DELETE FROM events WHERE id = \(ids[6])")
            #expect(try await Self.walk(stores[0])?.eventID == ids[7])
        }
    }

    @Test("two events swapped are found at the first of them", arguments: StoreKind.available)
    func reordered(_ kind: StoreKind) async throws {
        try await kind.withStores(1) { stores in
            let (ids, _) = try await Self.fill(stores[0])
            let (a, b) = (ids[2], ids[5])
            // Every column but the id moves: the rows trade places in the order.
            let columns = ["user_handle", "type", "at", "ip", "user_agent", "details", "prev_hash", "hash"]
            if stores[0] is SQLitePasskeyStore {
                for sql in [
                    "UPDATE events SET id = -1 WHERE id = \(a)", "UPDATE events SET id = \(a) WHERE id = \(b)", "UPDATE events SET id = \(b) WHERE id = -1",
                ] {
                    try await Self.tamper(stores[0], sql)
                }
            } else {
                try await Self.tamper(stores[0], """
                    UPDATE events AS e SET \(columns.map { "\($0) = o.\($0)" }.joined(separator: ", "))
                    FROM events AS o WHERE (e.id = \(a) AND o.id = \(b)) OR (e.id = \(b) AND o.id = \(a))
                    """)
            }
            #expect(try await Self.walk(stores[0])?.eventID == a)
        }
    }

    @Test("events cut off the end are found against the head", arguments: StoreKind.available)
    func truncated(_ kind: StoreKind) async throws {
        try await kind.withStores(1) { stores in
            let (ids, _) = try await Self.fill(stores[0])
            try await Self.tamper(stores[0], "DELETE FROM events WHERE id >= \(ids[8])")
            let found = try await Self.walk(stores[0])
            #expect(found?.eventID == ids[9] && found?.reason.contains("head") == true)
        }
    }

    @Test("retention and an account's deletion leave a chain that verifies", arguments: StoreKind.available)
    func retentionAndDeletion(_ kind: StoreKind) async throws {
        try await kind.withStores(1) { stores in
            let store = stores[0]
            let (ids, ada) = try await Self.fill(store)
            // Events before the fourth go, as a whole prefix; the chain starts at the third's hash.
            let third = try await store.chainedEvents(after: 0, limit: 3).last
            #expect(try await store.deleteEvents(olderThan: Fixture.date(2500)) == 3)
            #expect(try await store.auditChainState().startHash == third?.hash)
            #expect(try await store.chainedEvents(after: 0, limit: 1).first?.id == ids[3])
            #expect(try await Self.walk(store) == nil)
            // The deletion scrubs names from the account's events, which still verify.
            _ = try await store.deleteAccount(handle: ada.handle, event: nil)
            let kept = try await store.events(userHandle: ada.handle, before: nil, limit: 10)
            #expect(!kept.isEmpty && kept.allSatisfy { $0.details["name"] == nil && $0.details["name_sha256"]?.count == 64 })
            #expect(try await Self.walk(store) == nil)
        }
    }

    @Test("signing in chains its event in the finalize's one statement", arguments: StoreKind.available)
    func signInEvents(_ kind: StoreKind) async throws {
        try await kind.withStores(1) { stores in
            let store = stores[0]
            let ada = Fixture.user(name: "ada")
            let credential = Fixture.credential(for: ada)
            try await store.registerCredential(credential, newUser: ada)
            for count in [UInt32(1), 2, 2] {
                let ceremony = Fixture.ceremony(.authentication)
                _ = try await store.completeAuthentication(
                    spending: ceremony.challenge, until: ceremony.expiresAt, now: Fixture.date(1), credentialID: credential.id, signCount: count, backupState: false,
                    userVerified: true, session: Fixture.session(for: ada), renewing: false,
                    signedIn: AuditEvent(userHandle: ada.handle, type: "sign_in", at: Fixture.date(1), ip: nil, userAgent: nil),
                    regression: AuditEvent(userHandle: ada.handle, type: "counter_regression", at: Fixture.date(1), ip: nil, userAgent: nil))
            }
            try await store.sealAuditChain()
            let events = try await store.chainedEvents(after: 0, limit: 10)
            #expect(events.map(\.type) == ["sign_in", "sign_in", "counter_regression"])
            #expect(try await Self.walk(store) == nil)
            #expect(try await store.auditChainState().headID == events.last?.id)
        }
    }
}
