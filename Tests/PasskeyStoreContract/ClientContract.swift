import Foundation
import Testing
import PasskeyStorage

/// The store contract: the OpenID provider's clients.
struct ClientContract {
    static let checks: [StoreCheck] = [
        StoreCheck("clients round-trip with every field, listed by id") { try await ClientContract().roundTrip($0) },
        StoreCheck("a taken client id is refused and changes nothing") { try await ClientContract().takenID($0) },
        StoreCheck("a secret is replaced for a confidential client only; removal is once") { try await ClientContract().secretAndRemoval($0) },
        StoreCheck("a client added on one instance is seen by the other at once") { try await ClientContract().twoInstances($0) },
        StoreCheck("a client is replaced whole but for its id and creation time, with its event") { try await ClientContract().replaced($0) },
    ]

    static func client(_ id: String, public isPublic: Bool = false) -> ClientRecord {
        ClientRecord(
            id: id, name: isPublic ? nil : "Wiki \(id)", isPublic: isPublic, secretHash: isPublic ? nil : Fixture.bytes(32),
            redirectURIs: ["https://wiki.example/callback", "http://127.0.0.1/cb"], postLogoutRedirectURIs: isPublic ? [] : ["https://wiki.example/"],
            backchannelLogoutURI: isPublic ? nil : "https://wiki.example/logout", scopes: ["openid", "profile", "email", "groups"],
            idTokenAlgorithm: isPublic ? "ES256" : "RS256", introspection: !isPublic, tokenExchange: isPublic,
            allowedGroups: isPublic ? [] : ["staff", "ops \"quoted\""], requiredACR: isPublic ? nil : "phrh", deviceFlow: isPublic,
            requirePAR: !isPublic, refresh: isPublic, messagesForBusiness: !isPublic, clientCredentials: !isPublic,
            audiences: isPublic ? [] : ["https://api.example/", "urn:example:reports"], jwks: isPublic ? nil : #"{"keys":[]}"#,
            jwksURI: isPublic ? "https://app.example/jwks.json" : nil, requireDPoP: isPublic,
            kind: isPublic ? .registered : .byOperator, pending: isPublic, registrationTokenHash: isPublic ? Fixture.bytes(32) : nil,
            authorizationChallenge: isPublic, cibaMode: isPublic ? nil : "ping", notificationEndpoint: isPublic ? nil : "https://app.example/ciba",
            createdAt: Fixture.date())
    }

    func roundTrip(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let wiki = Self.client("wiki"), app = Self.client("app", public: true)
            #expect(try await store.insertClient(wiki) == true)
            #expect(try await store.insertClient(app) == true)
            #expect(try await store.client(id: "wiki") == wiki)
            #expect(try await store.client(id: "app") == app)
            #expect(try await store.client(id: "WIKI") == nil)
            #expect(try await store.clients() == [app, wiki])
            // A confidential client with keys and no secret reads back with no secret.
            var agent = Self.client("agent")
            agent.secretHash = nil
            agent.jwks = nil
            agent.jwksURI = "https://agent.example/jwks.json"
            #expect(try await store.insertClient(agent) == true)
            #expect(try await store.client(id: "agent") == agent)
        }
    }

    func takenID(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let first = Self.client("wiki")
            #expect(try await store.insertClient(first) == true)
            #expect(try await store.insertClient(Self.client("wiki", public: true)) == false)
            #expect(try await store.clients() == [first])
        }
    }

    func secretAndRemoval(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            var wiki = Self.client("wiki")
            let app = Self.client("app", public: true)
            #expect(try await store.insertClient(wiki) == true)
            #expect(try await store.insertClient(app) == true)
            let secret = Fixture.bytes(32)
            #expect(try await store.replaceClientSecret(id: "wiki", secretHash: secret) == true)
            wiki.secretHash = secret
            #expect(try await store.client(id: "wiki") == wiki)
            #expect(try await store.replaceClientSecret(id: "app", secretHash: secret) == false)
            #expect(try await store.client(id: "app") == app)
            #expect(try await store.replaceClientSecret(id: "absent", secretHash: secret) == false)
            #expect(try await store.deleteClient(id: "wiki") == true)
            #expect(try await store.deleteClient(id: "wiki") == false)
            #expect(try await store.clients() == [app])
        }
    }

    func twoInstances(_ engine: any StoreEngine) async throws {
        try await withTwoStores(engine) { (first: any StoreFixtures, second: any StoreFixtures) async throws in
            let wiki = Self.client("wiki")
            #expect(try await first.insertClient(wiki) == true)
            #expect(try await second.client(id: "wiki") == wiki)
            #expect(try await second.deleteClient(id: "wiki") == true)
            #expect(try await first.client(id: "wiki") == nil)
        }
    }

    func replaced(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let wiki = Self.client("wiki")
            let app = Self.client("app", public: true)
            #expect(try await store.insertClient(wiki) == true)
            #expect(try await store.insertClient(app) == true)
            // Every field of another client, under wiki's id and a later creation time.
            var replacement = Self.client("wiki", public: true)
            replacement.createdAt = Fixture.date().addingTimeInterval(3600)
            let event = AuditEvent(userHandle: [], type: "client_replaced", at: Fixture.date(), ip: nil, userAgent: nil, details: ["client_id": "wiki"])
            #expect(try await store.replaceClient(replacement, event: event) == true)
            var expected = replacement
            expected.createdAt = wiki.createdAt
            #expect(try await store.client(id: "wiki") == expected)
            #expect(try await store.client(id: "app") == app)
            #expect(try await store.events(userHandle: nil, since: nil, after: nil, limit: 10).contains { $0.type == "client_replaced" })
            // And back: the flags go both ways.
            #expect(try await store.replaceClient(wiki, event: nil) == true)
            #expect(try await store.client(id: "wiki") == wiki)
            var absent = Self.client("absent")
            absent.name = "nobody"
            #expect(try await store.replaceClient(absent, event: event) == false)
            #expect(try await store.client(id: "absent") == nil)
            #expect(try await store.events(userHandle: nil, since: nil, after: nil, limit: 10).filter { $0.type == "client_replaced" }.count == 1)
        }
    }
}
