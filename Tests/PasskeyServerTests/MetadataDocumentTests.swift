import Foundation
import Hummingbird
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyHTTPParsing
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import Synchronization
import Testing

/// Clients known by their metadata documents (docs/contracts/identity.md, "Machine and agent
/// clients"; draft-ietf-oauth-client-id-metadata-document), served over real HTTP on loopback:
/// fetched, checked, kept in the store, asked for consent; and every hostile document refused
/// with nothing stored. On both stores.
@Suite struct MetadataDocumentTests {
    static func on(_ configuration: inout ServerConfiguration) {
        configuration.clientMetadataDocuments = true
        configuration.clientMetadataHosts = OutboundHostPolicy(patterns: [try! .init("127.0.0.1")])
    }

    static func document(_ url: String, _ changes: [String: JSONValue] = [:]) -> String {
        var members: [String: JSONValue] = [
            "client_id": .string(url), "client_name": .string("Agent"), "redirect_uris": .array([.string(TestRelyingParty.redirectURI)]),
            "scope": .string("openid profile groups"), "grant_types": .array([.string("authorization_code"), .string("refresh_token")]),
        ]
        for (name, value) in changes { members[name] = value == .null ? nil : value }
        return String(decoding: JSONValue.object(members).encoded(), as: UTF8.self)
    }

    static func party(_ server: TestServer, _ url: String) -> TestRelyingParty {
        TestRelyingParty(server: server, clientID: url, secret: nil)
    }

    @Test func aDocumentsClientSignsAUserInAfterConsentAndIsFetchedOncePerLifetime() async throws {
        let served = await MachineClientTests.KeySetStandIn.make()
        defer { Task { await served.stop() } }
        served.serve(Self.document(served.url), cacheControl: "max-age=600")
        try await withServer(Self.on) { server, ceremonies, client in
            #expect(try await client.get("/.well-known/openid-configuration").json["client_id_metadata_document_supported"] as? Bool == true)
            let agent = Self.party(server, served.url)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let asked = try await agent.authorize(agent.authorizationParameters(), session: ada.session, cookie: true)
            let handle = try ConsentTests.handle(asked)
            let page = String(decoding: try await agent.raw("GET", "/oauth/consent?authorization=" + handle, headers: ["Cookie": "session=\(ada.session)"]).body, as: UTF8.self)
            // The host shown is the document's.
            #expect(page.contains(">127.0.0.1<") && page.contains("Agent"))
            let code = try #require(TestRelyingParty.answer(try await ConsentTests.decide(agent, handle, "allow", session: ada.session))["code"])
            let tokens = try await agent.redeem(code)
            #expect(tokens.status == 200, "\(String(decoding: tokens.body, as: UTF8.self))")
            #expect(tokens.json["refresh_token"] is String)
            let stored = try #require(try await server.app.store.client(id: served.url))
            #expect(stored.kind == .metadataDocument && stored.isPublic && stored.name == "Agent")
            // Never introspection, exchange or client credentials, not even from an admin.
            await #expect(throws: ClientRegistry.Failure.self) {
                try await ClientRegistry(store: server.app.store).grant(served.url, .init(introspection: true), now: server.clock.now(), by: "test")
            }
            let events = try await server.app.store.events(userHandle: nil, since: nil, after: nil, limit: 100)
            #expect(events.contains { $0.type == "client_added" && $0.details["by"] == "metadata document" })
            // Within the document's lifetime, no second fetch; after it, one more.
            #expect(TestRelyingParty.answer(try await agent.authorize(agent.authorizationParameters(), session: ada.session, cookie: true))["code"] != nil)
            #expect(served.fetches == 1)
            server.clock.advance(601)
            served.serve(Self.document(served.url, ["client_name": .string("Agent 2")]))
            #expect(TestRelyingParty.answer(try await agent.authorize(agent.authorizationParameters(), session: ada.session, cookie: true))["code"] != nil)
            #expect(served.fetches == 2)
            #expect(try await server.app.store.client(id: served.url)?.name == "Agent 2")
        }
    }

    @Test func offByDefaultAURLIsNoClient() async throws {
        let served = await MachineClientTests.KeySetStandIn.make()
        defer { Task { await served.stop() } }
        served.serve(Self.document(served.url))
        try await withServer({ $0.clientMetadataHosts = OutboundHostPolicy(patterns: [try! .init("127.0.0.1")]) }) { server, ceremonies, client in
            #expect(try await client.get("/.well-known/openid-configuration").json["client_id_metadata_document_supported"] as? Bool == false)
            let agent = Self.party(server, served.url)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let refused = try await agent.authorize(agent.authorizationParameters(), session: ada.session, cookie: true)
            #expect(refused.status == 400 && refused.header("Location") == nil)
            #expect(served.fetches == 0)
        }
    }

    /// Each hostile document: shown (never redirected), nothing stored.
    @Test func aHostileDocumentIsRefusedAndStoresNothing() async throws {
        let served = await MachineClientTests.KeySetStandIn.make()
        defer { Task { await served.stop() } }
        let url = served.url
        let cases: [(String, (MachineClientTests.KeySetStandIn) -> Void)] = [
            ("names another client_id", { $0.serve(Self.document("https://other.example/client")) }),
            ("names no client_id", { $0.serve(Self.document(url, ["client_id": .null])) }),
            ("over 5 kB", { $0.serve(Self.document(url, ["client_name": .string(String(repeating: "a", count: 200)), "contacts": .array(Array(repeating: .string(String(repeating: "c", count: 100)), count: 60))])) }),
            ("a redirect to a private address", { s in
                s.serve("{}")
                s.state.withLock { $0.status = .found; $0.location = "http://10.0.0.1/client" }
            }),
            ("a secret it cannot have", { $0.serve(Self.document(url, ["token_endpoint_auth_method": .string("client_secret_basic")])) }),
            ("an http redirect URI off loopback", { $0.serve(Self.document(url, ["redirect_uris": .array([.string("http://agent.example/cb")])])) }),
            ("a javascript: redirect URI", { $0.serve(Self.document(url, ["redirect_uris": .array([.string("javascript:alert(1)")])])) }),
            ("keys inline", { $0.serve(Self.document(url, ["token_endpoint_auth_method": .string("private_key_jwt"), "jwks": .object(["keys": .array([])])])) }),
            ("not JSON", { $0.serve("<html>") }),
            ("an answer that never comes", { s in
                s.serve(Self.document(url))
                s.state.withLock { $0.delay = .seconds(120) }
            }),
        ]
        // The fetch's own limit, the default (which the test server raises), for the answer that
        // never comes.
        let limited: (inout ServerConfiguration) -> Void = { Self.on(&$0); $0.clientDocumentTimeout = ServerConfiguration().clientDocumentTimeout }
        try await withServer(limited) { server, ceremonies, _ in
            let agent = Self.party(server, url)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            for (what, serve) in cases {
                served.state.withLock { $0 = MachineClientTests.KeySetStandIn.State() }
                serve(served)
                let refused = try await agent.authorize(agent.authorizationParameters(), session: ada.session, cookie: true)
                #expect(refused.status == 400 && refused.header("Location") == nil, "\(what): \(refused.status) \(refused.header("Location") ?? "")")
                #expect(String(decoding: refused.body, as: UTF8.self).contains("metadata document"), "\(what)")
                #expect(try await server.app.store.client(id: url) == nil, "\(what)")
            }
        }
    }

    @Test func aLoopbackDocumentNeedsAPatternNamingItsHost() async throws {
        let served = await MachineClientTests.KeySetStandIn.make()
        defer { Task { await served.stop() } }
        served.serve(Self.document(served.url))
        try await withServer({ $0.clientMetadataDocuments = true }) { server, ceremonies, _ in
            let agent = Self.party(server, served.url)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let refused = try await agent.authorize(agent.authorizationParameters(), session: ada.session, cookie: true)
            #expect(refused.status == 400 && refused.header("Location") == nil)
            #expect(served.fetches == 0)
            #expect(try await server.app.store.client(id: served.url) == nil)
        }
    }

    @Test func onlyAURLOfTheRightShapeIsADocumentsID() {
        #expect(ClientMetadataDocuments.isDocumentID("https://agent.example/client.json"))
        #expect(ClientMetadataDocuments.isDocumentID("http://127.0.0.1:8080/c"))
        #expect(!ClientMetadataDocuments.isDocumentID("https://agent.example"))
        #expect(!ClientMetadataDocuments.isDocumentID("https://agent.example/"))
        #expect(!ClientMetadataDocuments.isDocumentID("https://agent.example/a#b"))
        #expect(!ClientMetadataDocuments.isDocumentID("https://u:p@agent.example/c"))
        #expect(!ClientMetadataDocuments.isDocumentID("https://agent.example/a/../b"))
        #expect(!ClientMetadataDocuments.isDocumentID("ftp://agent.example/c"))
        #expect(!ClientMetadataDocuments.isDocumentID("wiki"))
        #expect(ClientMetadataDocuments.lifetime(cacheControl: "max-age=60") == 300)
        #expect(ClientMetadataDocuments.lifetime(cacheControl: "max-age=999999") == 86400)
        #expect(ClientMetadataDocuments.lifetime(cacheControl: nil) == 300)
    }
}
