import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyHTTPParsing
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// Forward authentication for reverse proxies (docs/contracts/identity.md): `/auth/request` and
/// `/auth/forward` answer a trusted proxy about the original request its headers describe.
@Suite struct ForwardAuthTests {
    static let loopback = [AddressRange("127.0.0.1/32")!, AddressRange("::1/128")!]

    static func ask(
        _ server: TestServer, _ path: String = "/auth/request", method: String = "GET", url: String? = nil,
        forwarded: (proto: String, host: String, uri: String)? = nil, session: String? = nil, extra: [String: String] = [:]
    ) async throws -> HTTPResult {
        var headers: [(String, String)] = []
        if let url { headers.append(("X-Original-URL", url)) }
        if let forwarded {
            headers += [("X-Forwarded-Method", method), ("X-Forwarded-Proto", forwarded.proto), ("X-Forwarded-Host", forwarded.host),
                        ("X-Forwarded-Uri", forwarded.uri)]
        }
        if let session { headers.append(("Cookie", "session=\(session)")) }
        // Added, not replacing: a header given twice stays twice.
        headers += extra.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return try await RawHTTP.request(port: server.port, method, path, headers: headers)
    }

    @Test func aPeerThatIsNotATrustedProxyGets403WhateverItSends() async throws {
        try await withServer { server, ceremonies, _ in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            for path in ["/auth/request", "/auth/forward"] {
                let result = try await Self.ask(server, path, url: "https://app.example.com/", session: ada.session)
                #expect(result.status == 403, "\(path)")
                #expect(result.header("Remote-User") == nil)
            }
        }
    }

    @Test func withoutRulesAnySignedInUserPassesWithAllFiveHeaders() async throws {
        try await withServer({ $0.trustedProxies = Self.loopback }) { (server: TestServer, ceremonies: Ceremonies, _: Client) async throws in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            for method in ["GET", "POST", "DELETE"] {
                let result = try await Self.ask(server, method: method, url: "https://app.example.com/x?y=1", session: ada.session)
                #expect(result.status == 200, "\(method)")
                #expect(result.header("Remote-User") == "ada")
                #expect(result.header("Remote-Name") == "ada")
                #expect(result.header("Remote-Email") == "")
                #expect(result.header("Remote-Groups") == "")
                #expect(result.header("Remote-Sub") == ada.userID)
            }
            // An Authorization header is the application's: neither read as a session nor in the way of the cookie.
            let bearer = try await Self.ask(server, url: "https://app.example.com/", session: ada.session, extra: ["Authorization": "Bearer app-token"])
            #expect(bearer.status == 200)
            #expect(try await Self.ask(server, url: "https://app.example.com/", extra: ["Authorization": "Bearer \(ada.session)"]).status == 401)
            // Caddy's and Traefik's headers say the same.
            let caddy = try await Self.ask(server, "/auth/forward", forwarded: ("https", "app.example.com", "/x"), session: ada.session)
            #expect(caddy.status == 200)
            #expect(caddy.header("Remote-User") == "ada")
        }
    }

    @Test func withoutASessionNginxGets401AndCaddyARedirectToTheSignInPage() async throws {
        try await withServer({ $0.trustedProxies = Self.loopback }) { (server: TestServer, _: Ceremonies, _: Client) async throws in
            #expect(try await Self.ask(server, url: "https://app.example.com/page").status == 401)
            #expect(try await Self.ask(server, url: "https://app.example.com/page", session: "not-a-session").status == 401)
            let caddy = try await Self.ask(server, "/auth/forward", forwarded: ("https", "app.example.com", "/page?a=1"))
            #expect(caddy.status == 302)
            #expect(caddy.header("Location") == server.origin + "/?rd=" + FormURLEncoded.encode("https://app.example.com/page?a=1"))
        }
    }

    @Test func theOriginalRequestMustBeDescribedOncePlainly() async throws {
        try await withServer({ $0.trustedProxies = Self.loopback }) { (server: TestServer, ceremonies: Ceremonies, _: Client) async throws in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            #expect(try await Self.ask(server, session: ada.session).status == 400)
            #expect(try await Self.ask(server, url: "ftp://app.example.com/", session: ada.session).status == 400)
            #expect(try await Self.ask(server, url: "https://user@app.example.com/", session: ada.session).status == 400)
            #expect(try await Self.ask(server, "/auth/forward", forwarded: ("https", "app.example.com", "no-slash"), session: ada.session).status == 400)
            let twice = try await Self.ask(
                server, "/auth/forward", forwarded: ("https", "app.example.com", "/"), session: ada.session, extra: ["X-Forwarded-Host": "other.example.com"])
            #expect(twice.status == 400)
            // Each endpoint reads only the headers its proxies set.
            #expect(try await Self.ask(server, forwarded: ("https", "app.example.com", "/"), session: ada.session).status == 400)
            #expect(try await Self.ask(server, "/auth/forward", url: "https://app.example.com/", session: ada.session).status == 400)
        }
    }

    @Test func theMostSpecificRuleDecidesAndAnUnnamedHostIsClosed() async throws {
        let rules = try ["app.example.com=staff", "app.example.com/admin=admins", "*.example.com=staff,guests"].map { try ForwardAuthRule($0) }
        try await withServer({ $0.trustedProxies = Self.loopback; $0.forwardAuthRules = rules }) { (server: TestServer, ceremonies: Ceremonies, _: Client) async throws in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let handle = try #require(Base64URL.decode(ada.userID))
            // In no group: every host is closed to her.
            #expect(try await Self.ask(server, url: "https://app.example.com/", session: ada.session).status == 403)
            _ = try await server.app.store.addToGroup(userHandle: handle, name: "Staff", nameKey: "staff", event: nil)
            let cases: [(String, Int)] = [
                ("https://app.example.com/", 200), ("https://app.example.com/wiki", 200), ("https://app.example.com/administrator", 200),
                ("https://app.example.com/admin", 403), ("https://app.example.com/admin/users", 403), ("https://APP.example.com/%61dmin", 403),
                ("https://app.example.com/public/../admin", 403), ("https://app.example.com//admin", 403), ("https://app.example.com/%2e%2e/admin", 403),
                ("https://other.example.com/", 200), ("https://deep.sub.example.com/x", 200), ("https://example.com/", 403),
                ("https://example.org/", 403),
            ]
            for (url, status) in cases {
                #expect(try await Self.ask(server, url: url, session: ada.session).status == status, "\(url)")
            }
            // Caddy and Traefik pass a client's own X-Original-URL on: /auth/forward never reads it.
            let smuggled = try await Self.ask(
                server, "/auth/forward", forwarded: ("https", "app.example.com", "/admin/page"), session: ada.session,
                extra: ["X-Original-URL": "https://app.example.com/docs/"])
            #expect(smuggled.status == 403)
            _ = try await server.app.store.addToGroup(userHandle: handle, name: "admins", nameKey: "admins", event: nil)
            let admin = try await Self.ask(server, url: "https://app.example.com/admin", session: ada.session)
            #expect(admin.status == 200)
            #expect(admin.header("Remote-Groups") == "admins,Staff")
        }
    }

    /// A rule's path keeps its case, and no spelling of a path (another case, `;` parameters,
    /// `..;`) reaches an upstream under a weaker rule than the one it resolves to.
    @Test func aPathRuleHoldsWhateverTheSpellingOfThePath() async throws {
        let rules = try ["app.example.com=staff", "app.example.com/Admin=admins", "app.example.com/secure=admins"].map { try ForwardAuthRule($0) }
        try await withServer({ $0.trustedProxies = Self.loopback; $0.forwardAuthRules = rules }) { (server: TestServer, ceremonies: Ceremonies, _: Client) async throws in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let handle = try #require(Base64URL.decode(ada.userID))
            _ = try await server.app.store.addToGroup(userHandle: handle, name: "staff", nameKey: "staff", event: nil)
            let cases: [(String, Int)] = [
                ("https://app.example.com/Admin", 403), ("https://app.example.com/Admin/users", 403), ("https://App.Example.com/%41dmin/x", 403),
                ("https://app.example.com/admin/users", 200), ("https://app.example.com/ADMIN", 200),
                ("https://app.example.com/secure/users", 403), ("https://app.example.com/secure;x/users", 403),
                ("https://app.example.com/secure;jsessionid=1", 403), ("https://app.example.com/x/..;/secure/users", 403),
                ("https://app.example.com/x/..;/public", 403), ("https://app.example.com/x/.;/secure", 403),
                ("https://app.example.com/public;x/page", 200), ("https://app.example.com/x%3B/secure", 200),
            ]
            for (url, status) in cases {
                #expect(try await Self.ask(server, url: url, session: ada.session).status == status, "\(url)")
            }
            let caddy = try await Self.ask(server, "/auth/forward", forwarded: ("https", "app.example.com", "/secure;a=b/users"), session: ada.session)
            #expect(caddy.status == 403)
            _ = try await server.app.store.addToGroup(userHandle: handle, name: "admins", nameKey: "admins", event: nil)
            #expect(try await Self.ask(server, url: "https://app.example.com/secure;x/users", session: ada.session).status == 200)
            #expect(try await Self.ask(server, url: "https://app.example.com/Admin/users", session: ada.session).status == 200)
            // `..` is never judged, whoever asks.
            #expect(try await Self.ask(server, url: "https://app.example.com/x/..;/secure/users", session: ada.session).status == 403)
        }
    }

    @Test func pathParametersAreRemovedBeforeTheCanonicalPath() {
        let paths: [(String, String?)] = [
            ("/secure;x/users", "/secure/users"), ("/a;b;c/d;e", "/a/d"), ("/x/..;/secure", nil), ("/x/.;/y", nil),
            ("/;x/y", nil), ("/%61dmin;v=1", "/admin"), ("/a%3Bb/c", "/a%3Bb/c"), ("/Admin", "/Admin"),
        ]
        for (path, expected) in paths {
            #expect(ForwardedRequest.parse(originalURL: "https://app.example.com" + path, method: nil)?.canonicalPath == expected, "\(path)")
        }
    }

    @Test func rulesAreCheckedWhenGiven() throws {
        // ("app.example.com=" is a rule for any signed-in user: ForwardAuthAssuranceTests.)
        for bad in ["app.example.com", "=staff", "= max_age=60", "app.example.com/=staff", "app.example.com/a/../b=staff",
                    "app.example.com/a/=staff", "app.example.com:8443=staff", "*.=staff", "exa mple.com=staff", "https://x.com=staff"] {
            #expect(throws: ForwardAuthRule.Failure.self, "\(bad)") { try ForwardAuthRule(bad) }
        }
        let rule = try ForwardAuthRule("App.Example.com/Admin=Ops, Staff")
        #expect(rule.host == "app.example.com")
        #expect(rule.pathPrefix == "/Admin")  // the host without case, the path as written
        #expect(rule.groups == ["Ops", "Staff"])
        #expect(throws: ForwardAuthRule.Failure.self) { try ForwardAuthRule("app.example.com/admin;x=staff") }
        // Paths that differ in case are two rules; hosts that differ in case are one.
        try ForwardAuth.checkRules([try ForwardAuthRule("a.example.com/Admin=x"), try ForwardAuthRule("a.example.com/admin=y")])
        #expect(throws: ForwardAuthRule.Failure.self) {
            try ForwardAuth.checkRules([try ForwardAuthRule("a.example.com=x"), try ForwardAuthRule("A.example.com=y")])
        }
    }

    @Test func theReturnAfterSignInGoesOnlyToThisServer() async throws {
        try await withServer { server, _, _ in
            let rp = TestRelyingParty(server: server, clientID: "x", secret: nil)
            let home = try await rp.raw("GET", "/auth/return?rd=" + FormURLEncoded.encode(server.origin + "/#passkeys"))
            #expect(home.header("Location") == "/")  // a fragment is not a URL it sends anywhere
            let page = try await rp.raw("GET", "/auth/return?rd=" + FormURLEncoded.encode(server.origin + "/?x=1"))
            #expect(page.header("Location") == server.origin + "/?x=1")
            for evil in ["https://evil.example/", "//evil.example/", "javascript:alert(1)", "http://localhost:1/"] {
                let result = try await rp.raw("GET", "/auth/return?rd=" + FormURLEncoded.encode(evil))
                #expect(result.status == 302)
                #expect(result.header("Location") == "/", "\(evil)")
            }
        }
    }
}

/// `--cookie-domain`: a forward-auth token on the parent domain, so that every
/// protected host's proxy can ask about it, and the session on the server's own host only.
@Suite struct CookieDomainTests {
    static func configure(_ c: inout ServerConfiguration) {
        c.rpID = "example.com"
        c.origins = ["https://id.example.com"]
        c.cookieDomain = "example.com"
        c.trustedProxies = ForwardAuthTests.loopback
    }

    /// The account's session stays host-only (`__Host-session`); the parent domain gets only
    /// `__Secure-forward`, a token that forward authentication alone accepts: an application on
    /// a sibling host that reads its Cookie header can replay it nowhere else, as a cookie or as
    /// a Bearer token, and it is no step-up.
    @Test func theParentDomainGetsAForwardTokenNotTheSession() async throws {
        try await withServer(Self.configure) { (server: TestServer, _: Ceremonies, client: Client) async throws in
            let initialize = try await client.get("/registration_initialize?user_name=ada")
            let options = try #require(initialize.json["publicKey"] as? [String: Any])
            let challenge = try #require(Base64URL.decode(options["challenge"] as? String ?? ""))
            let handle = try #require(Base64URL.decode((options["user"] as? [String: Any])?["id"] as? String ?? ""))
            let body = try RegistrationBuilder(
                credential: try TestCredential(userHandle: handle), rpID: "example.com", origin: "https://id.example.com", challenge: challenge).json()
            let registered = try await client.post("/registration_finalize", bytes: body)
            #expect(registered.status == 200)
            let cookies = try #require(registered.setCookie)
            let token = try #require(registered.json["session"] as? String)
            let session = try #require(cookies.firstMatch(of: /__Host-session=([^;]*);[^,]*/))
            #expect(session.1 == token)
            #expect(!session.0.contains("Domain=") && session.0.contains("; Secure") && session.0.contains("HttpOnly"))
            let forwardCookie = try #require(cookies.firstMatch(of: /__Secure-forward=([^;]*);[^,]*/))
            let forward = String(forwardCookie.1)
            #expect(forwardCookie.0.contains("Domain=example.com") && forwardCookie.0.contains("; Secure"))
            #expect(forwardCookie.0.contains("HttpOnly") && forwardCookie.0.contains("SameSite=Lax"))
            #expect(forward != token && !forward.contains(token))

            let me = { (headers: [String: String]) async throws -> Int in
                try await client.send("GET", "/me", headers: headers).status
            }
            #expect(try await me(["Cookie": "__Host-session=\(token)"]) == 200)
            // The forward token opens nothing of the account: not as a cookie, not as a Bearer token.
            for headers in [["Cookie": "__Secure-forward=\(forward)"], ["Cookie": "__Host-session=\(forward)"], ["Authorization": "Bearer \(forward)"],
                            ["Cookie": "__Secure-session=\(token)"], ["Cookie": "session=\(token)"]] {
                #expect(try await me(headers) == 401, "\(headers)")
            }
            // Nor does it mint recovery codes, though the session's step-up is fresh.
            let minted = try await client.send(
                "POST", "/me/recovery-codes", body: Data("{}".utf8), headers: ["Authorization": "Bearer \(forward)", "Content-Type": "application/json"])
            #expect(minted.status == 401)
            #expect(try await client.post("/me/recovery-codes", json: [String: String](), bearer: token).status == 200)
            // Forward authentication takes it.
            let forwarded = try await ForwardAuthTests.ask(server, url: "https://wiki.example.com/", extra: ["Cookie": "__Secure-forward=\(forward)"])
            #expect(forwarded.status == 200)
            #expect(forwarded.header("Remote-User") == "ada")
            // A forged or altered one does not.
            var altered = Array(forward)
            altered[altered.count - 2] = altered[altered.count - 2] == "A" ? "B" : "A"
            for bad in [String(altered), String(forward.prefix { $0 != "." }), token] {
                let refused = try await ForwardAuthTests.ask(server, url: "https://wiki.example.com/", extra: ["Cookie": "__Secure-forward=\(bad)"])
                #expect(refused.status == 401, "\(bad)")
            }
            // It dies with the session.
            #expect(try await client.send("POST", "/logout", bearer: token).status == 200)
            let ended = try await ForwardAuthTests.ask(server, url: "https://wiki.example.com/", extra: ["Cookie": "__Secure-forward=\(forward)"])
            #expect(ended.status == 401)
        }
    }

    /// Signing out clears both cookies.
    @Test func signingOutClearsBothCookies() async throws {
        try await withServer(Self.configure) { (server: TestServer, ceremonies: Ceremonies, client: Client) async throws in
            let result = try await client.send("POST", "/logout", body: Data("{}".utf8), headers: ["Content-Type": "application/json"])
            let cookies = result.setCookie ?? ""
            #expect(cookies.contains("__Host-session=; Path=/; Max-Age=0"), "\(cookies)")
            #expect(cookies.contains("__Secure-forward=; Domain=example.com; Path=/; Max-Age=0"), "\(cookies)")
        }
    }

    @Test func theReturnGoesToHttpsHostsOfTheCookieDomainOnly() async throws {
        try await withServer(Self.configure) { (server: TestServer, _: Ceremonies, _: Client) async throws in
            let rp = TestRelyingParty(server: server, clientID: "x", secret: nil)
            let cases = [
                ("https://wiki.example.com/page?x=1", "https://wiki.example.com/page?x=1"), ("https://example.com/", "https://example.com/"),
                ("https://a.b.example.com/", "https://a.b.example.com/"), ("http://wiki.example.com/", "/"),
                ("https://evilexample.com/", "/"), ("https://example.com.evil.org/", "/"), ("https://wiki.example.com@evil.org/", "/"),
            ]
            for (rd, expected) in cases {
                let result = try await rp.raw("GET", "/auth/return?rd=" + FormURLEncoded.encode(rd))
                #expect(result.header("Location") == expected, "\(rd)")
            }
        }
    }

    @Test func theServerRefusesToStartOffItsCookieDomain() async throws {
        for configure in [
            { (c: inout ServerConfiguration) in c.origins = ["https://id.example.org"]; c.cookieDomain = "example.com" },
            { (c: inout ServerConfiguration) in c.origins = ["http://id.example.com"]; c.cookieDomain = "example.com" },
            { (c: inout ServerConfiguration) in c.cookieDomain = "example.com" },
        ] {
            await #expect(throws: ServerStartupError.self) { _ = try await TestServer.start(configure) }
        }
    }
}
