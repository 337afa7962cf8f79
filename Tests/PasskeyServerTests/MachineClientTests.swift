import Foundation
import Hummingbird
import PasskeyApp
import NIOCore
@testable import PasskeyAccounts
import PasskeyCrypto
import PasskeyJOSE
import PasskeyHTTPParsing
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Synchronization
import Testing

/// Services and agents as clients (docs/contracts/identity.md, "Machine and agent clients"): tokens of
/// their own (`client_credentials`, RFC 6749 §4.4) for the resources they name (RFC 8707), and
/// `private_key_jwt` (RFC 7523) with a stored or a fetched key set. Over real HTTP, on both stores.
@Suite struct MachineClientTests {
    static let api = "https://api.example/"

    static func reportingClient(_ server: TestServer, id: String = "reports", _ configure: (inout ClientRegistry.Registration) -> Void = { _ in })
        async throws -> TestRelyingParty
    {
        try await TestRelyingParty.register(server, id: id) {
            $0.redirectURIs = []
            $0.clientCredentials = true
            $0.scopes = ["reports:read", "reports:write"]
            $0.audiences = [Self.api, "urn:example:archive"]
            configure(&$0)
        }
    }

    @Test func aClientGetsATokenOfItsOwnForTheResourcesItNames() async throws {
        try await withServer { server, _, client in
            let reports = try await Self.reportingClient(server)
            let plain = try await reports.token([("grant_type", "client_credentials")])
            #expect(plain.status == 200, "\(String(decoding: plain.body, as: UTF8.self))")
            #expect(plain.header("Cache-Control") == "no-store")
            #expect(plain.json["token_type"] as? String == "Bearer")
            #expect(plain.json["scope"] as? String == "reports:read reports:write")
            #expect(plain.json["refresh_token"] == nil)
            #expect(plain.json["id_token"] == nil)
            let claims = try await reports.verified(try #require(plain.json["access_token"] as? String), typ: "at+jwt")
            #expect(claims["sub"]?.stringValue == "reports")
            #expect(claims["client_id"]?.stringValue == "reports")
            #expect(claims["aud"]?.stringValue == server.origin)
            #expect(claims["iss"]?.stringValue == server.origin)
            #expect(claims["auth_time"] == nil && claims["sid"] == nil)

            let narrowed = try await reports.token([("grant_type", "client_credentials"), ("scope", "reports:read"), ("resource", Self.api)])
            #expect(narrowed.status == 200)
            let narrow = try await reports.verified(try #require(narrowed.json["access_token"] as? String), typ: "at+jwt")
            #expect(narrow["aud"]?.stringValue == Self.api)
            #expect(narrow["scope"]?.stringValue == "reports:read")
            let both = try await reports.token([("grant_type", "client_credentials"), ("resource", Self.api), ("resource", "urn:example:archive")])
            let twoAudiences = try await reports.verified(try #require(both.json["access_token"] as? String), typ: "at+jwt")
            #expect(twoAudiences["aud"]?.arrayValue?.compactMap(\.stringValue) == [Self.api, "urn:example:archive"])

            // An audit event per token, naming the client and the grant.
            let events = try await server.app.store.events(userHandle: nil, since: nil, after: nil, limit: 100)
            #expect(events.filter { $0.type == "oauth_token_issued" && $0.details["grant"] == "client_credentials" && $0.details["client"] == "reports" }.count == 3)

            // The token says who holds it at introspection; it names no user at userinfo.
            let backend = try await TestRelyingParty.register(server, id: "backend") { $0.introspection = true; $0.redirectURIs = [] }
            let seen = try await OpenIDBackendTests.introspect(backend, try #require(narrowed.json["access_token"] as? String))
            #expect(seen.json["active"] as? Bool == true)
            #expect(seen.json["sub"] as? String == "reports")
            #expect(seen.json["client_id"] as? String == "reports")
            #expect(seen.json["aud"] as? String == Self.api)
            #expect(seen.json["username"] == nil)
            let twoSeen = try await OpenIDBackendTests.introspect(backend, try #require(both.json["access_token"] as? String))
            #expect(twoSeen.json["aud"] as? [String] == [Self.api, "urn:example:archive"])
            let info = try await reports.userinfo(try #require(plain.json["access_token"] as? String))
            #expect(info.status == 401)
            #expect(info.header("WWW-Authenticate")?.contains("invalid_token") == true)
            // RFC 7009 §2.2.1: there is nothing behind it to revoke.
            let revoked = try await reports.raw(
                "POST", "/oauth/revoke", headers: ["Authorization": Self.basic(reports)],
                body: TestRelyingParty.form([("token", try #require(plain.json["access_token"] as? String))]))
            #expect(revoked.status == 400)
            #expect(revoked.error == "unsupported_token_type")
            // Removing the client ends its tokens at once.
            try await ClientRegistry(store: server.app.store).remove("reports")
            let after = try await OpenIDBackendTests.introspect(backend, try #require(narrowed.json["access_token"] as? String))
            #expect(String(decoding: after.body, as: UTF8.self) == #"{"active":false}"#)
            _ = client
        }
    }

    @Test func whatAClientMayNotAskForIsRefusedAndIssuesNothing() async throws {
        try await withServer { server, _, _ in
            let reports = try await Self.reportingClient(server)
            func refused(_ extra: [(String, String)]) async throws -> String? {
                try await reports.token([("grant_type", "client_credentials")] + extra).error
            }
            #expect(try await refused([("scope", "openid")]) == "invalid_scope")
            #expect(try await refused([("scope", "reports:read profile")]) == "invalid_scope")
            #expect(try await refused([("scope", "reports:delete")]) == "invalid_scope")
            #expect(try await refused([("resource", "https://other.example/")]) == "invalid_target")
            #expect(try await refused([("resource", "not a uri")]) == "invalid_target")
            #expect(try await refused([("resource", "https://api.example/#frag")]) == "invalid_target")
            let wiki = try await TestRelyingParty.register(server)
            #expect(try await wiki.token([("grant_type", "client_credentials")]).error == "unauthorized_client")
            // A resource means nothing to a user's grant.
            #expect(try await wiki.token([("grant_type", "authorization_code"), ("code", "x"), ("resource", Self.api)]).error == "invalid_target")
            let events = try await server.app.store.events(userHandle: nil, since: nil, after: nil, limit: 100)
            #expect(!events.contains { $0.type == "oauth_token_issued" })
        }
    }

    @Test func discoveryListsTheGrantAndTheAssertions() async throws {
        try await withServer { _, _, client in
            let document = try await client.get("/.well-known/oauth-authorization-server").json
            #expect((document["grant_types_supported"] as? [String])?.contains("client_credentials") == true)
            #expect((document["token_endpoint_auth_methods_supported"] as? [String])?.contains("private_key_jwt") == true)
            #expect(document["token_endpoint_auth_signing_alg_values_supported"] as? [String] == ["ES256", "RS256", "PS256", "EdDSA"])
            #expect((document["introspection_endpoint_auth_methods_supported"] as? [String])?.contains("private_key_jwt") == true)
        }
    }

    // MARK: private_key_jwt

    static func basic(_ rp: TestRelyingParty) -> String {
        "Basic " + Data("\(rp.clientID):\(rp.secret ?? "")".utf8).base64EncodedString()
    }

    /// An assertion as RFC 7523 §3 asks, with whatever a test changes.
    static func assertion(
        _ key: PrivateKey, kid: String?, algorithm: JWSAlgorithm = .es256, clientID: String, server: TestServer,
        _ change: (inout [String: JSONValue]) -> Void = { _ in }
    ) throws -> String {
        let now = server.clock.now().timeIntervalSince1970
        var claims: [String: JSONValue] = [
            "iss": .string(clientID), "sub": .string(clientID), "aud": .string(server.origin + "/oauth/token"),
            "exp": .integer(Int64(now) + 60), "iat": .integer(Int64(now)), "jti": .string(Base64URL.encode(SecureRandom.bytes(16))),
        ]
        change(&claims)
        var header: [String: JSONValue] = ["typ": .string("JWT")]
        if let kid { header["kid"] = .string(kid) }
        return try JWS.sign(header: header, claims: claims, key: key, algorithm: algorithm)
    }

    static func keySet(_ keys: [(PrivateKey, String, JWSAlgorithm)]) -> String {
        String(decoding: JSONValue.object(["keys": .array(keys.map { JWK(publicKey: $0.0.publicKey, keyID: $0.1, algorithm: $0.2).json })]).encoded(), as: UTF8.self)
    }

    static func withAssertion(_ rp: TestRelyingParty, _ assertion: String, _ extra: [(String, String)] = [("grant_type", "client_credentials")])
        async throws -> HTTPResult
    {
        try await rp.raw("POST", "/oauth/token", body: TestRelyingParty.form(extra + [
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"), ("client_assertion", assertion),
        ]))
    }

    @Test func anAssertionSignedWithTheClientsKeyAuthenticatesItOnce() async throws {
        try await withServer { server, _, _ in
            let ec = try PrivateKey.generateEC(.p256), rsa = try PrivateKey.generateRSA(bits: 2048), ed = try PrivateKey.generateEdwards(.ed25519)
            let agent = try await Self.reportingClient(server, id: "agent") {
                $0.jwks = Self.keySet([(ec, "ec-1", .es256), (rsa, "rsa-1", .ps256), (ed, "ed-1", .edDSA)])
            }
            #expect(agent.secret == nil)
            let good = try Self.assertion(ec, kid: "ec-1", clientID: "agent", server: server)
            let answered = try await Self.withAssertion(agent, good)
            #expect(answered.status == 200, "\(String(decoding: answered.body, as: UTF8.self))")
            #expect(try await agent.verified(try #require(answered.json["access_token"] as? String), typ: "at+jwt")["sub"]?.stringValue == "agent")
            // Each algorithm the discovery document lists, by its own key; the issuer as aud too.
            #expect(try await Self.withAssertion(agent, try Self.assertion(rsa, kid: "rsa-1", algorithm: .ps256, clientID: "agent", server: server)).status == 200)
            #expect(try await Self.withAssertion(agent, try Self.assertion(ed, kid: nil, algorithm: .edDSA, clientID: "agent", server: server) {
                $0["aud"] = .string(server.origin)
            }).status == 200)
            // The same assertion again: its jti is spent.
            let replayed = try await Self.withAssertion(agent, good)
            #expect(replayed.status == 401)
            #expect(replayed.error == "invalid_client")
        }
    }

    @Test(arguments: ["wrong aud", "expired", "too long", "iss is not sub", "no jti", "another key", "unknown kid", "future iat", "future nbf", "HS256"])
    func aBadAssertionIsInvalidClientAndSpendsNothing(_ flaw: String) async throws {
        try await withServer { server, _, _ in
            let key = try PrivateKey.generateEC(.p256), other = try PrivateKey.generateEC(.p256)
            let agent = try await Self.reportingClient(server, id: "agent") { $0.jwks = Self.keySet([(key, "k1", .es256)]) }
            let now = Int64(server.clock.now().timeIntervalSince1970)
            let jti = Base64URL.encode(SecureRandom.bytes(16))
            let bad: String
            switch flaw {
            case "wrong aud": bad = try Self.assertion(key, kid: "k1", clientID: "agent", server: server) { $0["aud"] = .string("https://elsewhere.example/oauth/token"); $0["jti"] = .string(jti) }
            case "expired": bad = try Self.assertion(key, kid: "k1", clientID: "agent", server: server) { $0["exp"] = .integer(now - 60); $0["jti"] = .string(jti) }
            case "too long": bad = try Self.assertion(key, kid: "k1", clientID: "agent", server: server) { $0["exp"] = .integer(now + 3600); $0["jti"] = .string(jti) }
            case "iss is not sub": bad = try Self.assertion(key, kid: "k1", clientID: "agent", server: server) { $0["sub"] = .string("someone"); $0["jti"] = .string(jti) }
            case "no jti": bad = try Self.assertion(key, kid: "k1", clientID: "agent", server: server) { $0["jti"] = nil }
            case "another key": bad = try Self.assertion(other, kid: "k1", clientID: "agent", server: server) { $0["jti"] = .string(jti) }
            case "unknown kid": bad = try Self.assertion(key, kid: "k9", clientID: "agent", server: server) { $0["jti"] = .string(jti) }
            case "future nbf": bad = try Self.assertion(key, kid: "k1", clientID: "agent", server: server) { $0["nbf"] = .integer(now + 120); $0["jti"] = .string(jti) }
            case "future iat": bad = try Self.assertion(key, kid: "k1", clientID: "agent", server: server) { $0["iat"] = .integer(now + 120); $0["jti"] = .string(jti) }
            default:
                let header = Base64URL.encode(Array(#"{"alg":"HS256","kid":"k1"}"#.utf8))
                let claims = Base64URL.encode(Array(#"{"iss":"agent","sub":"agent","aud":"x","exp":\#(now + 60),"jti":"\#(jti)"}"#.utf8))
                bad = header + "." + claims + "." + Base64URL.encode(SecureRandom.bytes(32))
            }
            let refused = try await Self.withAssertion(agent, bad)
            #expect(refused.status == 401)
            #expect(refused.error == "invalid_client")
            // Nothing was spent: a good assertion with the same jti still works.
            let good = try Self.assertion(key, kid: "k1", clientID: "agent", server: server) { $0["jti"] = .string(jti) }
            #expect(try await Self.withAssertion(agent, good).status == 200)
        }
    }

    @Test func aClientWithKeysHasNoSecretAndOneMethodPerRequest() async throws {
        try await withServer { server, _, _ in
            let key = try PrivateKey.generateEC(.p256)
            let agent = try await Self.reportingClient(server, id: "agent") { $0.jwks = Self.keySet([(key, "k1", .es256)]) }
            let secretless = try await agent.raw(
                "POST", "/oauth/token", headers: ["Authorization": "Basic " + Data("agent:guess".utf8).base64EncodedString()],
                body: TestRelyingParty.form([("grant_type", "client_credentials")]))
            #expect(secretless.status == 401)
            let twice = try await agent.raw(
                "POST", "/oauth/token", headers: ["Authorization": "Basic " + Data("agent:guess".utf8).base64EncodedString()],
                body: TestRelyingParty.form([
                    ("grant_type", "client_credentials"), ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                    ("client_assertion", try Self.assertion(key, kid: "k1", clientID: "agent", server: server)),
                ]))
            #expect(twice.error == "invalid_request")
            let wrongType = try await agent.raw("POST", "/oauth/token", body: TestRelyingParty.form([
                ("grant_type", "client_credentials"), ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:saml2-bearer"),
                ("client_assertion", try Self.assertion(key, kid: "k1", clientID: "agent", server: server)),
            ]))
            #expect(wrongType.error == "invalid_request")
            // A client with a secret cannot authenticate by an assertion it signs with nothing registered.
            let wiki = try await Self.reportingClient(server, id: "wiki")
            #expect(try await Self.withAssertion(wiki, try Self.assertion(key, kid: "k1", clientID: "wiki", server: server)).status == 401)
            #expect(throws: ClientRegistry.Failure.self) { try ClientRegistry.check({ var r = ClientRegistry.Registration(id: "x"); r.isPublic = true; r.clientCredentials = true; return r }()) }
            await #expect(throws: ClientRegistry.Failure.self) { try await ClientRegistry(store: server.app.store).rotateSecret("agent") }
            let listed = ClientRegistry.json(try #require(try await server.app.store.client(id: "agent")), secret: nil)
            #expect(listed.objectValue?["token_endpoint_auth_method"]?.stringValue == "private_key_jwt")
        }
    }

    // MARK: A fetched key set

    /// A client's key set served over real HTTP on 127.0.0.1: its body, Cache-Control, and a
    /// delay; it counts its fetches.
    final class KeySetStandIn: Sendable {
        struct State {
            var body: [UInt8] = Array(#"{"keys":[]}"#.utf8)
            var cacheControl = "max-age=3600"
            var delay: Duration = .zero
            var fetches = 0
            /// Another status (a redirect, with `location`) instead of the body.
            var status: HTTPResponse.Status = .ok
            var location: String?
        }

        let state = Mutex(State())
        private let server: LocalServer
        var url: String { "http://127.0.0.1:\(server.port)/jwks" }

        init(server: LocalServer) {
            self.server = server
        }

        static func make() async -> KeySetStandIn {
            let box = Box()
            let router = Router()
            router.get("/jwks") { _, _ -> Response in
                let empty: ([UInt8], String, Duration, HTTPResponse.Status, String?) = ([], "", .zero, .ok, nil)
                let (body, cacheControl, delay, status, location) = box.standIn?.state.withLock { s in
                    s.fetches += 1
                    return (s.body, s.cacheControl, s.delay, s.status, s.location)
                } ?? empty
                if delay > .zero { try await Task.sleep(for: delay) }
                var headers = HTTPFields()
                headers[.contentType] = "application/json"
                headers[.cacheControl] = cacheControl
                if let location { headers[.location] = location }
                return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
            let standIn = KeySetStandIn(server: await LocalServer.start(router: router))
            box.standIn = standIn
            return standIn
        }

        final class Box: @unchecked Sendable {
            var standIn: KeySetStandIn?
        }

        func stop() async { await server.stop() }
        var fetches: Int { state.withLock { $0.fetches } }
        func serve(_ body: String, cacheControl: String = "max-age=3600") { state.withLock { $0.body = Array(body.utf8); $0.cacheControl = cacheControl } }
    }

    @Test func aFetchedKeySetIsKeptAndFetchedAgainOnceForANewKid() async throws {
        let keys = await KeySetStandIn.make()
        defer { Task { await keys.stop() } }
        try await withServer({ $0.clientMetadataHosts = OutboundHostPolicy(patterns: [try! .init("127.0.0.1")]) }) { server, _, _ in
            let first = try PrivateKey.generateEC(.p256), second = try PrivateKey.generateEC(.p256)
            keys.serve(Self.keySet([(first, "k1", .es256)]))
            let agent = try await Self.reportingClient(server, id: "agent") { $0.jwksURI = keys.url }
            #expect(try await Self.withAssertion(agent, try Self.assertion(first, kid: "k1", clientID: "agent", server: server)).status == 200)
            #expect(try await Self.withAssertion(agent, try Self.assertion(first, kid: "k1", clientID: "agent", server: server)).status == 200)
            #expect(keys.fetches == 1)
            // The client rotates: a kid the kept set lacks is fetched once more.
            server.clock.advance(61)
            keys.serve(Self.keySet([(first, "k1", .es256), (second, "k2", .es256)]))
            #expect(try await Self.withAssertion(agent, try Self.assertion(second, kid: "k2", clientID: "agent", server: server)).status == 200)
            #expect(keys.fetches == 2)
            // Made-up kids do not make the server fetch again within the minute.
            for _ in 0..<3 {
                #expect(try await Self.withAssertion(agent, try Self.assertion(second, kid: "k-\(UUID())", clientID: "agent", server: server)).status == 401)
            }
            #expect(keys.fetches == 2)
        }
    }

    @Test(arguments: ["not named", "too big", "never answers"])
    func aKeySetThatCannotBeTrustedOrFetchedFailsTheClientOnly(_ flaw: String) async throws {
        let keys = await KeySetStandIn.make()
        defer { Task { await keys.stop() } }
        let key = try PrivateKey.generateEC(.p256)
        keys.serve(Self.keySet([(key, "k1", .es256)]))
        if flaw == "too big" {
            let filler = String(repeating: "x", count: 70_000)
            keys.serve(#"{"keys":[],"filler":"\#(filler)"}"#)
        }
        // Far longer than the fetch's 3 s limit (the default, which the test server raises), so
        // that a refusal before it is the limit's doing even on a machine slowed by other work.
        if flaw == "never answers" { keys.state.withLock { $0.delay = .seconds(120) } }
        let patterns = flaw == "not named" ? [] : [try OutboundHostPolicy.Pattern("127.0.0.1")]
        try await withServer({
            $0.clientMetadataHosts = OutboundHostPolicy(patterns: patterns)
            $0.clientDocumentTimeout = ServerConfiguration().clientDocumentTimeout
        }) { server, _, client in
            let agent = try await Self.reportingClient(server, id: "agent") { $0.jwksURI = keys.url }
            let started = ContinuousClock.now
            let refused = try await Self.withAssertion(agent, try Self.assertion(key, kid: "k1", clientID: "agent", server: server))
            #expect(refused.status == 401)
            #expect(refused.error == "invalid_client")
            if flaw == "never answers" { #expect(ContinuousClock.now - started < .seconds(60)) }
            #expect(keys.fetches == (flaw == "not named" ? 0 : 1))
            // The server goes on answering everyone else.
            #expect(try await client.get("/.well-known/openid-configuration").status == 200)
        }
    }
}
