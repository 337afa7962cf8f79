import Foundation
import Hummingbird
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyCrypto
import PasskeyJOSE
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import NIOCore
import Synchronization
import Testing

/// A relying party's back-channel logout URI on 127.0.0.1: keeps every logout token posted to
/// it, answering 200, or 500 while `failing`.
final class BackChannelStandIn: Sendable {
    let tokens = Mutex<[String]>([])
    let failing = Mutex(false)
    private let server: LocalServer
    var uri: String { "http://127.0.0.1:\(server.port)/backchannel-logout" }

    private init(server: LocalServer) { self.server = server }

    static func start() async -> BackChannelStandIn {
        let box = Box()
        let router = Router()
        router.post("/backchannel-logout") { request, _ -> Response in
            let form = try await AppleStandIn.form(request)
            guard let standIn = box.standIn.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            standIn.tokens.withLock { $0.append(form["logout_token"] ?? "") }
            return Response(status: standIn.failing.withLock { $0 } ? .internalServerError : .ok)
        }
        let standIn = BackChannelStandIn(server: await LocalServer.start(router: router))
        box.standIn.withLock { $0 = standIn }
        return standIn
    }

    final class Box: Sendable { let standIn = Mutex<BackChannelStandIn?>(nil) }

    /// Waits up to 20 s for `count` tokens.
    func waitForTokens(_ count: Int) async throws -> [String] {
        for _ in 0..<200 {
            let received = tokens.withLock { $0 }
            if received.count >= count { return received }
            try await Task.sleep(for: .milliseconds(100))
        }
        return tokens.withLock { $0 }
    }

    func stop() async { await server.stop() }
}

/// RP-initiated logout and back-channel logout (docs/contracts/identity.md, "Revocation, introspection, logout").
@Suite struct OpenIDLogoutTests {
    static let afterLogout = "https://wiki.example/signed-out"

    /// A signed-in user with tokens for `rp`: the token response.
    static func tokens(_ rp: TestRelyingParty, session: String, scope: String = "openid profile") async throws -> [String: Any] {
        let code = try #require(TestRelyingParty.answer(try await rp.authorize(rp.authorizationParameters([("scope", scope)]), session: session))["code"])
        let tokens = try await rp.redeem(code)
        try #require(tokens.status == 200, "\(String(decoding: tokens.body, as: UTF8.self))")
        return tokens.json
    }

    @Test func aHintNamingTheSessionSignsOutAtOnceAndTellsTheClientsInTheBackground() async throws {
        let backChannel = await BackChannelStandIn.start()
        defer { Task { await backChannel.stop() } }
        try await withServer { server, ceremonies, client in
            let rp = try await TestRelyingParty.register(server) {
                $0.postLogoutRedirectURIs = [Self.afterLogout]
                $0.backchannelLogoutURI = backChannel.uri
            }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let tokens = try await Self.tokens(rp, session: ada.session)
            let idToken = try #require(tokens["id_token"] as? String)
            let idClaims = try await rp.verified(idToken, typ: "JWT")
            let query = TestRelyingParty.form([("id_token_hint", idToken), ("post_logout_redirect_uri", Self.afterLogout), ("state", "bye")])
            let result = try await rp.raw("GET", "/oauth/logout?" + query, headers: ["Cookie": "session=\(ada.session)"])
            #expect(result.status == 302)
            #expect(result.header("Location") == Self.afterLogout + "?state=bye")
            #expect(result.header("Set-Cookie")?.contains("Max-Age=0") == true)
            #expect(try await client.get("/me", bearer: ada.session).status == 401)
            #expect(try await rp.userinfo(try #require(tokens["access_token"] as? String)).status == 401)

            let received = try await backChannel.waitForTokens(1)
            #expect(received.count == 1)
            let logout = try await rp.verified(try #require(received.first), typ: "logout+jwt")
            #expect(logout["iss"]?.stringValue == server.origin)
            #expect(logout["aud"]?.stringValue == "wiki")
            #expect(logout["sub"]?.stringValue == ada.userID)
            #expect(logout["sid"] == idClaims["sid"])
            #expect(logout["nonce"] == nil)
            #expect(logout["jti"]?.stringValue?.isEmpty == false)
            #expect(logout["events"] == .object(["http://schemas.openid.net/event/backchannel-logout": .object([:])]))
        }
    }

    @Test func withoutAHintTheUserConfirmsAndAnUnregisteredRedirectStaysHere() async throws {
        try await withServer { server, ceremonies, client in
            let rp = try await TestRelyingParty.register(server) { $0.postLogoutRedirectURIs = [Self.afterLogout] }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let query = TestRelyingParty.form([("client_id", "wiki"), ("post_logout_redirect_uri", "https://evil.example/")])
            let asked = try await rp.raw("GET", "/oauth/logout?" + query, headers: ["Cookie": "session=\(ada.session)"])
            #expect(asked.status == 200)
            let page = String(decoding: asked.body, as: UTF8.self)
            #expect(page.contains("The Wiki asks to sign you out"))
            #expect(try await client.get("/me", bearer: ada.session).status == 200)
            // A confirmation that does not name the session does nothing.
            let forged = try await rp.raw("POST", "/oauth/logout", headers: ["Cookie": "session=\(ada.session)"], body: query + "&confirm=guess")
            #expect(forged.status == 200)
            #expect(try await client.get("/me", bearer: ada.session).status == 200)
            // The page's own form: signed out, and no redirect to the unregistered URI.
            let confirm = try #require(page.firstMatch(of: /name="confirm" value="([^"]+)"/)?.1)
            let confirmed = try await rp.raw("POST", "/oauth/logout", headers: ["Cookie": "session=\(ada.session)"], body: query + "&confirm=\(confirm)")
            #expect(confirmed.status == 200)
            #expect(confirmed.header("Location") == nil)
            #expect(String(decoding: confirmed.body, as: UTF8.self).contains("You are signed out"))
            #expect(try await client.get("/me", bearer: ada.session).status == 401)
            // A hint that is not ours is refused and changes nothing.
            let bob = try await TestRelyingParty.signedIn(ceremonies, "bob")
            let bad = try await rp.raw("GET", "/oauth/logout?id_token_hint=eyJhbGciOiJub25lIn0.e30.", headers: ["Cookie": "session=\(bob.session)"])
            #expect(bad.status == 400)
            #expect(try await client.get("/me", bearer: bob.session).status == 200)
        }
    }

    @Test func signingOutEverywhereOrDeletingThePasskeyTellsTheClientsAndKeepsOfflineGrants() async throws {
        let backChannel = await BackChannelStandIn.start()
        defer { Task { await backChannel.stop() } }
        try await withServer { server, ceremonies, client in
            let rp = try await TestRelyingParty.register(server) {
                $0.backchannelLogoutURI = backChannel.uri
                $0.scopes = ["openid", "profile", "offline_access"]
            }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let online = try await Self.tokens(rp, session: ada.session)
            let offline = try await Self.tokens(rp, session: ada.session, scope: "openid offline_access")
            #expect(try await client.send("POST", "/logout", body: Data(#"{"everywhere":true}"#.utf8), bearer: ada.session).status == 200)
            #expect(try await backChannel.waitForTokens(1).count == 1)
            // The session-bound grant ended with the session; the offline one lives on.
            #expect(try await rp.userinfo(try #require(online["access_token"] as? String)).status == 401)
            #expect(try await rp.userinfo(try #require(offline["access_token"] as? String)).status == 200)
            let refreshed = try await rp.token([("grant_type", "refresh_token"), ("refresh_token", try #require(offline["refresh_token"] as? String))])
            #expect(refreshed.status == 200)

            // A passkey's deletion ends the sessions it opened: a second logout token.
            let signIn = try await ceremonies.signIn("ada", credential: ada.credential, signCount: 0)
            let session = try #require(signIn.result.json["session"] as? String)
            _ = try await Self.tokens(rp, session: session)
            let other = try await ceremonies.register("ada", session: session)
            #expect(other.result.status == 200)
            let keep = try #require(other.result.json["session"] as? String)
            #expect(try await client.send("DELETE", "/credentials/\(Base64URL.encode(ada.credential.id))", bearer: keep).status == 200)
            #expect(try await backChannel.waitForTokens(2).count == 2)
        }
    }

    @Test func aFailingClientNeverHoldsUpTheSignOutAndIsRecorded() async throws {
        let backChannel = await BackChannelStandIn.start()
        backChannel.failing.withLock { $0 = true }
        defer { Task { await backChannel.stop() } }
        try await withServer({ $0.logoutRetryDelays = [0.05, 0.05] }) { (server: TestServer, ceremonies: Ceremonies, client: Client) async throws in
            let rp = try await TestRelyingParty.register(server) { $0.backchannelLogoutURI = backChannel.uri }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            _ = try await Self.tokens(rp, session: ada.session)
            #expect(try await client.send("POST", "/logout", bearer: ada.session).status == 200)
            #expect(try await backChannel.waitForTokens(3).count == 3)
            let handle = try #require(Base64URL.decode(ada.userID))
            var types: [String] = []
            for _ in 0..<100 {
                types = try await server.app.store.events(userHandle: handle, before: nil, limit: 20).map(\.type)
                if types.contains("backchannel_logout_failed") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(types.contains("backchannel_logout_failed"))
        }
    }

    @Test func theAccountListsItsApplicationsAndSignsOneOut() async throws {
        let backChannel = await BackChannelStandIn.start()
        defer { Task { await backChannel.stop() } }
        try await withServer { server, ceremonies, client in
            let wiki = try await TestRelyingParty.register(server) { $0.backchannelLogoutURI = backChannel.uri }
            let chat = try await TestRelyingParty.register(server, id: "chat") { $0.name = "Chat" }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let before = try await client.get("/me", bearer: ada.session).json["applications"] as? [Any]
            #expect(before?.isEmpty == true)
            let wikiTokens = try await Self.tokens(wiki, session: ada.session)
            let chatTokens = try await Self.tokens(chat, session: ada.session)
            let listed = try #require(try await client.get("/me", bearer: ada.session).json["applications"] as? [[String: Any]])
            #expect(listed.compactMap { $0["client_id"] as? String }.sorted() == ["chat", "wiki"])
            #expect(listed.first { $0["client_id"] as? String == "wiki" }?["name"] as? String == "The Wiki")
            #expect(listed.first { $0["client_id"] as? String == "wiki" }?["scopes"] as? [String] == ["openid", "profile"])

            #expect(try await client.send("DELETE", "/me/applications/wiki", bearer: ada.session).status == 200)
            #expect(try await wiki.userinfo(try #require(wikiTokens["access_token"] as? String)).status == 401)
            #expect(try await chat.userinfo(try #require(chatTokens["access_token"] as? String)).status == 200)
            #expect(try await backChannel.waitForTokens(1).count == 1)
            let after = try #require(try await client.get("/me", bearer: ada.session).json["applications"] as? [[String: Any]])
            #expect(after.compactMap { $0["client_id"] as? String } == ["chat"])
            #expect(try await client.send("DELETE", "/me/applications/wiki", bearer: ada.session).status == 404)
            #expect(try await client.send("DELETE", "/me/applications/wiki").status == 401)
            // Another account cannot sign Ada's applications out.
            let bob = try await TestRelyingParty.signedIn(ceremonies, "bob")
            #expect(try await client.send("DELETE", "/me/applications/chat", bearer: bob.session).status == 404)
            #expect(try await chat.userinfo(try #require(chatTokens["access_token"] as? String)).status == 200)
        }
    }
}
