import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyCrypto
import PasskeyHTTPParsing
import PasskeyJOSE
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// A relying party of the OpenID provider, speaking raw HTTP (no redirect following, no
/// cookie jar): it registers itself with the operator's registry, sends the user's browser to
/// the authorization endpoint (with the session as a Bearer token, as a native app does, or as
/// the cookie), and redeems codes at the token endpoint.
struct TestRelyingParty {
    static let redirectURI = "https://wiki.example/callback"
    let server: TestServer
    let clientID: String
    let secret: String?
    let verifier = Base64URL.encode(SecureRandom.bytes(32))
    var challenge: String { Base64URL.encode(Digest.sha256.hash(Array(verifier.utf8))) }

    static func register(
        _ server: TestServer, id: String = "wiki", _ configure: (inout ClientRegistry.Registration) -> Void = { _ in }
    ) async throws -> TestRelyingParty {
        var registration = ClientRegistry.Registration(id: id)
        registration.name = "The Wiki"
        registration.redirectURIs = [redirectURI]
        configure(&registration)
        let (_, secret) = try await ClientRegistry(store: server.app.store).add(registration, now: server.clock.now())
        return TestRelyingParty(server: server, clientID: id, secret: secret)
    }

    func authorizationParameters(_ extra: [(String, String)] = [], removing: Set<String> = []) -> [(String, String)] {
        let base: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", Self.redirectURI), ("scope", "openid profile groups"),
            ("state", "st-1"), ("nonce", "n-1"), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        return base.filter { !removing.contains($0.0) && !extra.map(\.0).contains($0.0) } + extra
    }

    static func form(_ parameters: [(String, String)]) -> String {
        FormURLEncoded.encode(parameters.map { (name: $0.0, value: $0.1) })
    }

    func raw(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) async throws -> HTTPResult {
        try await RawHTTP.request(port: server.port, method, path, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, form: body)
    }

    func authorize(_ parameters: [(String, String)], session: String?, cookie: Bool = false, post: Bool = false) async throws -> HTTPResult {
        var headers: [String: String] = [:]
        if let session { headers[cookie ? "Cookie" : "Authorization"] = cookie ? "session=\(session)" : "Bearer \(session)" }
        if post { return try await raw("POST", "/oauth/authorize", headers: headers, body: Self.form(parameters)) }
        return try await raw("GET", "/oauth/authorize?" + Self.form(parameters), headers: headers)
    }

    func token(_ parameters: [(String, String)], basic: Bool = true) async throws -> HTTPResult {
        var headers: [String: String] = [:]
        var parameters = parameters
        if let secret, basic {
            headers["Authorization"] = "Basic " + Data("\(clientID):\(secret)".utf8).base64EncodedString()
        } else {
            parameters.append(("client_id", clientID))
            if let secret { parameters.append(("client_secret", secret)) }
        }
        return try await raw("POST", "/oauth/token", headers: headers, body: Self.form(parameters))
    }

    func redeem(_ code: String, verifier: String? = nil) async throws -> HTTPResult {
        try await token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.redirectURI), ("code_verifier", verifier ?? self.verifier)])
    }

    func userinfo(_ accessToken: String) async throws -> HTTPResult {
        try await raw("GET", "/oauth/userinfo", headers: ["Authorization": "Bearer \(accessToken)"])
    }

    /// The query parameters of a redirect's Location.
    static func answer(_ result: HTTPResult) -> [String: String] {
        guard let location = result.header("Location"), let items = URLComponents(string: location)?.queryItems else { return [:] }
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// A signed-in user: registered with the software authenticator; its session token.
    static func signedIn(_ ceremonies: Ceremonies, _ name: String = "ada") async throws -> (session: String, userID: String, credential: TestCredential) {
        let (result, credential, options) = try await ceremonies.register(name)
        #expect(result.status == 200)
        let user = options["user"] as? [String: Any] ?? [:]
        return (try #require(result.json["session"] as? String), try #require(user["id"] as? String), credential)
    }

    /// The code flow for `session` in one step: the token response.
    func tokens(for session: String) async throws -> HTTPResult {
        let code = try #require(Self.answer(try await authorize(authorizationParameters(), session: session))["code"])
        return try await redeem(code)
    }

    /// Verifies a JWT of this provider against its published key set; its claims.
    func verified(_ token: String, typ: String) async throws -> [String: JSONValue] {
        let set = try JWKSet(json: Array(try await Client(base: server.base).get("/oauth/jwks").body))
        let jws = try JWS(compact: token)
        #expect(jws.header["typ"]?.stringValue == typ)
        let key = try #require(jws.keyID.flatMap(set.key(id:)))
        try jws.verify(with: key, policy: JWSPolicy(algorithms: [.rs256, .es256]))
        return try jws.claims()
    }
}

/// The OpenID provider over HTTP (docs/contracts/identity.md): discovery, the code flow with PKCE, the held
/// request and its resumption, tokens and claims, refresh rotation, reuse detection,
/// revocation, and every refusal storing nothing and never redirecting to an unregistered URI.
@Suite struct OpenIDProviderTests {
    @Test func discoveryListsTheEndpointsUnderTheIssuer() async throws {
        try await withServer { server, _, client in
            let result = try await client.get("/.well-known/openid-configuration")
            #expect(result.status == 200)
            #expect(result.header("Cache-Control") == "public, max-age=300")
            let document = result.json
            #expect(document["issuer"] as? String == server.origin)
            #expect(document["authorization_endpoint"] as? String == server.origin + "/oauth/authorize")
            #expect(document["token_endpoint"] as? String == server.origin + "/oauth/token")
            #expect(document["jwks_uri"] as? String == server.origin + "/oauth/jwks")
            #expect(document["code_challenge_methods_supported"] as? [String] == ["S256"])
            #expect(document["response_types_supported"] as? [String] == ["code"])
            #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["RS256", "ES256"])
            #expect(document["authorization_response_iss_parameter_supported"] as? Bool == true)
            // RFC 8414's name for the same document, cached alike.
            let metadata = try await client.get("/.well-known/oauth-authorization-server")
            #expect(metadata.status == 200)
            #expect(metadata.header("Cache-Control") == "public, max-age=300")
            #expect(metadata.body == result.body)
        }
        try await withServer({ $0.issuer = "https://id.example.com" }) { (_: TestServer, _: Ceremonies, client: Client) async throws in
            #expect(try await client.get("/.well-known/openid-configuration").json["token_endpoint"] as? String == "https://id.example.com/oauth/token")
        }
    }

    @Test(arguments: ["RS256", "ES256"])
    func theCodeFlowGivesTokensThatVerifyAgainstTheKeySet(_ algorithm: String) async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server) { $0.idTokenAlgorithm = algorithm }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            _ = try await server.app.store.addToGroup(
                userHandle: try #require(Base64URL.decode(ada.userID)), name: "Staff", nameKey: "staff", event: nil)
            let authorized = try await rp.authorize(rp.authorizationParameters(), session: ada.session, cookie: true)
            #expect(authorized.status == 302)
            #expect(authorized.header("Location")?.hasPrefix(TestRelyingParty.redirectURI + "?") == true)
            let answer = TestRelyingParty.answer(authorized)
            #expect(answer["state"] == "st-1")
            #expect(answer["iss"] == server.origin)
            let code = try #require(answer["code"])
            #expect((Base64URL.decode(code)?.count ?? 0) >= 16)

            let tokens = try await rp.redeem(code)
            #expect(tokens.status == 200, "\(String(decoding: tokens.body, as: UTF8.self))")
            #expect(tokens.header("Cache-Control") == "no-store")
            #expect(tokens.json["token_type"] as? String == "Bearer")
            #expect(tokens.json["expires_in"] as? Int == 600)
            #expect(tokens.json["scope"] as? String == "openid profile groups")
            #expect(tokens.json["refresh_token"] is String)
            let accessToken = try #require(tokens.json["access_token"] as? String)
            let id = try await rp.verified(try #require(tokens.json["id_token"] as? String), typ: "JWT")
            #expect(try JWS(compact: try #require(tokens.json["id_token"] as? String)).algorithmName == algorithm)
            #expect(id["iss"]?.stringValue == server.origin)
            #expect(id["aud"]?.stringValue == "wiki")
            #expect(id["sub"]?.stringValue == ada.userID)
            #expect(id["nonce"]?.stringValue == "n-1")
            #expect(id["amr"] == .array(["hwk", "user", "mfa"].map(JSONValue.string)))
            #expect(id["acr"]?.stringValue == "phr")
            #expect(id["preferred_username"]?.stringValue == "ada")
            #expect(id["groups"] == .array([.string("Staff")]))
            #expect(id["email"] == nil)
            #expect(id["at_hash"]?.stringValue == Base64URL.encode(Array(Digest.sha256.hash(Array(accessToken.utf8)).prefix(16))))
            #expect(id["sid"]?.stringValue?.isEmpty == false)
            let issuedAt = try #require(id["iat"]?.numberValue), expiry = try #require(id["exp"]?.numberValue)
            #expect(expiry - issuedAt == 600)
            #expect(try #require(id["auth_time"]?.numberValue) <= issuedAt)

            let access = try await rp.verified(accessToken, typ: "at+jwt")
            #expect(access["client_id"]?.stringValue == "wiki")
            #expect(access["sub"]?.stringValue == ada.userID)
            #expect(access["scope"]?.stringValue == "openid profile groups")
            #expect(access["jti"]?.stringValue?.isEmpty == false)

            let info = try await rp.userinfo(accessToken)
            #expect(info.status == 200)
            #expect(info.json["sub"] as? String == ada.userID)
            #expect(info.json["preferred_username"] as? String == "ada")
            #expect(info.json["groups"] as? [String] == ["Staff"])
            let events = try await server.app.store.events(userHandle: try #require(Base64URL.decode(ada.userID)), before: nil, limit: 20).map(\.type)
            #expect(events.contains("oauth_code_issued") && events.contains("oauth_token_issued"))
        }
    }

    @Test func withoutASessionTheRequestIsHeldUntilThePageSignsIn() async throws {
        try await withServer { server, ceremonies, client in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let held = try await rp.authorize(rp.authorizationParameters([("login_hint", "ada")]), session: nil)
            #expect(held.status == 302)
            let location = try #require(held.header("Location"))
            #expect(location.hasPrefix(server.origin + "/?authorization="))
            let handle = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "authorization" }?.value)
            let request = try await client.get("/oauth/authorize/request?authorization=\(handle)")
            #expect(request.json["client_name"] as? String == "The Wiki")
            #expect(request.json["login_hint"] as? String == "ada")

            // Still not signed in: back to the page with the same handle.
            let again = try await rp.raw("GET", "/oauth/authorize/resume?authorization=\(handle)")
            #expect(again.header("Location") == location)
            // Signed in: the answer the authorization endpoint would give, once.
            let resumed = try await rp.raw("GET", "/oauth/authorize/resume?authorization=\(handle)", headers: ["Cookie": "session=\(ada.session)"])
            #expect(resumed.status == 302)
            let code = try #require(TestRelyingParty.answer(resumed)["code"])
            #expect(TestRelyingParty.answer(resumed)["state"] == "st-1")
            #expect(try await rp.redeem(code).status == 200)
            let spent = try await rp.raw("GET", "/oauth/authorize/resume?authorization=\(handle)", headers: ["Cookie": "session=\(ada.session)"])
            #expect(spent.status == 400)
            #expect(spent.header("Location") == nil)
            #expect(try await client.get("/oauth/authorize/request?authorization=\(handle)").status == 404)
        }
    }

    @Test func promptLoginAndMaxAgeNeedACeremonyAfterTheRequest() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            for extra in [("prompt", "login"), ("max_age", "0")] {
                server.clock.advance(5)
                let held = try await rp.authorize(rp.authorizationParameters([extra]), session: ada.session)
                let handle = try #require(URLComponents(string: held.header("Location") ?? "")?.queryItems?.first { $0.name == "authorization" }?.value)
                // The session from before the request does not do.
                let stale = try await rp.raw("GET", "/oauth/authorize/resume?authorization=\(handle)", headers: ["Authorization": "Bearer \(ada.session)"])
                #expect(stale.header("Location")?.hasPrefix(server.origin + "/?authorization=") == true)
                // A new ceremony does.
                server.clock.advance(1)
                let signIn = try await ceremonies.signIn("ada", credential: ada.credential, signCount: 0)
                let fresh = try #require(signIn.result.json["session"] as? String)
                let resumed = try await rp.raw("GET", "/oauth/authorize/resume?authorization=\(handle)", headers: ["Authorization": "Bearer \(fresh)"])
                #expect(TestRelyingParty.answer(resumed)["code"] != nil, "\(extra)")
            }
            // prompt=none without a session: login_required, sent back to the client.
            let none = try await rp.authorize(rp.authorizationParameters([("prompt", "none")]), session: nil)
            #expect(TestRelyingParty.answer(none)["error"] == "login_required")
            #expect(TestRelyingParty.answer(none)["iss"] == server.origin)
        }
    }

    @Test func refusalsForAnUnknownClientOrRedirectURIAreShownNeverRedirected() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let cases: [[(String, String)]] = [
                rp.authorizationParameters([("client_id", "nobody")]),
                rp.authorizationParameters([("redirect_uri", "https://evil.example/callback")]),
                rp.authorizationParameters([("redirect_uri", TestRelyingParty.redirectURI + "/")]),
                rp.authorizationParameters(removing: ["redirect_uri"]),
            ]
            for parameters in cases {
                let result = try await rp.authorize(parameters, session: ada.session)
                #expect(result.status == 400)
                #expect(result.header("Location") == nil)
            }
            let page = try await rp.raw("GET", "/oauth/authorize?" + TestRelyingParty.form(cases[1]), headers: ["Accept": "text/html"])
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            // Nothing held, nothing granted.
            let handle = try #require(Base64URL.decode(ada.userID))
            #expect(try await server.app.store.events(userHandle: handle, before: nil, limit: 20).map(\.type).contains("oauth_code_issued") == false)
        }
    }

    @Test func otherRefusalsGoBackToTheClientWithStateAndIss() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let cases: [([(String, String)], String)] = [
                (rp.authorizationParameters(removing: ["code_challenge"]), "invalid_request"),
                (rp.authorizationParameters([("code_challenge_method", "plain")]), "invalid_request"),
                (rp.authorizationParameters([("scope", "profile")]), "invalid_scope"),
                (rp.authorizationParameters([("response_type", "token")]), "unsupported_response_type"),
                (rp.authorizationParameters([("request", "eyJ.x.y")]), "request_not_supported"),
                (rp.authorizationParameters() + [("nonce", "again")], "invalid_request"),
            ]
            for (parameters, error) in cases {
                let result = try await rp.authorize(parameters, session: ada.session)
                #expect(result.status == 302)
                let answer = TestRelyingParty.answer(result)
                #expect(answer["error"] == error, "\(parameters)")
                #expect(answer["state"] == "st-1")
                #expect(answer["iss"] == server.origin)
                #expect(answer["code"] == nil)
            }
        }
    }

    @Test func aCodeIsSpentOnceAndItsReuseRevokesWhatItIssued() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let code = try #require(TestRelyingParty.answer(try await rp.authorize(rp.authorizationParameters(), session: ada.session))["code"])
            // A wrong verifier or redirect URI is refused and does not burn the code.
            #expect(try await rp.redeem(code, verifier: Base64URL.encode(SecureRandom.bytes(32))).error == "invalid_grant")
            let otherURI = try await rp.token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "https://wiki.example/other"), ("code_verifier", rp.verifier)])
            #expect(otherURI.error == "invalid_grant")
            let tokens = try await rp.redeem(code)
            #expect(tokens.status == 200)
            let accessToken = try #require(tokens.json["access_token"] as? String)
            let refreshToken = try #require(tokens.json["refresh_token"] as? String)
            #expect(try await rp.userinfo(accessToken).status == 200)

            let reused = try await rp.redeem(code)
            #expect(reused.status == 400)
            #expect(reused.error == "invalid_grant")
            let revoked = try await rp.userinfo(accessToken)
            #expect(revoked.status == 401)
            #expect(revoked.header("WWW-Authenticate")?.hasPrefix("Bearer error=\"invalid_token\"") == true)
            #expect(try await rp.token([("grant_type", "refresh_token"), ("refresh_token", refreshToken)]).error == "invalid_grant")
            let events = try await server.app.store.events(userHandle: try #require(Base64URL.decode(ada.userID)), before: nil, limit: 20).map(\.type)
            #expect(events.contains("oauth_code_reuse"))

            // An expired code.
            let late = try #require(TestRelyingParty.answer(try await rp.authorize(rp.authorizationParameters(), session: ada.session))["code"])
            server.clock.advance(61)
            #expect(try await rp.redeem(late).error == "invalid_grant")
        }
    }

    @Test func refreshTokensRotateAndAReusedOneRevokesTheFamily() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let code = try #require(TestRelyingParty.answer(try await rp.authorize(rp.authorizationParameters(), session: ada.session))["code"])
            let first = try #require(try await rp.redeem(code).json["refresh_token"] as? String)
            let rotated = try await rp.token([("grant_type", "refresh_token"), ("refresh_token", first), ("scope", "openid profile")])
            #expect(rotated.status == 200)
            #expect(rotated.json["scope"] as? String == "openid profile")
            let second = try #require(rotated.json["refresh_token"] as? String)
            #expect(second != first)
            let access = try #require(rotated.json["access_token"] as? String)
            #expect(try await rp.token([("grant_type", "refresh_token"), ("refresh_token", second), ("scope", "openid email")]).error == "invalid_scope")

            // The retired one presented again: refused, and the whole family with it.
            #expect(try await rp.token([("grant_type", "refresh_token"), ("refresh_token", first)]).error == "invalid_grant")
            #expect(try await rp.token([("grant_type", "refresh_token"), ("refresh_token", second)]).error == "invalid_grant")
            #expect(try await rp.userinfo(access).status == 401)
            let events = try await server.app.store.events(userHandle: try #require(Base64URL.decode(ada.userID)), before: nil, limit: 30).map(\.type)
            #expect(events.contains("oauth_refresh_reuse"))
        }
    }

    @Test func aSessionBoundGrantEndsWithItsSession() async throws {
        try await withServer { server, ceremonies, client in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let tokens = try await rp.tokens(for: ada.session)
            let accessToken = try #require(tokens.json["access_token"] as? String)
            #expect(try await client.send("POST", "/logout", bearer: ada.session).status == 200)
            #expect(try await rp.userinfo(accessToken).status == 401)
            let refresh = try #require(tokens.json["refresh_token"] as? String)
            #expect(try await rp.token([("grant_type", "refresh_token"), ("refresh_token", refresh)]).error == "invalid_grant")
        }
    }

    @Test func clientAuthenticationIsOneMethodAndFailsWith401() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let code = try #require(TestRelyingParty.answer(try await rp.authorize(rp.authorizationParameters(), session: ada.session))["code"])
            let redeem: [(String, String)] = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestRelyingParty.redirectURI), ("code_verifier", rp.verifier)]
            let wrongBasic = try await rp.raw(
                "POST", "/oauth/token", headers: ["Authorization": "Basic " + Data("wiki:wrong".utf8).base64EncodedString()], body: TestRelyingParty.form(redeem))
            #expect(wrongBasic.status == 401)
            #expect(wrongBasic.error == "invalid_client")
            #expect(wrongBasic.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
            let wrongPost = try await rp.raw("POST", "/oauth/token", body: TestRelyingParty.form(redeem + [("client_id", "wiki"), ("client_secret", "wrong")]))
            #expect(wrongPost.status == 401)
            #expect(wrongPost.header("WWW-Authenticate") == nil)
            let both = try await rp.raw(
                "POST", "/oauth/token", headers: ["Authorization": "Basic " + Data("wiki:\(rp.secret ?? "")".utf8).base64EncodedString()],
                body: TestRelyingParty.form(redeem + [("client_secret", rp.secret ?? "")]))
            #expect(both.error == "invalid_request")
            let noSecret = try await rp.raw("POST", "/oauth/token", body: TestRelyingParty.form(redeem + [("client_id", "wiki")]))
            #expect(noSecret.error == "invalid_client")
            // None of that spent the code: client_secret_post works.
            #expect(try await rp.redeem(code).status == 200)
            #expect(try await rp.token([("grant_type", "password")]).error == "unsupported_grant_type")
        }
    }

    @Test func aPublicClientUsesPKCEAloneAndGetsNoRefreshTokenUnlessRegisteredForIt() async throws {
        try await withServer { server, ceremonies, _ in
            let app = try await TestRelyingParty.register(server, id: "app") { $0.isPublic = true }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let code = try #require(TestRelyingParty.answer(try await app.authorize(app.authorizationParameters(), session: ada.session))["code"])
            let tokens = try await app.redeem(code)
            #expect(tokens.status == 200)
            #expect(tokens.json["refresh_token"] == nil)
            #expect(try await app.token([("grant_type", "refresh_token"), ("refresh_token", Base64URL.encode(SecureRandom.bytes(32)))]).error == "unauthorized_client")
        }
    }

    @Test func revocationEndsTheGrantAndUnknownTokensStillAnswer200() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let code = try #require(TestRelyingParty.answer(try await rp.authorize(rp.authorizationParameters(), session: ada.session))["code"])
            let tokens = try await rp.redeem(code)
            let accessToken = try #require(tokens.json["access_token"] as? String)
            let basic = ["Authorization": "Basic " + Data("wiki:\(rp.secret ?? "")".utf8).base64EncodedString()]
            #expect(try await rp.raw("POST", "/oauth/revoke", headers: basic, body: "token=unknown").status == 200)
            #expect(try await rp.userinfo(accessToken).status == 200)
            #expect(try await rp.raw("POST", "/oauth/revoke", headers: basic, body: "token=" + accessToken).status == 200)
            #expect(try await rp.userinfo(accessToken).status == 401)
            let refresh = try #require(tokens.json["refresh_token"] as? String)
            #expect(try await rp.token([("grant_type", "refresh_token"), ("refresh_token", refresh)]).error == "invalid_grant")
        }
    }

    @Test func acrAndAllowedGroupsAreEnforced() async throws {
        try await withServer { server, ceremonies, _ in
            let strict = try await TestRelyingParty.register(server, id: "vault") { $0.requiredACR = "phrh" }
            let staffOnly = try await TestRelyingParty.register(server, id: "intranet") { $0.allowedGroups = ["Staff"] }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            // Ada's only passkey has no trusted attestation: phrh can never be met.
            #expect(TestRelyingParty.answer(try await strict.authorize(strict.authorizationParameters(), session: ada.session))["error"] == "unmet_authentication_requirements")
            #expect(TestRelyingParty.answer(try await staffOnly.authorize(staffOnly.authorizationParameters(), session: ada.session))["error"] == "access_denied")
            _ = try await server.app.store.addToGroup(userHandle: try #require(Base64URL.decode(ada.userID)), name: "staff", nameKey: "staff", event: nil)
            #expect(TestRelyingParty.answer(try await staffOnly.authorize(staffOnly.authorizationParameters(), session: ada.session))["code"] != nil)
        }
    }

    @Test func formPostAnswersWithASelfPostingForm() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let result = try await rp.authorize(rp.authorizationParameters([("response_mode", "form_post"), ("state", "a\"<b>")]), session: ada.session, post: true)
            #expect(result.status == 200)
            #expect(result.header("Location") == nil)
            let page = String(decoding: result.body, as: UTF8.self)
            #expect(page.contains("action=\"\(TestRelyingParty.redirectURI)\""))
            #expect(page.contains("name=\"code\""))
            #expect(page.contains("value=\"a&quot;&lt;b&gt;\""))
            #expect(result.header("Content-Security-Policy")?.contains("form-action https://wiki.example") == true)
            // The policy's script hash is the page's script's.
            let script = try #require(page.firstMatch(of: /<script>([^<]*)<\/script>/)?.1)
            let hash = "sha256-" + Data(Digest.sha256.hash(Array(script.utf8))).base64EncodedString()
            #expect(result.header("Content-Security-Policy")?.contains("script-src '\(hash)'") == true)
        }
    }

    @Test func theTokenEndpointIsRateLimitedPerClientID() async throws {
        try await withServer({ $0.rateLimitPerClient = 2 }) { (server: TestServer, _: Ceremonies, _: Client) async throws in
            let rp = try await TestRelyingParty.register(server)
            for _ in 0..<2 {
                #expect(try await rp.token([("grant_type", "refresh_token"), ("refresh_token", "x")]).status == 400)
            }
            let limited = try await rp.token([("grant_type", "refresh_token"), ("refresh_token", "x")])
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") != nil)
            // Another client has its own budget.
            let other = try await TestRelyingParty.register(server, id: "other")
            #expect(try await other.token([("grant_type", "refresh_token"), ("refresh_token", "x")]).status == 400)
        }
    }

    @Test func removingAClientRevokesEveryTokenItHolds() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let code = try #require(TestRelyingParty.answer(try await rp.authorize(rp.authorizationParameters(), session: ada.session))["code"])
            let tokens = try await rp.redeem(code)
            let accessToken = try #require(tokens.json["access_token"] as? String)
            #expect(try await rp.userinfo(accessToken).status == 200)
            try await ClientRegistry(store: server.app.store).remove("wiki")
            #expect(try await rp.userinfo(accessToken).status == 401)
            #expect(try await rp.token([("grant_type", "refresh_token"), ("refresh_token", try #require(tokens.json["refresh_token"] as? String))]).status == 401)
        }
    }

    @Test func thePasskeyScopeTellsTheClientAboutThePasskeyThatSignedIn() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server) { $0.scopes = ["openid", "passkey"] }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let code = try #require(TestRelyingParty.answer(try await rp.authorize(rp.authorizationParameters([("scope", "openid passkey")]), session: ada.session))["code"])
            let tokens = try await rp.redeem(code)
            let id = try await rp.verified(try #require(tokens.json["id_token"] as? String), typ: "JWT")
            #expect(id["passkey"] == .object([
                "synced": .bool(false), "device_bound": .bool(true), "attested": .bool(false), "provider": .null,
                "aaguid": .string("00000000-0000-0000-0000-000000000000"),
            ]))
            #expect(id["preferred_username"] == nil)
            let info = try await rp.userinfo(try #require(tokens.json["access_token"] as? String))
            #expect((info.json["passkey"] as? [String: Any])?["device_bound"] as? Bool == true)
        }
    }
}
