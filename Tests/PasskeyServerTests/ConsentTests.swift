import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import Testing

/// The consent page for third-party clients (docs/contracts/identity.md, "Authorization
/// endpoint"): asked once per client and scope set, `prompt=consent` asks again,
/// `prompt=none` without a consent is `consent_required`, a denial is `access_denied`, the
/// consent is listed under the account's applications and withdrawn there with the client's
/// tokens. Over real HTTP, on both stores.
@Suite struct ConsentTests {
    /// A client that registered itself (made here directly, as the registration endpoint makes it).
    static func thirdParty(_ server: TestServer, name: String = "Notes <b>&</b>", _ configure: (inout ClientRegistry.Registration) -> Void = { _ in })
        async throws -> TestRelyingParty
    {
        let party = try await TestRelyingParty.register(server, id: "notes") {
            $0.name = name
            $0.scopes = ["openid", "profile", "email", "groups", "offline_access"]
            configure(&$0)
        }
        var client = try #require(try await server.app.store.client(id: "notes"))
        client.kind = .registered
        #expect(try await server.app.store.replaceClient(client, event: nil))
        return party
    }

    /// The held request's handle in a consent page's location.
    static func handle(_ result: HTTPResult) throws -> String {
        let location = try #require(result.header("Location"))
        #expect(location.contains("/oauth/consent?authorization="), "\(location)")
        return try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "authorization" }?.value)
    }

    static func decide(_ party: TestRelyingParty, _ handle: String, _ decision: String, session: String, origin: String? = nil) async throws -> HTTPResult {
        try await party.raw(
            "POST", "/oauth/consent", headers: ["Cookie": "session=\(session)", "Origin": origin ?? party.server.origin],
            body: TestRelyingParty.form([("authorization", handle), ("decision", decision)]))
    }

    @Test func aThirdPartyClientIsAllowedOncePerScopeSet() async throws {
        try await withServer { server, ceremonies, _ in
            let notes = try await Self.thirdParty(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let asked = try await notes.authorize(notes.authorizationParameters([("scope", "openid profile")]), session: ada.session, cookie: true)
            #expect(asked.status == 302)
            let handle = try Self.handle(asked)
            // The page names the client and its host as text, and the scopes.
            let page = try await notes.raw("GET", "/oauth/consent?authorization=" + handle, headers: ["Cookie": "session=\(ada.session)"])
            #expect(page.status == 200 && page.header("Cache-Control") == "no-store")
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("Notes &lt;b&gt;&amp;&lt;/b&gt;") && !html.contains("<b>&</b>"))
            #expect(html.contains(">wiki.example<"))
            #expect(html.contains("data-scope=\"profile\"") && !html.contains("data-scope=\"email\""))
            // Without a session, the page sends the browser to sign in first.
            let signedOut = try await notes.raw("GET", "/oauth/consent?authorization=" + handle)
            #expect(signedOut.status == 302 && signedOut.header("Location")?.contains("/?authorization=" + handle) == true)

            let allowed = try await Self.decide(notes, handle, "allow", session: ada.session)
            let code = try #require(TestRelyingParty.answer(allowed)["code"], "\(allowed.status) \(allowed.header("Location") ?? "")")
            #expect(try await notes.redeem(code).status == 200)
            // The handle is spent.
            #expect(try await Self.decide(notes, handle, "allow", session: ada.session).status == 400)
            let handleBytes = try #require(Base64URL.decode(ada.userID))
            #expect(try await server.app.store.consent(userHandle: handleBytes, clientID: "notes")?.scopes == ["openid", "profile"])

            // Remembered: the same scopes, or fewer, get a code at once.
            let again = try await notes.authorize(notes.authorizationParameters([("scope", "openid")]), session: ada.session, cookie: true)
            #expect(TestRelyingParty.answer(again)["code"] != nil)
            // More scopes ask again; prompt=consent asks again; prompt=none without them is consent_required.
            let wider = try await notes.authorize(notes.authorizationParameters([("scope", "openid email")]), session: ada.session, cookie: true)
            _ = try Self.handle(wider)
            let forced = try await notes.authorize(notes.authorizationParameters([("scope", "openid"), ("prompt", "consent")]), session: ada.session, cookie: true)
            let forcedHandle = try Self.handle(forced)
            let silent = try await notes.authorize(notes.authorizationParameters([("scope", "openid email"), ("prompt", "none")]), session: ada.session, cookie: true)
            #expect(TestRelyingParty.answer(silent)["error"] == "consent_required")
            // Allowing the forced one keeps the earlier scopes.
            let reallowed = try await Self.decide(notes, forcedHandle, "allow", session: ada.session)
            #expect(TestRelyingParty.answer(reallowed)["code"] != nil)
            #expect(try await server.app.store.consent(userHandle: handleBytes, clientID: "notes")?.scopes == ["openid", "profile"])
            let events = try await server.app.store.events(userHandle: handleBytes, since: nil, after: nil, limit: 100)
            #expect(events.filter { $0.type == "consent_given" }.count == 2)
        }
    }

    @Test func aDenialIsAccessDeniedAndGrantsNothing() async throws {
        try await withServer { server, ceremonies, _ in
            let notes = try await Self.thirdParty(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let handle = try Self.handle(try await notes.authorize(notes.authorizationParameters(), session: ada.session, cookie: true))
            // Neither allow nor deny: shown, the request kept.
            #expect(try await Self.decide(notes, handle, "maybe", session: ada.session).status == 400)
            // From another site, with the cookie: refused before anything happens.
            let foreign = try await Self.decide(notes, handle, "allow", session: ada.session, origin: "https://evil.example")
            #expect(foreign.status == 403 && foreign.error == "forbidden_origin")
            let denied = try await Self.decide(notes, handle, "deny", session: ada.session)
            #expect(TestRelyingParty.answer(denied)["error"] == "access_denied")
            #expect(TestRelyingParty.answer(denied)["state"] == "st-1")
            let user = try #require(Base64URL.decode(ada.userID))
            #expect(try await server.app.store.consent(userHandle: user, clientID: "notes") == nil)
            #expect(try await server.app.store.grants(userHandle: user).isEmpty)
            #expect(try await server.app.store.events(userHandle: user, since: nil, after: nil, limit: 100).contains { $0.type == "consent_denied" })
        }
    }

    @Test func theOperatorsClientsAskNoConsent() async throws {
        try await withServer { server, ceremonies, _ in
            let wiki = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let answer = try await wiki.authorize(wiki.authorizationParameters([("prompt", "consent")]), session: ada.session, cookie: true)
            #expect(TestRelyingParty.answer(answer)["code"] != nil)
        }
    }

    @Test func theConsentIsListedAndWithdrawnWithTheClientsTokens() async throws {
        try await withServer { server, ceremonies, client in
            let notes = try await Self.thirdParty(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let handle = try Self.handle(try await notes.authorize(
                notes.authorizationParameters([("scope", "openid offline_access")]), session: ada.session, cookie: true))
            let code = try #require(TestRelyingParty.answer(try await Self.decide(notes, handle, "allow", session: ada.session))["code"])
            let tokens = try await notes.redeem(code)
            let refresh = try #require(tokens.json["refresh_token"] as? String)

            let me = try await client.get("/me", bearer: ada.session)
            let listed = try #require((me.json["applications"] as? [[String: Any]])?.first { $0["client_id"] as? String == "notes" })
            #expect(listed["consent"] as? [String] == ["openid", "offline_access"])
            let withdrawn = try await client.send("DELETE", "/me/applications/notes", bearer: ada.session)
            #expect(withdrawn.status == 200)
            let user = try #require(Base64URL.decode(ada.userID))
            #expect(try await server.app.store.consent(userHandle: user, clientID: "notes") == nil)
            #expect(try await notes.token([("grant_type", "refresh_token"), ("refresh_token", refresh)]).error == "invalid_grant")
            // Asked again next time.
            _ = try Self.handle(try await notes.authorize(notes.authorizationParameters(), session: ada.session, cookie: true))
            #expect(try await client.send("DELETE", "/me/applications/notes", bearer: ada.session).status == 404)
        }
    }

    @Test func aSignInThatNeedsConsentContinuesToThePageAfterSigningIn() async throws {
        try await withServer { server, ceremonies, _ in
            let notes = try await Self.thirdParty(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            // Not signed in: held, the sign-in page first; its resumption then asks for consent.
            let held = try await notes.authorize(notes.authorizationParameters(), session: nil)
            let location = try #require(held.header("Location"))
            let handle = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "authorization" }?.value)
            let resumed = try await notes.raw("GET", "/oauth/authorize/resume?authorization=" + handle, headers: ["Cookie": "session=\(ada.session)"])
            #expect(try Self.handle(resumed) == handle)
            let allowed = try await Self.decide(notes, handle, "allow", session: ada.session)
            #expect(TestRelyingParty.answer(allowed)["code"] != nil)
        }
    }
}
