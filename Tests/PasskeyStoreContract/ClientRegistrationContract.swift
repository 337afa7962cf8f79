import Foundation
import Testing
import PasskeyStorage

/// The store contract: clients that register themselves, initial access tokens, approval.
struct ClientRegistrationContract {
    static let checks: [StoreCheck] = [
        StoreCheck("a registration spends its initial access token once, with its event") { try await ClientRegistrationContract().spendsToken($0) },
        StoreCheck("an expired or unknown initial access token registers nothing") { try await ClientRegistrationContract().deadToken($0) },
        StoreCheck("a taken client id leaves the initial access token unspent") { try await ClientRegistrationContract().takenID($0) },
        StoreCheck("an open registration waits until approved, once") { try await ClientRegistrationContract().approval($0) },
        StoreCheck("an initial access token made on one instance is spent once across two") { try await ClientRegistrationContract().twoInstances($0) },
    ]

    static func registered(_ id: String, pending: Bool = false) -> ClientRecord {
        var client = ClientContract.client(id, public: true)
        client.pending = pending
        return client
    }

    static func token(_ hash: [UInt8], expiresIn seconds: TimeInterval = 3600) -> RegistrationTokenRecord {
        RegistrationTokenRecord(tokenHash: hash, createdBy: "alice", createdAt: Fixture.date(), expiresAt: Fixture.date().addingTimeInterval(seconds))
    }

    static func event(_ type: String) -> AuditEvent {
        AuditEvent(userHandle: [], type: type, at: Fixture.date(), ip: "192.0.2.1", userAgent: nil, details: ["client_id": "x"])
    }

    func events(_ store: any StoreFixtures, _ type: String) async throws -> Int {
        try await store.events(userHandle: nil, since: nil, after: nil, limit: 50).filter { $0.type == type }.count
    }

    func spendsToken(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let hash = Fixture.bytes(32)
            try await store.insertRegistrationToken(Self.token(hash), event: Self.event("registration_token_created"))
            #expect(try await events(store, "registration_token_created") == 1)
            let first = Self.registered("first")
            #expect(try await store.registerClient(first, spending: hash, now: Fixture.date(1000), event: Self.event("client_registered")))
            #expect(try await store.client(id: "first") == first)
            #expect(try await store.registerClient(Self.registered("second"), spending: hash, now: Fixture.date(2000), event: Self.event("client_registered")) == false)
            #expect(try await store.client(id: "second") == nil)
            #expect(try await events(store, "client_registered") == 1)
            // Without a token (an open registration), nothing is spent.
            #expect(try await store.registerClient(Self.registered("open", pending: true), spending: nil, now: Fixture.date(), event: nil))
            #expect(try await store.client(id: "open")?.pending == true)
        }
    }

    func deadToken(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let hash = Fixture.bytes(32)
            try await store.insertRegistrationToken(Self.token(hash, expiresIn: 60), event: nil)
            // Expired at exactly its expiry.
            #expect(try await store.registerClient(Self.registered("late"), spending: hash, now: Fixture.date(60_000), event: Self.event("client_registered")) == false)
            #expect(try await store.registerClient(Self.registered("made-up"), spending: Fixture.bytes(32), now: Fixture.date(), event: nil) == false)
            #expect(try await store.clients().isEmpty)
            #expect(try await events(store, "client_registered") == 0)
            // A later token's insertion sweeps the expired one: spending it stays refused.
            var later = Self.token(Fixture.bytes(32))
            later.createdAt = Fixture.date(120_000)
            try await store.insertRegistrationToken(later, event: nil)
            #expect(try await store.registerClient(Self.registered("late"), spending: hash, now: Fixture.date(1000), event: nil) == false)
        }
    }

    func takenID(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let hash = Fixture.bytes(32)
            try await store.insertRegistrationToken(Self.token(hash), event: nil)
            let taken = ClientContract.client("taken")
            #expect(try await store.insertClient(taken))
            #expect(try await store.registerClient(Self.registered("taken"), spending: hash, now: Fixture.date(), event: Self.event("client_registered")) == false)
            #expect(try await store.client(id: "taken") == taken)
            #expect(try await events(store, "client_registered") == 0)
            // The token was not spent by the refused registration.
            #expect(try await store.registerClient(Self.registered("fresh"), spending: hash, now: Fixture.date(), event: nil))
        }
    }

    func approval(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let waiting = Self.registered("waiting", pending: true)
            #expect(try await store.registerClient(waiting, spending: nil, now: Fixture.date(), event: nil))
            #expect(try await store.approveClient(id: "waiting", event: Self.event("client_approved")))
            var approved = waiting
            approved.pending = false
            #expect(try await store.client(id: "waiting") == approved)
            #expect(try await store.approveClient(id: "waiting", event: Self.event("client_approved")) == false)
            #expect(try await store.approveClient(id: "absent", event: Self.event("client_approved")) == false)
            #expect(try await events(store, "client_approved") == 1)
        }
    }

    func twoInstances(_ engine: any StoreEngine) async throws {
        try await withTwoStores(engine) { (first: any StoreFixtures, second: any StoreFixtures) async throws in
            let hash = Fixture.bytes(32)
            try await first.insertRegistrationToken(Self.token(hash), event: nil)
            async let a = first.registerClient(Self.registered("a"), spending: hash, now: Fixture.date(), event: nil)
            async let b = second.registerClient(Self.registered("b"), spending: hash, now: Fixture.date(), event: nil)
            let outcomes = try await [a, b]
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(try await first.clients().count == 1)
        }
    }
}
