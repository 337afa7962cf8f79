import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import Testing

/// Clients that register themselves (docs/contracts/identity.md, "Machine and agent clients"):
/// RFC 7591 registration behind `--dynamic-registration`, with initial access tokens, open
/// registrations waiting for an admin, RFC 7592's read, update and delete, and every refusal
/// changing nothing. Over real HTTP, on both stores.
@Suite struct DynamicRegistrationTests {
    nonisolated(unsafe) static let metadata: [String: Any] = [
        "client_name": "Notes", "redirect_uris": [TestRelyingParty.redirectURI], "grant_types": ["authorization_code", "refresh_token"],
        "scope": "openid profile", "logo_uri": "https://notes.example/logo.png", "contacts": ["ops@notes.example"], "x-unknown": 1,
    ]

    static func initialToken(_ server: TestServer, lifetime: TimeInterval = 3600) async throws -> String {
        try await RegistrationAdministration(store: server.app.store).makeInitialToken(by: "test", lifetime: lifetime, now: server.clock.now()).token
    }

    static func register(_ client: Client, _ metadata: [String: Any] = metadata, token: String? = nil) async throws -> HTTPResult {
        try await client.post("/oauth/register", json: metadata, bearer: token)
    }

    static func events(_ server: TestServer, _ type: String) async throws -> [AuditEvent] {
        try await server.app.store.events(userHandle: nil, since: nil, after: nil, limit: 200).filter { $0.type == type }
    }

    @Test func offByDefaultTheEndpointIsNotThere() async throws {
        try await withServer { server, _, client in
            let refused = try await Self.register(client, token: try await Self.initialToken(server))
            #expect(refused.status == 404)
            #expect(try await client.get("/.well-known/openid-configuration").json["registration_endpoint"] == nil)
            #expect(try await server.app.store.clients().isEmpty)
        }
    }

    @Test func anInitialAccessTokenRegistersOneClientThatCanThenAuthenticate() async throws {
        try await withServer({ $0.dynamicRegistration = .token }) { server, _, client in
            #expect(try await client.get("/.well-known/oauth-authorization-server").json["registration_endpoint"] as? String == server.origin + "/oauth/register")
            // No token: RFC 6750's bare challenge; a made-up one: invalid_token. Nothing stored.
            let bare = try await Self.register(client)
            #expect(bare.status == 401 && bare.header("WWW-Authenticate") == "Bearer")
            let madeUp = try await Self.register(client, token: "pki_" + String(repeating: "A", count: 43))
            #expect(madeUp.status == 401 && madeUp.error == "invalid_token")
            #expect(try await server.app.store.clients().isEmpty)

            let token = try await Self.initialToken(server)
            let made = try await Self.register(client, token: token)
            #expect(made.status == 201, "\(String(decoding: made.body, as: UTF8.self))")
            #expect(made.header("Cache-Control") == "no-store" && made.header("Pragma") == "no-cache")
            let id = try #require(made.json["client_id"] as? String)
            // Never a leading "-", which `clients approve ID` would read as an option.
            #expect(id.hasPrefix("pkc_") && id.count == 26)
            let secret = try #require(made.json["client_secret"] as? String)
            #expect(made.json["client_secret_expires_at"] as? Int == 0)
            #expect(made.json["token_endpoint_auth_method"] as? String == "client_secret_basic")
            #expect(made.json["grant_types"] as? [String] == ["authorization_code", "refresh_token"])
            #expect(made.json["registration_client_uri"] as? String == server.origin + "/oauth/register/" + id)
            #expect((made.json["registration_access_token"] as? String)?.hasPrefix("pkr_") == true)
            #expect(made.json["status"] as? String == "active")
            // Descriptive and unknown members are not kept; a logo is never fetched.
            #expect(made.json["logo_uri"] == nil && made.json["x-unknown"] == nil)
            let stored = try #require(try await server.app.store.client(id: id))
            #expect(stored.kind == .registered && !stored.pending && stored.name == "Notes" && stored.scopes == ["openid", "profile"])
            #expect(try await Self.events(server, "client_registered").first?.details["by"] == "initial access token")
            // The token is spent.
            let again = try await Self.register(client, token: token)
            #expect(again.status == 401 && again.error == "invalid_token")
            #expect(try await server.app.store.clients().count == 1)
            // Its secret authenticates it at the token endpoint: a made-up code is invalid_grant, not invalid_client.
            let notes = TestRelyingParty(server: server, clientID: id, secret: secret)
            #expect(try await notes.redeem("made-up").error == "invalid_grant")
            // The admin view names its kind and status.
            let listed = try await AdminAPITests.send(client, "GET", "/admin/api/clients", token: try await AdminAPITests.token(server))
            let line = try #require((listed.json["clients"] as? [[String: Any]])?.first)
            #expect(line["kind"] as? String == "registered" && line["status"] as? String == "active")
        }
    }

    @Test func anExpiredInitialAccessTokenRegistersNothing() async throws {
        try await withServer({ $0.dynamicRegistration = .token }) { server, _, client in
            let token = try await Self.initialToken(server, lifetime: 60)
            server.clock.advance(60)
            #expect(try await Self.register(client, token: token).error == "invalid_token")
            #expect(try await server.app.store.clients().isEmpty)
        }
    }

    @Test func theRegistrationAccessTokenReadsUpdatesAndDeletesOnlyItsOwnClient() async throws {
        try await withServer({ $0.dynamicRegistration = .open }) { server, _, client in
            let first = try await Self.register(client, token: try await Self.initialToken(server))
            let second = try await Self.register(client, token: try await Self.initialToken(server))
            let id = try #require(first.json["client_id"] as? String)
            let token = try #require(first.json["registration_access_token"] as? String)
            let otherToken = try #require(second.json["registration_access_token"] as? String)
            let path = "/oauth/register/" + id

            let read = try await client.get(path, bearer: token)
            #expect(read.status == 200 && read.json["client_id"] as? String == id && read.json["client_name"] as? String == "Notes")
            #expect(read.json["client_secret"] == nil && read.json["registration_access_token"] == nil)
            // Even under open registration: no token, another client's token, a made-up id.
            #expect(try await client.get(path).status == 401)
            #expect(try await client.get(path, bearer: otherToken).error == "invalid_token")
            #expect(try await client.get("/oauth/register/nobody", bearer: token).error == "invalid_token")

            var update = Self.metadata
            update["client_id"] = id
            update["client_name"] = "Notes 2"
            update["registration_access_token"] = "ignored"
            update.removeValue(forKey: "grant_types")
            let updated = try await client.send("PUT", path, body: try JSONSerialization.data(withJSONObject: update), bearer: token)
            #expect(updated.status == 200, "\(String(decoding: updated.body, as: UTF8.self))")
            #expect(updated.json["client_name"] as? String == "Notes 2")
            // Omitted members are removed (RFC 7592 §2.2): no refresh_token grant any more.
            #expect(try await server.app.store.client(id: id)?.refresh == false)
            #expect(updated.json["status"] as? String == "active")

            // Refusals change nothing.
            var wrongID = update
            wrongID["client_id"] = "someone-else"
            let otherID = try await client.send("PUT", path, body: try JSONSerialization.data(withJSONObject: wrongID), bearer: token)
            #expect(otherID.status == 400 && otherID.error == "invalid_client_metadata")
            var becomePublic = update
            becomePublic["token_endpoint_auth_method"] = "none"
            let method = try await client.send("PUT", path, body: try JSONSerialization.data(withJSONObject: becomePublic), bearer: token)
            #expect(method.error == "invalid_client_metadata")
            var chosenSecret = update
            chosenSecret["client_secret"] = "my-own"
            #expect(try await client.send("PUT", path, body: try JSONSerialization.data(withJSONObject: chosenSecret), bearer: token).error == "invalid_client_metadata")
            #expect(try await server.app.store.client(id: id)?.name == "Notes 2")

            // Under open registration, new redirect URIs wait for an admin again.
            var moved = update
            moved["redirect_uris"] = ["https://elsewhere.example/cb"]
            let movedAnswer = try await client.send("PUT", path, body: try JSONSerialization.data(withJSONObject: moved), bearer: token)
            #expect(movedAnswer.json["status"] as? String == "pending")

            // Another client's token deletes nothing; its own does, with the grants.
            #expect(try await client.send("DELETE", path, bearer: otherToken).status == 401)
            let deleted = try await client.send("DELETE", path, bearer: token)
            #expect(deleted.status == 204 && deleted.body.isEmpty)
            #expect(try await server.app.store.client(id: id) == nil)
            #expect(try await client.get(path, bearer: token).status == 401)
            #expect(try await Self.events(server, "client_removed").first?.details["by"] == "registration management")
        }
    }

    @Test func anOpenRegistrationWaitsForAnAdminsApproval() async throws {
        try await withServer({ $0.dynamicRegistration = .open }) { server, ceremonies, client in
            let made = try await Self.register(client)
            #expect(made.status == 201 && made.json["status"] as? String == "pending")
            let id = try #require(made.json["client_id"] as? String)
            let notes = TestRelyingParty(server: server, clientID: id, secret: made.json["client_secret"] as? String)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let waiting = TestRelyingParty.answer(try await notes.authorize(notes.authorizationParameters(), session: ada.session))
            #expect(waiting["error"] == "access_denied")
            #expect(waiting["error_description"]?.contains("approval") == true)
            #expect(try await notes.redeem("made-up").error == "invalid_client")
            #expect(try await server.app.store.grants(userHandle: try #require(Base64URL.decode(ada.userID))).isEmpty)

            let admin = try await AdminAPITests.token(server)
            #expect(try await AdminAPITests.send(client, "POST", "/admin/api/clients/nobody/approve", token: admin).status == 404)
            let approved = try await AdminAPITests.send(client, "POST", "/admin/api/clients/\(id)/approve", token: admin)
            #expect(approved.status == 200 && approved.json["status"] as? String == "active")
            #expect(try await Self.events(server, "client_approved").count == 1)
            // Approved, its authorizations are no longer refused for waiting.
            let after = try await notes.authorize(notes.authorizationParameters(), session: ada.session)
            #expect(TestRelyingParty.answer(after)["error"] != "access_denied")
        }
    }

    @Test func onlyAnAdminGivesARegisteredClientMoreGrants() async throws {
        try await withServer({ $0.dynamicRegistration = .token }) { server, _, client in
            let made = try await Self.register(client, token: try await Self.initialToken(server))
            let id = try #require(made.json["client_id"] as? String)
            let secret = try #require(made.json["client_secret"] as? String)
            let notes = TestRelyingParty(server: server, clientID: id, secret: secret)
            let basic = "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()
            func introspect() async throws -> HTTPResult {
                try await notes.raw("POST", "/oauth/introspect", headers: ["Authorization": basic], body: TestRelyingParty.form([("token", "x")]))
            }
            #expect(try await introspect().status != 200)
            #expect(try await notes.token([("grant_type", "client_credentials")]).error == "unauthorized_client")

            let admin = try await AdminAPITests.token(server)
            let path = "/admin/api/clients/" + id
            let granted = try await AdminAPITests.send(
                client, "PATCH", path, json: ["introspection": true, "client_credentials": true, "audiences": ["https://api.example/"]], token: admin)
            #expect(granted.status == 200 && granted.json["introspection"] as? Bool == true && granted.json["kind"] as? String == "registered")
            #expect(try await introspect().json["active"] as? Bool == false)
            #expect(try await notes.token([("grant_type", "client_credentials"), ("resource", "https://api.example/")]).status == 200)
            #expect(try await Self.events(server, "client_updated").count == 1)
            // The client's own update (RFC 7592) keeps what the admin gave.
            var update = Self.metadata
            update["client_id"] = id
            update["client_name"] = "Notes, renamed"
            let registrationToken = try #require(made.json["registration_access_token"] as? String)
            let put = try await client.send("PUT", "/oauth/register/" + id, body: try JSONSerialization.data(withJSONObject: update), bearer: registrationToken)
            #expect(put.status == 200)
            let kept = try #require(try await server.app.store.client(id: id))
            #expect(kept.name == "Notes, renamed" && kept.introspection && kept.clientCredentials && kept.audiences == ["https://api.example/"])

            // Refusals change nothing.
            #expect(try await AdminAPITests.send(client, "PATCH", path, json: ["device_flow": true], token: admin).status == 400)
            #expect(try await AdminAPITests.send(client, "PATCH", path, json: ["introspection": "yes"], token: admin).status == 400)
            #expect(try await AdminAPITests.send(client, "PATCH", path, json: ["audiences": ["not a uri"]], token: admin).status == 400)
            #expect(try await AdminAPITests.send(client, "PATCH", "/admin/api/clients/nobody", json: ["introspection": true], token: admin).status == 404)
            #expect(try await client.send("PATCH", path, body: Data(#"{"introspection": false}"#.utf8)).status == 401)
            var publicMetadata = Self.metadata
            publicMetadata["token_endpoint_auth_method"] = "none"
            let app = try await Self.register(client, publicMetadata, token: try await Self.initialToken(server))
            let appPath = "/admin/api/clients/" + (try #require(app.json["client_id"] as? String))
            #expect(try await AdminAPITests.send(client, "PATCH", appPath, json: ["client_credentials": true], token: admin).status == 400)
            #expect(try await server.app.store.client(id: id)?.audiences == ["https://api.example/"])
            #expect(try await Self.events(server, "client_updated").count == 2)
        }
    }

    @Test func theAdminAPIHandsOutInitialAccessTokens() async throws {
        try await withServer({ $0.dynamicRegistration = .token }) { server, _, client in
            let admin = try await AdminAPITests.token(server)
            let made = try await AdminAPITests.send(client, "POST", "/admin/api/registration-tokens", json: ["expires_in": 120], token: admin)
            #expect(made.status == 201)
            let token = try #require(made.json["token"] as? String)
            #expect(token.hasPrefix("pki_") && made.json["expires_at"] is String)
            #expect(try await AdminAPITests.send(client, "POST", "/admin/api/registration-tokens", json: ["expires_in": 5], token: admin).status == 400)
            #expect(try await AdminAPITests.send(client, "POST", "/admin/api/registration-tokens", json: ["uses": 5], token: admin).status == 400)
            #expect(try await client.post("/admin/api/registration-tokens", json: [:]).status == 401)
            #expect(try await Self.register(client, token: token).status == 201)
            #expect(try await Self.events(server, "registration_token_created").count == 1)
        }
    }

    /// Each hostile registration: the spec's error, nothing stored, the token not spent.
    @Test func hostileMetadataIsRefusedAndSpendsNothing() async throws {
        try await withServer({ $0.dynamicRegistration = .token }) { server, _, client in
            let token = try await Self.initialToken(server)
            func with(_ changes: [String: Any], removing: [String] = []) -> [String: Any] {
                var metadata = Self.metadata
                for name in removing { metadata.removeValue(forKey: name) }
                return metadata.merging(changes) { $1 }
            }
            let cases: [(String, [String: Any], String)] = [
                ("http off loopback", with(["redirect_uris": ["http://notes.example/cb"]]), "invalid_redirect_uri"),
                ("javascript:", with(["redirect_uris": ["javascript:alert(1)"], "token_endpoint_auth_method": "none"]), "invalid_redirect_uri"),
                ("a fragment", with(["redirect_uris": ["https://notes.example/cb#x"]]), "invalid_redirect_uri"),
                ("no redirect URI", with([:], removing: ["redirect_uris"]), "invalid_redirect_uri"),
                ("a private-use scheme for a confidential client", with(["redirect_uris": ["com.notes.app:/cb"]]), "invalid_redirect_uri"),
                ("client credentials", with(["grant_types": ["client_credentials"]]), "invalid_client_metadata"),
                ("the device flow", with(["grant_types": ["authorization_code", "urn:ietf:params:oauth:grant-type:device_code"]]), "invalid_client_metadata"),
                ("an implicit response", with(["response_types": ["token"]]), "invalid_client_metadata"),
                ("an API scope", with(["scope": "openid reports:read"]), "invalid_client_metadata"),
                ("an unknown method", with(["token_endpoint_auth_method": "tls_client_auth"]), "invalid_client_metadata"),
                ("keys without private_key_jwt", with(["jwks_uri": "https://notes.example/jwks.json"]), "invalid_client_metadata"),
                ("private_key_jwt without keys", with(["token_endpoint_auth_method": "private_key_jwt"]), "invalid_client_metadata"),
                ("a name with a control character", with(["client_name": "Notes\u{7}"]), "invalid_client_metadata"),
                ("a number for a name", with(["client_name": 7]), "invalid_client_metadata"),
                ("a string for contacts", with(["contacts": "ops@notes.example"]), "invalid_client_metadata"),
                ("a back-channel logout URI", with(["backchannel_logout_uri": "https://10.0.0.1/logout"]), "invalid_client_metadata"),
                ("a chosen client id", with(["client_id": "admin"]), "invalid_client_metadata"),
                ("an unknown ID token algorithm", with(["id_token_signed_response_alg": "none"]), "invalid_client_metadata"),
            ]
            for (what, metadata, error) in cases {
                let refused = try await Self.register(client, metadata, token: token)
                #expect(refused.status == 400, "\(what)")
                #expect(refused.error == error, "\(what): \(String(decoding: refused.body, as: UTF8.self))")
            }
            for body in ["[]", "{\"redirect_uris\": [", "null"] {
                let refused = try await client.post("/oauth/register", bytes: Array(body.utf8), bearer: token)
                #expect(refused.status == 400 && refused.error == "invalid_client_metadata", "\(body)")
            }
            #expect(try await server.app.store.clients().isEmpty)
            #expect(try await Self.events(server, "client_registered").isEmpty)
            // The token was never spent: a good registration still takes it.
            #expect(try await Self.register(client, token: token).status == 201)
        }
    }

    @Test func registrationsAreLimitedPerAddressAcrossInstances() async throws {
        try await withServer({ $0.dynamicRegistration = .open }) { server, _, client in
            // The limit counts in hourly windows: a run that crosses the hour must not refill it.
            server.clock.freeze()
            for _ in 0..<OpenIDProvider.registrationsPerHour {
                #expect(try await Self.register(client).status == 201)
            }
            let limited = try await Self.register(client)
            #expect(limited.status == 429 && limited.error == "rate_limited")
            #expect(limited.header("Retry-After") != nil)
            #expect(try await server.app.store.clients().count == OpenIDProvider.registrationsPerHour)
        }
    }
}
