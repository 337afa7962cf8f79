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

/// What a native app's own backend uses (docs/contracts/identity.md; seed 002): introspection (RFC 7662) and
/// token exchange (RFC 8693) of the JSON endpoints' session token, and the clients' policy at
/// exchange and refresh.
@Suite struct OpenIDBackendTests {
    static func introspect(_ backend: TestRelyingParty, _ token: String, hint: String? = nil) async throws -> HTTPResult {
        var form = [("token", token)]
        if let hint { form.append(("token_type_hint", hint)) }
        let basic = ["Authorization": "Basic " + Data("\(backend.clientID):\(backend.secret ?? "")".utf8).base64EncodedString()]
        return try await backend.raw("POST", "/oauth/introspect", headers: basic, body: TestRelyingParty.form(form))
    }

    @Test func introspectionTellsWhatAStandingTokenIsAndOnlyActiveFalseOtherwise() async throws {
        try await withServer { server, ceremonies, client in
            let backend = try await TestRelyingParty.register(server, id: "backend") { $0.introspection = true }
            let wiki = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            // A session token of the JSON endpoints.
            let session = try await Self.introspect(backend, ada.session)
            #expect(session.status == 200)
            #expect(session.header("Cache-Control") == "no-store")
            #expect(session.json["active"] as? Bool == true)
            #expect(session.json["sub"] as? String == ada.userID)
            #expect(session.json["username"] as? String == "ada")
            #expect(session.json["token_type"] as? String == "session")
            #expect(session.json["amr"] as? [String] == ["hwk", "user", "mfa"])
            // Another client's access and refresh tokens.
            let code = try #require(TestRelyingParty.answer(try await wiki.authorize(wiki.authorizationParameters(), session: ada.session))["code"])
            let tokens = try await wiki.redeem(code)
            let access = try await Self.introspect(backend, try #require(tokens.json["access_token"] as? String))
            #expect(access.json["active"] as? Bool == true)
            #expect(access.json["client_id"] as? String == "wiki")
            #expect(access.json["scope"] as? String == "openid profile groups")
            #expect(access.json["token_type"] as? String == "access_token")
            // Another client's refresh token is not the backend's to know (RFC 7662 §4).
            let wikiRefresh = try #require(tokens.json["refresh_token"] as? String)
            #expect(String(decoding: try await Self.introspect(backend, wikiRefresh).body, as: UTF8.self) == #"{"active":false}"#)
            #expect(String(decoding: try await Self.introspect(backend, wikiRefresh, hint: "refresh_token").body, as: UTF8.self) == #"{"active":false}"#)
            // Its own refresh token it may introspect.
            let ownCode = try #require(TestRelyingParty.answer(try await backend.authorize(
                backend.authorizationParameters(), session: ada.session))["code"])
            let own = try await backend.redeem(ownCode)
            let refresh = try await Self.introspect(backend, try #require(own.json["refresh_token"] as? String))
            #expect(refresh.json["active"] as? Bool == true)
            #expect(refresh.json["client_id"] as? String == "backend")
            #expect(refresh.json["token_type"] as? String == "refresh_token")
            // Inactive: unknown, garbage, and everything once the session ended; exactly one member.
            for token in ["nope", Base64URL.encode(SecureRandom.bytes(32)), "a.b.c"] {
                let result = try await Self.introspect(backend, token)
                #expect(result.status == 200)
                #expect(String(decoding: result.body, as: UTF8.self) == #"{"active":false}"#)
            }
            #expect(try await client.send("POST", "/logout", bearer: ada.session).status == 200)
            for token in [ada.session, tokens.json["access_token"] as? String ?? "", own.json["refresh_token"] as? String ?? ""] {
                #expect(String(decoding: try await Self.introspect(backend, token).body, as: UTF8.self) == #"{"active":false}"#)
            }
            // A client not registered for it may not introspect.
            #expect(try await Self.introspect(wiki, "x").error == "unauthorized_client")
        }
    }

    @Test func aSessionTokenIsExchangedForTokensTheBackendChecksOffline() async throws {
        try await withServer { server, ceremonies, client in
            let app = try await TestRelyingParty.register(server, id: "ios-app") { $0.tokenExchange = true; $0.redirectURIs = []; $0.idTokenAlgorithm = "ES256" }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            func exchange(_ extra: [(String, String)] = []) async throws -> HTTPResult {
                try await app.token([("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", ada.session),
                                     ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token")] + extra)
            }
            let access = try await exchange()
            #expect(access.status == 200, "\(String(decoding: access.body, as: UTF8.self))")
            #expect(access.json["issued_token_type"] as? String == "urn:ietf:params:oauth:token-type:access_token")
            #expect(access.json["token_type"] as? String == "Bearer")
            let accessClaims = try await app.verified(try #require(access.json["access_token"] as? String), typ: "at+jwt")
            #expect(accessClaims["aud"]?.stringValue == "ios-app")
            #expect(accessClaims["sub"]?.stringValue == ada.userID)

            let id = try await exchange([("requested_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("scope", "openid profile")])
            #expect(id.json["issued_token_type"] as? String == "urn:ietf:params:oauth:token-type:id_token")
            #expect(id.json["token_type"] as? String == "N_A")
            let idToken = try #require(id.json["access_token"] as? String)
            #expect(try JWS(compact: idToken).algorithmName == "ES256")
            let claims = try await app.verified(idToken, typ: "JWT")
            #expect(claims["aud"]?.stringValue == "ios-app")
            #expect(claims["preferred_username"]?.stringValue == "ada")
            #expect(claims["nonce"] == nil)

            // Refusals.
            #expect(try await app.token([("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", "x"),
                                         ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token")]).error == "invalid_grant")
            #expect(try await exchange([("scope", "openid offline_access")]).error == "invalid_scope")
            #expect(try await exchange([("audience", "other")]).error == "invalid_target")
            let other = try await TestRelyingParty.register(server, id: "no-exchange")
            #expect(try await other.token([("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", ada.session),
                                           ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token")]).error == "unauthorized_client")
            // The issued access token ends with the session it came from.
            #expect(try await client.send("POST", "/logout", bearer: ada.session).status == 200)
            #expect(try await app.userinfo(try #require(access.json["access_token"] as? String)).status == 401)
        }
    }

    @Test func theClientsPolicyHoldsAtExchangeAndRefresh() async throws {
        try await withServer { server, ceremonies, _ in
            let app = try await TestRelyingParty.register(server, id: "staff-app") { $0.tokenExchange = true; $0.allowedGroups = ["staff"] }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let handle = try #require(Base64URL.decode(ada.userID))
            let exchange: [(String, String)] = [("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", ada.session),
                                                ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token")]
            #expect(try await app.token(exchange).error == "invalid_grant")
            _ = try await server.app.store.addToGroup(userHandle: handle, name: "staff", nameKey: "staff", event: nil)
            #expect(try await app.token(exchange).status == 200)
            // A refresh after leaving the group is refused.
            let code = try #require(TestRelyingParty.answer(try await app.authorize(app.authorizationParameters(), session: ada.session))["code"])
            let refresh = try #require(try await app.redeem(code).json["refresh_token"] as? String)
            _ = try await server.app.store.removeFromGroup(userHandle: handle, nameKey: "staff", event: nil)
            #expect(try await app.token([("grant_type", "refresh_token"), ("refresh_token", refresh)]).error == "invalid_grant")
            #expect(try await app.token(exchange).error == "invalid_grant")
        }
    }
}

/// Pushed authorization requests (RFC 9126) and `--require-par`.
@Suite struct PushedAuthorizationTests {
    static func push(_ rp: TestRelyingParty, _ parameters: [(String, String)]) async throws -> HTTPResult {
        let basic = ["Authorization": "Basic " + Data("\(rp.clientID):\(rp.secret ?? "")".utf8).base64EncodedString()]
        return try await rp.raw("POST", "/oauth/par", headers: basic, body: TestRelyingParty.form(parameters))
    }

    @Test func aPushedRequestIsUsedOnceByItsClientWithin60Seconds() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server) { $0.requirePAR = true }
            let other = try await TestRelyingParty.register(server, id: "other")
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            // Required: the plain way is refused back to the client.
            #expect(TestRelyingParty.answer(try await rp.authorize(rp.authorizationParameters(), session: ada.session))["error"] == "invalid_request")

            let pushed = try await Self.push(rp, rp.authorizationParameters(removing: ["client_id"]))
            #expect(pushed.status == 201, "\(String(decoding: pushed.body, as: UTF8.self))")
            #expect(pushed.json["expires_in"] as? Int == 60)
            let requestURI = try #require(pushed.json["request_uri"] as? String)
            #expect(requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))
            // Another client cannot use it, and trying does not spend it.
            let stolen = try await other.authorize([("client_id", "other"), ("request_uri", requestURI)], session: ada.session)
            #expect(stolen.status == 400 && stolen.header("Location") == nil)
            let answer = try await rp.authorize([("client_id", "wiki"), ("request_uri", requestURI)], session: ada.session)
            let code = try #require(TestRelyingParty.answer(answer)["code"])
            #expect(TestRelyingParty.answer(answer)["state"] == "st-1")
            #expect(try await rp.redeem(code).status == 200)
            // Once.
            #expect(try await rp.authorize([("client_id", "wiki"), ("request_uri", requestURI)], session: ada.session).status == 400)
            // Not after 60 s.
            let late = try #require(try await Self.push(rp, rp.authorizationParameters()).json["request_uri"] as? String)
            server.clock.advance(61)
            #expect(try await rp.authorize([("client_id", "wiki"), ("request_uri", late)], session: ada.session).status == 400)
        }
    }

    @Test func aPushedRequestHeldForSignInResumesAndRefusalsAreErrorsNotRedirects() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server) { $0.requirePAR = true }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let requestURI = try #require(try await Self.push(rp, rp.authorizationParameters()).json["request_uri"] as? String)
            let held = try await rp.authorize([("client_id", "wiki"), ("request_uri", requestURI)], session: nil)
            let handle = try #require(URLComponents(string: held.header("Location") ?? "")?.queryItems?.first { $0.name == "authorization" }?.value)
            let resumed = try await rp.raw("GET", "/oauth/authorize/resume?authorization=\(handle)", headers: ["Authorization": "Bearer \(ada.session)"])
            #expect(TestRelyingParty.answer(resumed)["code"] != nil)
            // The marker of a pushed request cannot be sent by a client.
            let forged = try await rp.authorize(rp.authorizationParameters([("pushed_authorization_request", "1")]), session: ada.session)
            #expect(TestRelyingParty.answer(forged)["code"] == nil)

            let noPKCE = try await Self.push(rp, rp.authorizationParameters(removing: ["code_challenge"]))
            #expect(noPKCE.status == 400 && noPKCE.error == "invalid_request")
            let badRedirect = try await Self.push(rp, rp.authorizationParameters([("redirect_uri", "https://evil.example/cb")]))
            #expect(badRedirect.status == 400 && badRedirect.header("Location") == nil)
            let anonymous = try await rp.raw("POST", "/oauth/par", body: TestRelyingParty.form(rp.authorizationParameters()))
            #expect(anonymous.status == 401)
        }
    }
}
