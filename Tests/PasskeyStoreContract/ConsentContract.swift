import Foundation
import Testing
import PasskeyStorage

/// The store contract: users' consents to third-party clients.
struct ConsentContract {
    static let checks: [StoreCheck] = [
        StoreCheck("a consent round-trips, is replaced per client, and is withdrawn once, with its events") { try await ConsentContract().roundTrip($0) },
        StoreCheck("a consent goes with its client and its account, and is refused for either when gone") { try await ConsentContract().cascades($0) },
        StoreCheck("a consent saved on one instance is seen by the other at once") { try await ConsentContract().twoInstances($0) },
    ]

    static func event(_ user: UserRecord, _ type: String) -> AuditEvent {
        AuditEvent(userHandle: user.handle, type: type, at: Fixture.date(), ip: nil, userAgent: nil, details: ["client": "wiki"])
    }

    func events(_ store: any StoreFixtures, _ type: String) async throws -> Int {
        try await store.events(userHandle: nil, since: nil, after: nil, limit: 50).filter { $0.type == type }.count
    }

    func roundTrip(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let ada = try await GrantContract.prepare(store)
            #expect(try await store.insertClient(ClientContract.client("notes", public: true)))
            #expect(try await store.consent(userHandle: ada.handle, clientID: "wiki") == nil)
            let first = ConsentRecord(userHandle: ada.handle, clientID: "wiki", scopes: ["openid", "profile"], grantedAt: Fixture.date())
            #expect(try await store.saveConsent(first, event: Self.event(ada, "consent_given")))
            #expect(try await store.consent(userHandle: ada.handle, clientID: "wiki") == first)
            let wider = ConsentRecord(userHandle: ada.handle, clientID: "wiki", scopes: ["openid", "profile", "email"], grantedAt: Fixture.date(5000))
            #expect(try await store.saveConsent(wider, event: nil))
            let notes = ConsentRecord(userHandle: ada.handle, clientID: "notes", scopes: ["openid"], grantedAt: Fixture.date(1000))
            #expect(try await store.saveConsent(notes, event: nil))
            #expect(try await store.consents(userHandle: ada.handle) == [notes, wider])
            #expect(try await store.consents(userHandle: Fixture.bytes(32)).isEmpty)
            #expect(try await store.deleteConsent(userHandle: ada.handle, clientID: "wiki", event: Self.event(ada, "consent_withdrawn")))
            #expect(try await store.deleteConsent(userHandle: ada.handle, clientID: "wiki", event: Self.event(ada, "consent_withdrawn")) == false)
            #expect(try await store.consents(userHandle: ada.handle) == [notes])
            #expect(try await events(store, "consent_given") == 1)
            #expect(try await events(store, "consent_withdrawn") == 1)
        }
    }

    func cascades(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let ada = try await GrantContract.prepare(store)
            let consent = ConsentRecord(userHandle: ada.handle, clientID: "wiki", scopes: ["openid"], grantedAt: Fixture.date())
            #expect(try await store.saveConsent(consent, event: nil))
            #expect(try await store.deleteClient(id: "wiki"))
            #expect(try await store.consents(userHandle: ada.handle).isEmpty)
            #expect(try await store.saveConsent(consent, event: Self.event(ada, "consent_given")) == false)
            #expect(try await store.insertClient(ClientContract.client("wiki")))
            #expect(try await store.saveConsent(consent, event: nil))
            _ = try await store.deleteAccount(handle: ada.handle, event: nil)
            #expect(try await store.consents(userHandle: ada.handle).isEmpty)
            #expect(try await store.saveConsent(consent, event: Self.event(ada, "consent_given")) == false)
            #expect(try await events(store, "consent_given") == 0)
        }
    }

    func twoInstances(_ engine: any StoreEngine) async throws {
        try await withTwoStores(engine) { (first: any StoreFixtures, second: any StoreFixtures) async throws in
            let ada = try await GrantContract.prepare(first)
            let consent = ConsentRecord(userHandle: ada.handle, clientID: "wiki", scopes: ["openid"], grantedAt: Fixture.date())
            #expect(try await first.saveConsent(consent, event: nil))
            #expect(try await second.consent(userHandle: ada.handle, clientID: "wiki") == consent)
            #expect(try await second.deleteConsent(userHandle: ada.handle, clientID: "wiki", event: nil))
            #expect(try await first.consent(userHandle: ada.handle, clientID: "wiki") == nil)
        }
    }
}
