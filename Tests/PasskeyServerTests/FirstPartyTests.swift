import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyAssociation
import PasskeyCrypto
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// The first-party authorization challenge (docs/contracts/identity.md, "Native apps without a
/// browser"): `POST /oauth/authorize-challenge` answers `insufficient_authorization` with an
/// `auth_session` and passkey request options, then the assertion gets an authorization code,
/// redeemed with PKCE and no redirect URI.
@Suite struct FirstPartyTests {
    /// A native app: public, `--authorization-challenge`.
    static func app(
        _ server: TestServer, id: String = "notes", _ configure: (inout ClientRegistry.Registration) -> Void = { _ in }
    ) async throws -> TestRelyingParty {
        try await TestRelyingParty.register(server, id: id) { registration in
            registration.isPublic = true
            registration.authorizationChallenge = true
            configure(&registration)
        }
    }

    static func call(_ app: TestRelyingParty, _ parameters: [(String, String)]) async throws -> HTTPResult {
        try await app.raw("POST", "/oauth/authorize-challenge", body: TestRelyingParty.form(parameters))
    }

    /// The first call: its answer, the `auth_session` and the challenge to sign.
    static func start(_ app: TestRelyingParty, loginHint: String? = "ada", scope: String = "openid profile") async throws
        -> (answer: HTTPResult, authSession: String, challenge: [UInt8])
    {
        var parameters = [("client_id", app.clientID), ("scope", scope), ("code_challenge", app.challenge)]
        if let loginHint { parameters.append(("login_hint", loginHint)) }
        let answer = try await call(app, parameters)
        let options = answer.json["passkey"] as? [String: Any] ?? [:]
        return (answer, answer.json["auth_session"] as? String ?? "", Base64URL.decode(options["challenge"] as? String ?? "") ?? [])
    }

    /// The AuthenticationResponseJSON for `challenge`, as the app passes it in the form.
    static func assertion(
        _ credential: TestCredential, challenge: [UInt8], origin: String, signCount: UInt32, adjust: (inout AssertionBuilder) -> Void = { _ in }
    ) throws -> String {
        var builder = AssertionBuilder(credential: credential, rpID: "localhost", origin: origin, challenge: challenge, signCount: signCount)
        adjust(&builder)
        return String(decoding: try builder.json(), as: UTF8.self)
    }

    static func finish(_ app: TestRelyingParty, _ authSession: String, _ response: String) async throws -> HTTPResult {
        try await call(app, [("client_id", app.clientID), ("auth_session", authSession), ("passkey_response", response)])
    }

    /// A code redeemed at the token endpoint with the verifier and no redirect URI.
    static func redeem(_ app: TestRelyingParty, _ code: String, extra: [(String, String)] = []) async throws -> HTTPResult {
        try await app.token([("grant_type", "authorization_code"), ("code", code), ("code_verifier", app.verifier)] + extra)
    }

    @Test func aNativeAppSignsInWithAPasskeyAndRedeemsTheCodeWithoutARedirectURI() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let app = try await Self.app(server)
            let discovery = try await client.get("/.well-known/openid-configuration")
            #expect(discovery.json["authorization_challenge_endpoint"] as? String == server.origin + "/oauth/authorize-challenge")

            let (first, authSession, challenge) = try await Self.start(app)
            #expect(first.status == 400)
            #expect(first.error == "insufficient_authorization")
            let options = try #require(first.json["passkey"] as? [String: Any])
            #expect(options["rpId"] as? String == "localhost")
            #expect((options["allowCredentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [Base64URL.encode(ada.credential.id)])
            #expect(authSession.count == 43 && challenge.count >= 16)

            let sessionsBefore = try await server.app.store.sessions(userHandle: try #require(Base64URL.decode(ada.userID)), now: server.clock.now()).count
            let done = try await Self.finish(app, authSession, try Self.assertion(ada.credential, challenge: challenge, origin: server.origin, signCount: 1))
            #expect(done.status == 200, "\(String(decoding: done.body, as: UTF8.self))")
            let code = try #require(done.json["authorization_code"] as? String)
            // A redirect_uri the request never had is refused, and the code is still good.
            let withRedirect = try await Self.redeem(app, code, extra: [("redirect_uri", TestRelyingParty.redirectURI)])
            #expect(withRedirect.status == 400 && withRedirect.error == "invalid_grant")
            #expect(try await Self.redeem(app, code, extra: [("code_verifier", "wrong")]).status == 400)
            let tokens = try await Self.redeem(app, code)
            #expect(tokens.status == 200, "\(String(decoding: tokens.body, as: UTF8.self))")
            let idToken = try await app.verified(try #require(tokens.json["id_token"] as? String), typ: "JWT")
            #expect(idToken["sub"]?.stringValue == ada.userID)
            #expect(idToken["amr"]?.arrayValue?.compactMap(\.stringValue) == ["hwk", "user", "mfa"])
            #expect(idToken["acr"]?.stringValue == "phr")
            #expect(try await app.userinfo(try #require(tokens.json["access_token"] as? String)).status == 200)
            // The sign-in opened a session of its own (the grant's sid), which the account sees.
            #expect(try await server.app.store.sessions(userHandle: try #require(Base64URL.decode(ada.userID)), now: server.clock.now()).count == sessionsBefore + 1)
            // The auth_session was spent.
            let again = try await Self.finish(app, authSession, try Self.assertion(ada.credential, challenge: challenge, origin: server.origin, signCount: 2))
            #expect(again.status == 400 && again.error == "invalid_session")
        }
    }

    /// An Android app's assertion carries its `android:apk-key-hash:` origin; an iOS app's,
    /// its associated domain's web origin (the test above).
    @Test func anAndroidAppsAssertionWithItsApkKeyHashOriginGetsACode() async throws {
        let android = try AndroidApp(argument: "com.example.notes:\(exampleFingerprint)")
        try await withServer({ $0.androidApps = [android] }) { server, ceremonies, _ in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let app = try await Self.app(server)
            let (_, authSession, challenge) = try await Self.start(app)
            let done = try await Self.finish(app, authSession, try Self.assertion(ada.credential, challenge: challenge, origin: android.origin, signCount: 1))
            #expect(done.status == 200, "\(String(decoding: done.body, as: UTF8.self))")
            #expect(try await Self.redeem(app, try #require(done.json["authorization_code"] as? String)).status == 200)
            // Another app's origin is the ceremony's origin_mismatch.
            let (_, second, secondChallenge) = try await Self.start(app)
            let impostor = try await Self.finish(
                app, second, try Self.assertion(ada.credential, challenge: secondChallenge, origin: "android:apk-key-hash:AAAA", signCount: 2))
            #expect(impostor.status == 400 && impostor.error == "invalid_request")
            #expect((impostor.json["error_description"] as? String)?.hasPrefix("origin_mismatch") == true)
        }
    }

    @Test func hostileRequestsGetTheirErrorsAndChangeNothing() async throws {
        try await withServer { server, ceremonies, _ in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let app = try await Self.app(server)
            let web = try await TestRelyingParty.register(server, id: "web") { $0.isPublic = true }
            let unknown = try await Self.call(app, [("client_id", "nobody"), ("scope", "openid"), ("code_challenge", app.challenge)])
            #expect(unknown.status == 401 && unknown.error == "invalid_client")
            let notRegistered = try await Self.call(web, [("client_id", "web"), ("scope", "openid"), ("code_challenge", web.challenge)])
            #expect(notRegistered.status == 400 && notRegistered.error == "unauthorized_client")
            let cases: [([(String, String)], String)] = [
                ([("client_id", app.clientID), ("scope", "openid")], "invalid_request"),
                ([("client_id", app.clientID), ("scope", "openid"), ("code_challenge", app.challenge), ("code_challenge_method", "plain")], "invalid_request"),
                ([("client_id", app.clientID), ("scope", "profile"), ("code_challenge", app.challenge)], "invalid_scope"),
                ([("client_id", app.clientID), ("scope", "openid"), ("code_challenge", app.challenge), ("scope", "openid")], "invalid_request"),
                ([("client_id", app.clientID), ("scope", "openid"), ("code_challenge", app.challenge), ("passkey_response", "{}")], "invalid_request"),
                ([("client_id", app.clientID), ("auth_session", "made-up"), ("passkey_response", "{}")], "invalid_session"),
                ([("client_id", app.clientID), ("scope", "openid"), ("code_challenge", app.challenge), ("login_hint", String(repeating: "a", count: 300))],
                 "invalid_request"),
            ]
            for (parameters, error) in cases {
                let answer = try await Self.call(app, parameters)
                #expect(answer.status == 400 && answer.error == error, "\(parameters.map(\.0)) → \(answer.status) \(answer.error ?? "")")
            }

            // An assertion replayed into a second auth_session: refused, and the first
            // auth_session still takes it (nothing was spent).
            let (_, firstSession, firstChallenge) = try await Self.start(app)
            let (_, secondSession, _) = try await Self.start(app)
            let signed = try Self.assertion(ada.credential, challenge: firstChallenge, origin: server.origin, signCount: 1)
            let replayed = try await Self.finish(app, secondSession, signed)
            #expect(replayed.status == 400 && replayed.error == "invalid_request")
            #expect(try await Self.finish(app, firstSession, signed).status == 200)
            // The same assertion once more, into a fresh auth_session: its challenge was spent.
            let (_, thirdSession, _) = try await Self.start(app)
            #expect(try await Self.finish(app, thirdSession, signed).error == "invalid_request")

            // A wrong signature: invalid_request with the ceremony's code, and the auth_session dies.
            let (_, broken, brokenChallenge) = try await Self.start(app)
            let forged = try Self.assertion(ada.credential, challenge: brokenChallenge, origin: server.origin, signCount: 5) { $0.signature = [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01] }
            let refused = try await Self.finish(app, broken, forged)
            #expect(refused.status == 400 && refused.error == "invalid_request")
            #expect((refused.json["error_description"] as? String)?.hasPrefix("invalid_signature") == true, "\(refused.json)")
            let afterFailure = try await Self.finish(app, broken, try Self.assertion(ada.credential, challenge: brokenChallenge, origin: server.origin, signCount: 6))
            #expect(afterFailure.error == "invalid_session")

            // Ten minutes on, an auth_session is dead.
            let (_, late, lateChallenge) = try await Self.start(app)
            server.clock.advance(AuthorizationChallenge.sessionTTL + 1)
            let expired = try await Self.finish(app, late, try Self.assertion(ada.credential, challenge: lateChallenge, origin: server.origin, signCount: 7))
            #expect(expired.error == "invalid_session")
        }
    }

    /// When a passkey cannot satisfy the client here (its `--require-acr`, a disabled account),
    /// the answer sends the app to the browser with a `request_uri` the authorization endpoint
    /// takes; the session the assertion opened is closed again.
    @Test func whatAPasskeyCannotSatisfyHereGoesToTheBrowser() async throws {
        try await withServer { server, ceremonies, _ in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let handle = try #require(Base64URL.decode(ada.userID))
            let strict = try await Self.app(server) { $0.requiredACR = "phrh" }
            let sessions = try await server.app.store.sessions(userHandle: handle, now: server.clock.now()).count
            let (_, authSession, challenge) = try await Self.start(strict)
            let answer = try await Self.finish(strict, authSession, try Self.assertion(ada.credential, challenge: challenge, origin: server.origin, signCount: 1))
            #expect(answer.status == 400 && answer.error == "redirect_to_web", "\(answer.json)")
            let requestURI = try #require(answer.json["request_uri"] as? String)
            #expect(answer.json["expires_in"] as? Int == 60)
            #expect(try await server.app.store.sessions(userHandle: handle, now: server.clock.now()).count == sessions)
            // The browser flow takes it as a pushed request: without a session, to the sign-in page.
            let browser = try await strict.authorize([("client_id", strict.clientID), ("request_uri", requestURI)], session: nil)
            #expect(browser.status == 302 || browser.status == 303, "\(browser.status) \(String(decoding: browser.body, as: UTF8.self))")
            #expect(browser.header("Location")?.contains("authorization=") == true)

            // Outside the client's groups: access_denied, and that session is closed too.
            let staffOnly = try await Self.app(server, id: "staff-notes") { $0.allowedGroups = ["staff"] }
            let (_, staffSession, staffChallenge) = try await Self.start(staffOnly)
            let outsider = try await Self.finish(
                staffOnly, staffSession, try Self.assertion(ada.credential, challenge: staffChallenge, origin: server.origin, signCount: 2))
            #expect(outsider.status == 400 && outsider.error == "access_denied", "\(outsider.json)")
            #expect(try await server.app.store.sessions(userHandle: handle, now: server.clock.now()).count == sessions)

            let app = try await Self.app(server, id: "notes2")
            _ = try await server.app.store.setUserDisabled(handle: handle, disabled: true, event: nil)
            let (_, disabledSession, disabledChallenge) = try await Self.start(app)
            let disabled = try await Self.finish(app, disabledSession, try Self.assertion(ada.credential, challenge: disabledChallenge, origin: server.origin, signCount: 3))
            #expect(disabled.error == "redirect_to_web", "\(disabled.json)")
        }
    }
}
