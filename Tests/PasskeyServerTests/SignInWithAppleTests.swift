import PasskeyJSON
import Foundation
import PasskeyApple
import PasskeyCore
import PasskeyCrypto
import PasskeyApp
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyStorage
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// Sign in with Apple end to end: the real server on a real port, Apple's endpoints played by a
/// local stand-in over HTTP (key set, token, revoke), tokens signed by test keys.
@Suite struct SignInWithAppleTests {
    static let keys = AppleTestKeys.shared
    static let webClientID = "com.example.web"

    /// A P-256 key in PKCS #8 PEM, as Apple's `.p8` files are (a test key, made for this suite).
    static let developerKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgdher9E/4PgiVZZ//
        8zR2u55EFmgH3GOf4HqDOboXTSChRANCAATIFYHdFIhqzQJQFHNJ52krLqX+BEA7
        YD1KSYBVxH/f1GWhWzmYFSnhSqk5BZ1dbT7vvEBcrBADJKFIpB5ud7Oa
        -----END PRIVATE KEY-----
        """

    struct Apple {
        let server: TestServer
        let standIn: AppleStandIn
        let client: Client
        let ceremonies: Ceremonies

        /// A nonce from GET /siwa/initialize.
        func nonce() async throws -> String {
            let result = try await client.get("/siwa/initialize")
            try #require(result.status == 200, "\(String(decoding: result.body, as: UTF8.self))")
            return try #require(result.json["nonce"] as? String)
        }

        /// A token for `claims` (default: the standard claims now, with `nonce`), signed by `kid`.
        func token(kid: String = "apple-test-1", nonce: String? = nil, subject: String = AppleClaims.subject, email: String? = AppleClaims.email,
                   extra: [String: Any] = [:]) -> String {
            keys.token(
                kid: kid,
                claims: AppleClaims.identity(now: server.clock.now(), subject: subject, nonce: nonce, email: email, extra: extra))
        }

        func finalize(_ token: String, nonce: String?, bearer: String? = nil, extra: [String: Any] = [:]) async throws -> HTTPResult {
            var body: [String: Any] = ["identity_token": token]
            if let nonce { body["nonce"] = nonce }
            body.merge(extra) { $1 }
            return try await client.post("/siwa/finalize", json: body, bearer: bearer)
        }

        /// A finalize of `token` without a nonce.
        func post(_ token: String) async throws -> HTTPResult {
            try await finalize(token, nonce: nil)
        }

        /// initialize → token with the nonce → finalize.
        func signIn(subject: String = AppleClaims.subject, email: String? = AppleClaims.email, bearer: String? = nil) async throws -> HTTPResult {
            let nonce = try await nonce()
            return try await finalize(token(nonce: nonce, subject: subject, email: email), nonce: nonce, bearer: bearer)
        }
    }

    static func withApple(
        developerKey: Bool = false, _ configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: (Apple) async throws -> Void
    ) async throws {
        let standIn = try await AppleStandIn.start()
        standIn.update { $0.jwks = keys.jwks("apple-test-1", "apple-test-2") }
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey-\(UUID().uuidString).p8")
        try Data(developerKeyPEM.utf8).write(to: keyFile)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        do {
            try await withServer({ c in
                c.appleClientIDs = [Self.webClientID, AppleClaims.clientID]
                c.appleJWKSURL = standIn.keysURL
                c.appleTokenURL = standIn.tokenURL
                c.appleRevokeURL = standIn.revokeURL
                if developerKey {
                    c.appleTeamID = "TEAMID1234"
                    c.appleKeyID = "KEYID12345"
                    c.applePrivateKeyPath = keyFile.path
                }
                configure(&c)
            }) { server, ceremonies, client in
                try await body(Apple(server: server, standIn: standIn, client: client, ceremonies: ceremonies))
            }
        } catch {
            await standIn.stop()
            throw error
        }
        await standIn.stop()
    }

    @Test func anAppFirstCreatesAnAccountThenSignsInToIt() async throws {
        try await Self.withApple { apple in
            let first = try await apple.signIn()
            #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self))")
            #expect(first.json["created"] as? Bool == true)
            #expect(first.json["linked"] as? Bool == false)
            // Named after the email Apple shared, the name being free.
            #expect(first.json["user_name"] as? String == AppleClaims.email)
            #expect(first.setCookie?.contains("session=") == true)
            let session = try #require(first.json["session"] as? String)
            let me = try await apple.client.get("/me", bearer: session)
            let linked = try #require(me.json["apple"] as? [String: Any])
            #expect(linked["sub"] as? String == AppleClaims.subject)
            #expect(linked["is_private_email"] as? Bool == true)

            let again = try await apple.signIn()
            #expect(again.status == 200)
            #expect(again.json["created"] as? Bool == false)
            #expect(again.json["user_name"] as? String == AppleClaims.email)
            let events = try await EventsTests.events(apple.client, session).items
            #expect(events.map { $0["type"] as? String } == ["sign_in", "sign_in", "apple_linked"])
            #expect((events.first?["details"] as? [String: String])?["method"] == "apple")

            // Without an email: apple- and 12 hex digits of the subject's SHA-256.
            let nameless = try await apple.signIn(subject: "000999.other", email: nil)
            let name = try #require(nameless.json["user_name"] as? String)
            #expect(name.hasPrefix("apple-") && name.count == 18, "\(name)")
        }
    }

    /// A token without a nonce (a native app that sent none) signs in once: replaying it (the
    /// review opened three sessions with one) is refused and opens nothing.
    @Test func withRegistrationClosedAnUnknownAppleIDOpensNoAccount() async throws {
        try await Self.withApple({ $0.registration = .closed }) { apple in
            let refused = try await apple.signIn()
            #expect(refused.status == 403)
            #expect(refused.json["error"] as? String == "registration_closed")
            #expect(try await apple.server.app.store.appleLink(issuer: "https://appleid.apple.com", subject: AppleClaims.subject) == nil)
            #expect(try await apple.server.app.store.user(nameKey: AppleClaims.email) == nil)
        }
    }

    @Test func anIdentityTokenWithoutANonceSignsInOnce() async throws {
        try await Self.withApple { apple in
            let token = apple.token(nonce: nil, subject: "000888.once")
            let first = try await apple.finalize(token, nonce: nil)
            #expect(first.status == 200)
            for _ in 0..<2 {
                let replay = try await apple.finalize(token, nonce: nil)
                #expect(replay.status == 400 && replay.error == "token_replayed")
                #expect(replay.setCookie == nil)
            }
            let user = try #require(try await apple.server.app.store.appleLink(issuer: AppleClaims.issuer, subject: "000888.once"))
            #expect(try await apple.server.app.store.events(userHandle: user.userHandle, before: nil, limit: 10)
                .filter { $0.type == "sign_in" }.count == 1)
        }
    }

    /// The `user` JSON beside the token is unsigned: a new account takes its name from the
    /// token's email or the subject, never from there (it only gives the display name).
    @Test func aNewAccountIsNotNamedByTheUnsignedUserJSON() async throws {
        try await Self.withApple { apple in
            let nonce = try await apple.nonce()
            let result = try await apple.finalize(
                apple.token(nonce: nonce, subject: "000999.unsigned", email: nil), nonce: nonce,
                extra: ["user": ["email": "ceo@example.com", "name": ["firstName": "Pat", "lastName": "Doe"]]])
            #expect(result.status == 200)
            let name = try #require(result.json["user_name"] as? String)
            #expect(name.hasPrefix("apple-") && name != "ceo@example.com", "\(name)")
            let session = try #require(result.json["session"] as? String)
            #expect(try await apple.client.get("/me", bearer: session).json["display_name"] as? String == "Pat Doe")
        }
    }

    @Test func aNonceIsSpentOnceAndMustMatch() async throws {
        try await Self.withApple { apple in
            let nonce = try await apple.nonce()
            let token = apple.token(nonce: nonce)
            #expect(try await apple.finalize(token, nonce: nonce).status == 200)
            // The same token again: spent, whatever nonce comes with it.
            #expect(try await apple.finalize(token, nonce: nonce).error == "token_replayed")
            // Another token for the spent nonce: the nonce is spent.
            #expect(try await apple.finalize(apple.token(nonce: nonce, subject: "000222.other"), nonce: nonce).error == "nonce_mismatch")
            // A token carrying a nonce, sent without it: refused, not a replay.
            #expect(try await apple.finalize(apple.token(nonce: nonce, subject: "000333.other"), nonce: nil).error == "nonce_mismatch")
            // Another issued nonce than the token's.
            let other = try await apple.nonce()
            #expect(try await apple.finalize(apple.token(nonce: nonce), nonce: other).error == "nonce_mismatch")
            // A nonce never issued.
            let made = Base64URL.encode(SecureRandom.bytes(32))
            #expect(try await apple.finalize(apple.token(nonce: made), nonce: made).error == "nonce_mismatch")
            // The hex SHA-256 of the nonce in the claim (as Firebase sets request.nonce).
            let hashed = Digest.sha256.hash(Array(other.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(try await apple.finalize(apple.token(nonce: hashed), nonce: other).status == 200)
            // Expired: past --challenge-ttl.
            let late = try await apple.nonce()
            apple.server.clock.advance(301)
            #expect(try await apple.finalize(apple.token(nonce: late), nonce: late).error == "nonce_mismatch")
        }
    }

    @Test func eachCheckRefusesWithItsCodeOverHTTP() async throws {
        try await Self.withApple { (apple: Apple) async throws in
            let now = apple.server.clock.now()
            #expect(try await apple.post("not.a.token").error == "invalid_token")
            #expect(try await apple.post(Self.keys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: now), alg: "none", signing: .unsigned)).error
                == "invalid_token")
            #expect(try await apple.post(Self.keys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: now)) + "x").error
                == "invalid_token")
            #expect(try await apple.post(Self.keys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: now, extra: ["iss": "https://evil.example"])))
                .error == "issuer_mismatch")
            #expect(try await apple.post(Self.keys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: now, audience: "com.other.app")))
                .error == "audience_mismatch")
            #expect(try await apple.post(Self.keys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: now, issuedAgo: 3600)))
                .error == "token_expired")
            #expect(try await apple.post(Self.keys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: now, subject: ""))).error
                == "invalid_token")
            // Signed by key 2 with key 1's kid: never "the first key that verifies".
            #expect(try await apple.post(Self.keys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: now), signing: .key("apple-test-2")))
                .error == "invalid_token")
            // Nothing was created by any of them.
            #expect(try await apple.server.app.store.user(nameKey: AppleClaims.email) == nil)
        }
    }

    @Test func aSignedInUserLinksTheirAppleIDAndEitherWayThenWorks() async throws {
        try await Self.withApple { apple in
            let (registered, _, _) = try await apple.ceremonies.register("alice")
            let passkeySession = try #require(registered.json["session"] as? String)
            let linked = try await apple.signIn(bearer: passkeySession)
            #expect(linked.status == 200)
            #expect(linked.json["linked"] as? Bool == true)
            #expect(linked.json["created"] as? Bool == false)
            #expect(linked.json["user_name"] as? String == "alice")

            // Another account's session does not steal the linked Apple ID: it signs in alice.
            let (bob, _, _) = try await apple.ceremonies.register("bob")
            let bobSession = try #require(bob.json["session"] as? String)
            let asBob = try await apple.signIn(bearer: bobSession)
            #expect(asBob.json["user_name"] as? String == "alice")
            #expect(asBob.json["linked"] as? Bool == false)
            // Bob cannot link a second Apple ID to alice either way; a second Apple ID links to bob.
            let bobsApple = try await apple.signIn(subject: "000777.bob", email: nil, bearer: bobSession)
            #expect(bobsApple.json["user_name"] as? String == "bob")
            #expect(bobsApple.json["linked"] as? Bool == true)
            // alice signed in with Apple cannot link another Apple ID to her account: a session
            // opened by Apple must first confirm with her passkey (step-up), and even then she
            // has one Apple ID already.
            let appleSession = try #require(linked.json["session"] as? String)
            #expect(try await apple.signIn(subject: "000888.third", email: nil, bearer: appleSession).error == "reauthentication_required")
        }
    }

    @Test func unlinkingEndsAppleSessionsAndIsRefusedWhenItIsTheLastWayIn() async throws {
        try await Self.withApple { apple in
            // An Apple-only account cannot unlink.
            let only = try await apple.signIn(subject: "000111.only", email: nil)
            let onlySession = try #require(only.json["session"] as? String)
            let refused = try await apple.client.send("DELETE", "/siwa/link", bearer: onlySession)
            #expect(refused.status == 409)
            #expect(refused.error == "last_sign_in_method")

            let (registered, _, _) = try await apple.ceremonies.register("carol")
            let passkeySession = try #require(registered.json["session"] as? String)
            let linked = try await apple.signIn(subject: "000222.carol", email: nil, bearer: passkeySession)
            let appleSession = try #require(linked.json["session"] as? String)
            // A sensitive action: a stale session must step up first (docs/contracts/accounts.md).
            apple.server.clock.advance(301)
            #expect(try await apple.client.send("DELETE", "/siwa/link", bearer: passkeySession).error == "reauthentication_required")
            #expect(try await apple.client.get("/siwa/initialize", bearer: passkeySession).json["error"] as? String == "reauthentication_required")
            apple.server.clock.advance(-301)
            #expect(try await apple.client.send("DELETE", "/siwa/link", bearer: passkeySession).status == 200)
            #expect(try await apple.client.get("/me", bearer: appleSession).status == 401)
            let me = try await apple.client.get("/me", bearer: passkeySession)
            #expect(me.status == 200)
            #expect(me.json["apple"] is NSNull)
            #expect(try await apple.client.send("DELETE", "/siwa/link", bearer: passkeySession).error == "not_linked")
            let events = try await EventsTests.events(apple.client, passkeySession).items
            #expect(events.first?["type"] as? String == "apple_unlinked")
        }
    }

    @Test func keysRotateAreRefetchedSparinglyAndSurviveAnOutage() async throws {
        try await Self.withApple { apple in
            apple.standIn.update { $0.jwks = Self.keys.jwks("apple-test-1") }
            #expect(try await apple.signIn().status == 200)
            let afterFirst = apple.standIn.read(\.keyFetches)
            #expect(afterFirst == 1)
            // Apple rotates to key 3: a token with its kid makes one refetch, and passes.
            apple.standIn.update { $0.jwks = Self.keys.jwks("apple-test-1", "apple-test-3") }
            let nonce = try await apple.nonce()
            #expect(try await apple.finalize(apple.token(kid: "apple-test-3", nonce: nonce), nonce: nonce).status == 200)
            #expect(apple.standIn.read(\.keyFetches) == afterFirst + 1)
            // Unknown kids within the minute: refused with no fetch at all.
            for _ in 0..<5 {
                #expect(try await apple.finalize(apple.token(kid: "apple-test-2"), nonce: nil).error == "invalid_token")
            }
            #expect(apple.standIn.read(\.keyFetches) == afterFirst + 1)
            // Apple is down: the keys in hand keep serving.
            apple.standIn.update { $0.down = true }
            apple.server.clock.advance(2 * 3600)
            #expect(try await apple.signIn().status == 200)
            #expect(apple.standIn.read(\.keyFetches) > afterFirst + 1)
            let scrape = try await MetricsTests.scrape(apple.client)
            #expect(scrape.value("passkey_apple_jwks_refresh_total", ["result": "ok"]) == 2)
            #expect(scrape.value("passkey_apple_jwks_refresh_total", ["result": "error"]) >= 1)
            #expect(scrape.value("passkey_ceremonies_total", ["ceremony": "siwa", "outcome": "ok"]) == 3)
            #expect(scrape.value("passkey_ceremonies_total", ["ceremony": "siwa", "outcome": "refused", "error": "invalid_token"]) == 5)
        }
    }

    @Test func withNoKeysAtAllTheAnswerIs503() async throws {
        try await Self.withApple { apple in
            apple.standIn.update { $0.down = true }
            let result = try await apple.finalize(apple.token(), nonce: nil)
            #expect(result.status == 503)
            #expect(result.error == "apple_keys_unavailable")
        }
    }

    @Test func aRestartUsesTheKeysKeptInTheDatabase() async throws {
        try await Self.withApple { apple in
            #expect(try await apple.signIn().status == 200)
            apple.standIn.update { $0.down = true }
            // A second server on the same database, Apple unreachable: the stored keys serve.
            let database = apple.server.postgresDatabase ?? apple.server.directory.appendingPathComponent("db.sqlite").path
            let second = try await TestServer.start { c in
                c.database = database
                c.appleClientIDs = [AppleClaims.clientID]
                c.appleJWKSURL = apple.standIn.keysURL
            }
            let client = Client(base: second.base)
            let nonce = try await client.get("/siwa/initialize").json["nonce"] as? String ?? ""
            let token = Self.keys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: second.clock.now(), nonce: nonce))
            let result = try await client.post("/siwa/finalize", json: ["identity_token": token, "nonce": nonce])
            await second.stop()
            #expect(result.status == 200, "\(String(decoding: result.body, as: UTF8.self))")
        }
    }

    @Test func notificationsUnlinkOnceAndUpdateTheEmailFlag() async throws {
        try await Self.withApple { apple in
            let (registered, _, _) = try await apple.ceremonies.register("dora")
            let passkeySession = try #require(registered.json["session"] as? String)
            let linked = try await apple.signIn(subject: "000333.dora", bearer: passkeySession)
            let appleSession = try #require(linked.json["session"] as? String)
            let now = apple.server.clock.now()
            func notify(_ claims: [String: Any], kid: String = "apple-test-1") async throws -> HTTPResult {
                try await apple.client.post(
                    "/siwa/notifications", json: ["payload": Self.keys.token(kid: kid, claims: claims, signing: .key("apple-test-1"))])
            }
            let disabled = AppleClaims.notification(now: now, type: "email-disabled", subject: "000333.dora", jti: "n-1")
            #expect(try await notify(disabled).status == 200)
            let store = apple.server.app.store
            let link = try #require(try await store.appleLink(issuer: AppleClaims.issuer, subject: "000333.dora"))
            #expect(!link.emailEnabled)

            let revoked = AppleClaims.notification(now: now, type: "consent-revoked", subject: "000333.dora", jti: "n-2", eventsAsString: false)
            #expect(try await notify(revoked).status == 200)
            #expect(try await store.appleLink(issuer: AppleClaims.issuer, subject: "000333.dora") == nil)
            #expect(try await apple.client.get("/me", bearer: appleSession).status == 401)
            #expect(try await apple.client.get("/me", bearer: passkeySession).status == 200)
            // Apple retries: the same jti is answered 200 and changes nothing.
            #expect(try await notify(revoked).status == 200)
            let types = try await EventsTests.events(apple.client, passkeySession).items.compactMap { $0["type"] as? String }
            #expect(types.filter { $0 == "apple_unlinked" }.count == 1)

            // Verified like a token.
            #expect(try await notify(AppleClaims.notification(now: now, type: "email-enabled", audience: "com.other", jti: "n-3")).error
                == "audience_mismatch")
            #expect(try await notify(AppleClaims.notification(now: now, type: "email-enabled", jti: "n-4"), kid: "nope").error
                == "invalid_token")
            #expect(try await apple.client.post("/siwa/notifications", json: ["payload": "garbage"]).error == "invalid_token")
        }
    }

    /// The browser binding cookie that `GET /siwa/initialize` set, as a Cookie header's pair.
    static func bindingCookie(_ result: HTTPResult) throws -> String {
        let setCookie = try #require(result.setCookie)
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("Path=/siwa"))
        return String(try #require(setCookie.split(separator: ";").first))
    }

    @Test func theWebFlowCallbackChecksStateAndRedirects() async throws {
        try await Self.withApple { apple in
            let initializeResult = try await apple.client.get("/siwa/initialize")
            let cookie = try Self.bindingCookie(initializeResult)
            let initialize = initializeResult.json
            let nonce = try #require(initialize["nonce"] as? String)
            let state = try #require(initialize["state"] as? String)
            let authorize = try #require((initialize["authorize_url"] as? String).flatMap(URLComponents.init(string:)))
            let query = Dictionary(uniqueKeysWithValues: (authorize.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(query["response_mode"] == "form_post")
            #expect(query["client_id"] == Self.webClientID)
            #expect(query["nonce"] == nonce && query["state"] == state)
            #expect(query["redirect_uri"] == apple.server.origin + "/siwa/callback")

            let token = Self.keys.token(
                kid: "apple-test-1", claims: AppleClaims.identity(now: apple.server.clock.now(), audience: Self.webClientID, nonce: nonce))
            func post(_ form: String, cookie: String? = cookie) async throws -> String {
                let request = "POST /siwa/callback HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + (cookie.map { "Cookie: \($0)\r\n" } ?? "")
                    + "Origin: https://appleid.apple.com\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n" + form
                return try await RawHTTP.exchange(port: apple.server.port, request: Array(request.utf8))
            }
            // A state that is not the nonce's: back to the page with the code, no session.
            let forged = try await post("id_token=\(token)&state=\(Base64URL.encode(SecureRandom.bytes(32)))")
            #expect(forged.hasPrefix("HTTP/1.1 303"))
            #expect(forged.contains("location: /?error=nonce_mismatch") || forged.contains("Location: /?error=nonce_mismatch"), "\(forged)")
            #expect(!forged.lowercased().contains("set-cookie"))
            // The right state from a browser that did not start the flow (no binding cookie, or
            // another browser's): refused, nothing spent, no session.
            let otherBrowser = try Self.bindingCookie(try await apple.client.get("/siwa/initialize"))
            for foreign in [nil, otherBrowser] as [String?] {
                let refused = try await post("id_token=\(token)&state=\(state)", cookie: foreign)
                #expect(refused.lowercased().contains("location: /?error=nonce_mismatch"), "\(refused)")
                #expect(!refused.lowercased().contains("set-cookie: session="))
            }
            let user = #"{"name":{"firstName":"Web","lastName":"User"},"email":"web@example.com"}"#
            let encodedUser = user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let good = try await post("id_token=\(token)&state=\(state)&user=\(encodedUser)")
            #expect(good.hasPrefix("HTTP/1.1 303"), "\(good)")
            #expect(good.lowercased().contains("location: /\r\n"))
            #expect(good.lowercased().contains("set-cookie: session="))
            // The token is spent, and so is the nonce (another token carrying it is refused).
            #expect(try await post("id_token=\(token)&state=\(state)").lowercased().contains("location: /?error=token_replayed"))
            let second = Self.keys.token(
                kid: "apple-test-1",
                claims: AppleClaims.identity(now: apple.server.clock.now(), audience: Self.webClientID, subject: "000777.second", nonce: nonce))
            #expect(try await post("id_token=\(second)&state=\(state)").lowercased().contains("location: /?error=nonce_mismatch"))
            // JSON to the callback is refused (415): only Apple's form post.
            #expect(try await apple.client.post("/siwa/callback", json: ["id_token": token]).status == 415)
        }
    }

    /// The redirect URI is built from the first origin configured, whatever else is listed (a
    /// set's first element differed between restarts and between instances).
    @Test func theRedirectURIIsThePrimaryOrigin() async throws {
        let origins = (0..<8).map { "https://o\($0).example.com" }
        try await Self.withApple({ $0.origins = origins; $0.relatedOrigins = ["https://related.example.org"] }) { apple in
            let initialize = try await apple.client.get("/siwa/initialize").json
            let authorize = URLComponents(string: initialize["authorize_url"] as? String ?? "")
            #expect(authorize?.queryItems?.first { $0.name == "redirect_uri" }?.value == "https://o0.example.com/siwa/callback")
        }
    }

    @Test func theRedirectURICanBeSetOnItsOwn() async throws {
        try await Self.withApple({ $0.appleRedirectURI = "https://auth.example.com/apple/callback" }) { apple in
            let initialize = try await apple.client.get("/siwa/initialize").json
            let authorize = URLComponents(string: initialize["authorize_url"] as? String ?? "")
            #expect(authorize?.queryItems?.first { $0.name == "redirect_uri" }?.value == "https://auth.example.com/apple/callback")
        }
    }

    /// The web flow is OpenID Connect's `code id_token`: the token's `c_hash` must hash the code
    /// that came beside it (a code swapped in is refused before anything is spent), and the
    /// sign-in's event records Apple's `auth_time`.
    @Test func theWebFlowsCodeMustBeTheOneTheTokenHashes() async throws {
        try await Self.withApple { apple in
            let initializeResult = try await apple.client.get("/siwa/initialize")
            let cookie = try Self.bindingCookie(initializeResult)
            let nonce = try #require(initializeResult.json["nonce"] as? String)
            let state = try #require(initializeResult.json["state"] as? String)
            let code = "c" + Base64URL.encode(SecureRandom.bytes(24))
            let codeHash = Base64URL.encode(Array(Digest.sha256.hash(Array(code.utf8)).prefix(16)))
            let authTime = Int(apple.server.clock.now().timeIntervalSince1970) - 120
            func token(_ extra: [String: Any]) -> String {
                Self.keys.token(
                    kid: "apple-test-1",
                    claims: AppleClaims.identity(now: apple.server.clock.now(), audience: Self.webClientID, nonce: nonce, extra: extra))
            }
            func post(_ form: String) async throws -> String {
                let request = "POST /siwa/callback HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Cookie: \(cookie)\r\nOrigin: https://appleid.apple.com\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n" + form
                return try await RawHTTP.exchange(port: apple.server.port, request: Array(request.utf8))
            }
            let good = token(["c_hash": codeHash, "auth_time": authTime])
            let swapped = try await post("code=other-code&id_token=\(good)&state=\(state)")
            #expect(swapped.lowercased().contains("location: /?error=c_hash_mismatch"), "\(swapped)")
            let unbound = try await post("code=\(code)&id_token=\(token(["auth_time": authTime]))&state=\(state)")
            #expect(unbound.lowercased().contains("location: /?error=c_hash_mismatch"), "\(unbound)")
            // Nothing was spent: the right code with its token signs in.
            let signedIn = try await post("code=\(code)&id_token=\(good)&state=\(state)")
            #expect(signedIn.lowercased().contains("location: /\r\n"), "\(signedIn)")
            let cookieLine = try #require(signedIn.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: session=") })
            let session = String(cookieLine.dropFirst("set-cookie: session=".count).prefix { $0 != ";" })
            let signIn = try #require(try await EventsTests.events(apple.client, session).items.first { $0["type"] as? String == "sign_in" })
            let expected = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(authTime)))
            #expect((signIn["details"] as? [String: Any])?["apple_auth_time"] as? String == expected, "\(signIn)")
            // Recorded, not trusted: the session Apple opened is not a fresh passkey ceremony.
            let sessions = try #require(try await apple.client.get("/me/sessions", bearer: session).json["sessions"] as? [[String: Any]])
            #expect(sessions.first?["auth_time"] as? String != expected)
        }
    }

    /// A native app's finalize with an authorization code: a `c_hash` present must match it.
    @Test func aNativeAppsCodeIsCheckedAgainstCHashWhenTheTokenHasOne() async throws {
        try await Self.withApple { apple in
            let nonce = try await apple.nonce()
            let wrong = apple.token(nonce: nonce, extra: ["c_hash": "LDktKdoQak3Pk0cnXxCltA"])
            #expect(try await apple.finalize(wrong, nonce: nonce, extra: ["authorization_code": "not-that-code"]).error == "c_hash_mismatch")
            let plain = apple.token(nonce: nonce)
            #expect(try await apple.finalize(plain, nonce: nonce, extra: ["authorization_code": "a-code"]).status == 200)
        }
    }

    @Test func theWebFlowLinksToTheAccountThatStartedIt() async throws {
        try await Self.withApple { apple in
            let (registered, _, _) = try await apple.ceremonies.register("erin")
            let session = try #require(registered.json["session"] as? String)
            let initializeResult = try await apple.client.get("/siwa/initialize", bearer: session)
            let cookie = try Self.bindingCookie(initializeResult)
            let initialize = initializeResult.json
            let nonce = try #require(initialize["nonce"] as? String)
            let state = try #require(initialize["state"] as? String)
            #expect(state.contains("."))
            func callback(subject: String, cookie: String?) async throws -> String {
                let token = Self.keys.token(
                    kid: "apple-test-1",
                    claims: AppleClaims.identity(now: apple.server.clock.now(), audience: Self.webClientID, subject: subject, nonce: nonce))
                let form = "id_token=\(token)&state=\(state)"
                let request = "POST /siwa/callback HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + (cookie.map { "Cookie: \($0)\r\n" } ?? "")
                    + "Content-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n" + form
                return try await RawHTTP.exchange(port: apple.server.port, request: Array(request.utf8))
            }
            // The hijack: erin sends her Apple URL to a victim, whose browser posts the victim's
            // token with erin's state but without erin's binding cookie. Refused, nothing linked.
            let hijack = try await callback(subject: "000666.victim", cookie: nil)
            #expect(hijack.lowercased().contains("location: /?error=nonce_mismatch"), "\(hijack)")
            #expect(try await apple.server.app.store.appleLink(issuer: AppleClaims.issuer, subject: "000666.victim") == nil)

            // The right browser: nothing is linked yet; the page is asked to confirm, with the
            // pending link in its cookie and no new session.
            let answer = try await callback(subject: "000444.erin", cookie: cookie)
            #expect(answer.lowercased().contains("location: /?siwa=confirm-link\r\n"), "\(answer)")
            // The binding is spent with the flow: the callback clears its cookie.
            #expect(answer.contains("siwa_binding=; Path=/siwa; Max-Age=0"), "\(answer)")
            #expect(!answer.lowercased().contains("set-cookie: session="))
            #expect(try await apple.server.app.store.appleLink(issuer: AppleClaims.issuer, subject: "000444.erin") == nil)
            let pendingPair = try #require(answer.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: siwa_link=") })
            #expect(pendingPair.contains("HttpOnly") && pendingPair.contains("SameSite=Strict") && pendingPair.contains("Path=/siwa"))
            let pending = String(pendingPair.dropFirst("set-cookie: ".count).split(separator: ";")[0])

            func confirm(bearer: String?, cookie: String?) async throws -> HTTPResult {
                var headers = ["Content-Type": "application/json"]
                if let cookie { headers["Cookie"] = cookie }
                return try await apple.client.send("POST", "/siwa/link/confirm", body: Data("{}".utf8), bearer: bearer, headers: headers)
            }
            // Another account cannot take it, nor can anyone without the cookie or with a forged one.
            let (other, _, _) = try await apple.ceremonies.register("mallory")
            let otherSession = try #require(other.json["session"] as? String)
            #expect(try await confirm(bearer: otherSession, cookie: pending).error == "no_pending_link")
            #expect(try await confirm(bearer: session, cookie: nil).error == "no_pending_link")
            #expect(try await confirm(bearer: session, cookie: pending + "x").error == "no_pending_link")
            #expect(try await confirm(bearer: nil, cookie: pending).status == 401)
            #expect(try await apple.server.app.store.appleLink(issuer: AppleClaims.issuer, subject: "000444.erin") == nil)

            // Its owner confirms: linked, with the event; once only.
            let confirmed = try await confirm(bearer: session, cookie: pending)
            #expect(confirmed.status == 200, "\(confirmed.json)")
            #expect(confirmed.setCookie?.hasPrefix("siwa_link=; Path=/siwa; Max-Age=0") == true)
            let link = try await apple.server.app.store.appleLink(issuer: AppleClaims.issuer, subject: "000444.erin")
            let erin = try await apple.server.app.store.user(nameKey: "erin")
            #expect(link?.userHandle == erin?.handle)
            #expect(try await confirm(bearer: session, cookie: pending).error == "token_replayed")
            let events = try await EventsTests.events(apple.client, session).items.compactMap { $0["type"] as? String }
            #expect(events.filter { $0 == "apple_linked" }.count == 1)
        }
    }

    @Test func deletingTheAccountRevokesItsAppleTokenAtApple() async throws {
        try await Self.withApple(developerKey: true) { apple in
            let (registered, _, _) = try await apple.ceremonies.register("gil")
            let session = try #require(registered.json["session"] as? String)
            let nonce = try await apple.nonce()
            let linked = try await apple.finalize(
                apple.token(nonce: nonce, subject: "000556.gil", email: nil), nonce: nonce, bearer: session,
                extra: ["authorization_code": "good-code"])
            #expect(linked.status == 200)
            let deleted = try await apple.client.send("DELETE", "/me", body: Data(#"{"confirm":"gil"}"#.utf8), bearer: session)
            #expect(deleted.status == 200, "\(String(decoding: deleted.body, as: UTF8.self))")
            #expect(try await apple.server.app.store.appleLink(issuer: AppleClaims.issuer, subject: "000556.gil") == nil)
            // In the background: it arrives within a moment.
            var revoked: [String: String]?
            for _ in 0..<100 where revoked == nil {
                revoked = apple.standIn.read(\.revokeForms).first
                if revoked == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(revoked?["token"] == "r.stand-in" && revoked?["token_type_hint"] == "refresh_token")
        }
    }

    @Test func theDeveloperKeyExchangesTheCodeAndRevokesOnUnlink() async throws {
        try await Self.withApple(developerKey: true) { apple in
            let (registered, _, _) = try await apple.ceremonies.register("fay")
            let session = try #require(registered.json["session"] as? String)
            let nonce = try await apple.nonce()
            let result = try await apple.finalize(
                apple.token(nonce: nonce, subject: "000555.fay", email: nil), nonce: nonce, bearer: session,
                extra: ["authorization_code": "good-code"])
            #expect(result.status == 200)
            let form = try #require(apple.standIn.read(\.tokenForms).first)
            #expect(form["client_id"] == AppleClaims.clientID)
            #expect(form["grant_type"] == "authorization_code")
            // The client secret: an ES256 JWT by the developer key, for Apple's audience.
            let secret = try CompactJWS(try #require(form["client_secret"]))
            let header = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(String(form["client_secret"]!.split(separator: ".")[0])) ?? [])) as? [String: Any]
            #expect(header?["alg"] as? String == "ES256" && header?["kid"] as? String == "KEYID12345")
            let claims = try JSONSerialization.jsonObject(with: Data(secret.payload)) as? [String: Any]
            #expect(claims?["iss"] as? String == "TEAMID1234" && claims?["sub"] as? String == AppleClaims.clientID)
            #expect(claims?["aud"] as? String == "https://appleid.apple.com")
            let key = try PrivateKey(pem: Self.developerKeyPEM)
            let der = try ECDSASignature.der(concatenated: secret.signature)
            #expect(key.publicKey.isValidSignature(der, for: secret.signingInput, algorithm: .ecdsa(.sha256)))
            let link = try await apple.server.app.store.appleLink(issuer: AppleClaims.issuer, subject: "000555.fay")
            #expect(link?.refreshToken == "r.stand-in")

            #expect(try await apple.client.send("DELETE", "/siwa/link", bearer: session).status == 200)
            let revoked = try #require(apple.standIn.read(\.revokeForms).first)
            #expect(revoked["token"] == "r.stand-in" && revoked["token_type_hint"] == "refresh_token")
        }
    }

    @Test func offWithoutAClientID() async throws {
        try await withServer { (_, _, client) async throws in
            #expect(try await client.get("/siwa/initialize").status == 404)
            #expect(try await client.get("/healthz").json["sign_in_with_apple"] as? Bool == false)
        }
    }
}
