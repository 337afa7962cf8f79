import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyMfB
import PasskeyApp
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyStorage
import PasskeyServerTestSupport
import Testing

/// Messages for Business end to end: the business's calls, the customer's browser at the OAuth
/// endpoints, and a simulated device that encrypts what it got to the request's key.
@Suite struct MfBTests {
    static let apiToken = "business-api-token-0123456789"
    static let clientID = "mfb-client"
    static let clientSecret = "mfb-client-secret"
    static let redirectURI = "https://auth.example.com/callback"

    struct Business {
        let server: TestServer
        let client: Client
        let ceremonies: Ceremonies

        func call(_ method: String, _ path: String, json: Any? = nil, token: String? = MfBTests.apiToken) async throws -> HTTPResult {
            var headers: [String: String] = [:]
            if let token { headers["Authorization"] = "Bearer \(token)" }
            let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
            return try await client.send(method, path, body: body, headers: headers)
        }

        /// A new request: its id, the 97-byte key, and the whole message.
        func request(state: String = "s-1") async throws -> (id: String, key: String, message: [String: Any]) {
            let created = try await call("POST", "/mfb/requests", json: ["scope": ["email", "profile"], "state": state])
            try #require(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
            let key = try #require(created.json["responseEncryptionKey"] as? String)
            return (try #require(created.json["requestIdentifier"] as? String), key, try #require(created.json["message"] as? [String: Any]))
        }

        /// The device's browser at the authorization endpoint, signed in with `session`.
        func authorize(key: String, session: String?, userHandle: String = "opaque-user-1", clientID: String = MfBTests.clientID,
                       redirectURI: String = MfBTests.redirectURI, state: String = "s-1") async throws -> HTTPResult {
            var components = URLComponents()
            components.queryItems = [
                .init(name: "response_type", value: "code"), .init(name: "client_id", value: clientID),
                .init(name: "redirect_uri", value: redirectURI), .init(name: "scope", value: "email profile"),
                .init(name: "state", value: state), .init(name: "responseEncryptionKey", value: key), .init(name: "userHandle", value: userHandle),
            ]
            let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
            let request = "GET /mfb/authorize?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + (session.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "Connection: close\r\n\r\n"
            let raw = try await RawHTTP.exchange(port: server.port, request: Array(request.utf8))
            return Self.parse(raw)
        }

        /// The authorization endpoint with exactly `parameters`, as a GET or (iOS 15 and later) a
        /// form post.
        func authorize(_ parameters: [(String, String)], session: String?, post: Bool = false) async throws -> HTTPResult {
            var components = URLComponents()
            components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
            let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
            let auth = session.map { "Authorization: Bearer \($0)\r\n" } ?? ""
            let request = post
                ? "POST /mfb/authorize HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)Content-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: \(query.utf8.count)\r\nConnection: close\r\n\r\n\(query)"
                : "GET /mfb/authorize?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)Connection: close\r\n\r\n"
            return Self.parse(try await RawHTTP.exchange(port: server.port, request: Array(request.utf8)))
        }

        /// The code in a redirect to redirect_uri.
        static func code(_ result: HTTPResult) -> String? {
            guard let location = result.header("Location"), let items = URLComponents(string: location)?.queryItems else { return nil }
            return items.first { $0.name == "code" }?.value
        }

        /// The MSP at the token endpoint, the client authenticated in the form or, with `basic`,
        /// by HTTP Basic. Raw, because a 401 with a Basic challenge stalls URLSession here.
        func token(code: String, secret: String = MfBTests.clientSecret, redirectURI: String = MfBTests.redirectURI,
                   basic: Bool = false, extra: String = "") async throws -> HTTPResult {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            var fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI)]
            if !basic { fields += [("client_id", MfBTests.clientID), ("client_secret", secret)] }
            let form = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&") + extra
            var request = "POST /mfb/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            if basic { request += "Authorization: Basic \(Data("\(MfBTests.clientID):\(secret)".utf8).base64EncodedString())\r\n" }
            request += "Content-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)"
            return Self.parse(try await RawHTTP.exchange(port: server.port, request: Array(request.utf8)))
        }

        /// The device's reply, as the MSP receives it: `plaintext` encrypted to the request's key.
        func respond(id: String, key: String, plaintext: String) async throws -> HTTPResult {
            let point = try #require(Data(base64Encoded: key))
            let token = try MfBToken.encrypt(plaintext: Array(plaintext.utf8), recipientPublicPoint: [UInt8](point))
            return try await respond(id: id, token: Data(token).base64EncodedString())
        }

        func respond(id: String, token: String) async throws -> HTTPResult {
            try await call("POST", "/mfb/responses", json: [
                "data": ["version": "1.0", "requestIdentifier": id, "authenticate": ["status": "authenticated", "token": token]],
            ])
        }

        static func parse(_ raw: String) -> HTTPResult {
            let head = raw.components(separatedBy: "\r\n\r\n").first ?? ""
            let lines = head.components(separatedBy: "\r\n")
            let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let body = raw.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            return HTTPResult(status: status, headers: headers, body: Data(body.utf8))
        }
    }

    static func withBusiness(
        redirectURIs: [String] = [redirectURI], _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (Business) async throws -> Void
    ) async throws {
        try await withServer({ c in
            c.mfbClientID = Self.clientID
            c.mfbClientSecret = Self.clientSecret
            c.mfbRedirectURIs = redirectURIs
            c.mfbAPIToken = Self.apiToken
            configure(&c)
        }) { server, ceremonies, client in
            try await body(Business(server: server, client: client, ceremonies: ceremonies))
        }
    }

    @Test func theMessageIsReadyToSend() async throws {
        try await Self.withBusiness { business in
            let (id, key, message) = try await business.request()
            #expect(message["type"] as? String == "interactive")
            let interactive = try #require(message["interactiveData"] as? [String: Any])
            #expect((interactive["bid"] as? String)?.hasPrefix("com.apple.messages.MSMessageExtensionBalloonPlugin:") == true)
            let data = try #require(interactive["data"] as? [String: Any])
            #expect(data["version"] as? String == "1.0")
            #expect(data["requestIdentifier"] as? String == id)
            let oauth = try #require((data["authenticate"] as? [String: Any])?["oauth2"] as? [String: Any])
            #expect(oauth["responseType"] as? String == "code")
            #expect(oauth["scope"] as? [String] == ["email", "profile"])
            #expect(oauth["state"] as? String == "s-1")
            #expect(oauth["responseEncryptionKey"] as? String == key)
            // The iOS 16 message (the default) carries no client secret: the business exchanges
            // the code the device returns.
            #expect(oauth["clientSecret"] == nil)
            #expect((interactive["receivedMessage"] as? [String: Any])?["title"] as? String == "Sign In")
            #expect(interactive["replyMessage"] is [String: Any])
            // The key: standard base64 of an uncompressed P-384 point.
            let point = try #require(Data(base64Encoded: key))
            #expect(point.count == 97 && point.first == 0x04)
            // A new key for every request.
            #expect(try await business.request().key != key)
            // Only the business: without the api token, 401.
            #expect(try await business.call("POST", "/mfb/requests", json: [:], token: nil).status == 401)
            #expect(try await business.call("POST", "/mfb/requests", json: [:], token: "wrong").error == "unauthorized")
        }
    }

    /// The legacy message: the device exchanges the code for an access token and returns that.
    @Test func legacyFlowWithAnAccessToken() async throws {
        try await Self.withBusiness({ $0.mfbMessage = "legacy" }) { business in
            let (registered, _, _) = try await business.ceremonies.register("mia")
            let session = try #require(registered.json["session"] as? String)
            let (id, key, message) = try await business.request()
            // The legacy message carries the client secret the device forwards to /mfb/token.
            let oauth = ((((message["interactiveData"] as? [String: Any])?["data"] as? [String: Any])?["authenticate"]
                as? [String: Any])?["oauth2"] as? [String: Any])
            #expect(oauth?["clientSecret"] as? String == Self.clientSecret)
            let authorized = try await business.authorize(key: key, session: session)
            #expect(authorized.status == 302)
            #expect(authorized.header("Location")?.hasPrefix(Self.redirectURI + "?") == true)
            #expect(authorized.header("Location")?.contains("state=s-1") == true)
            let code = try #require(Business.code(authorized))
            let token = try await business.token(code: code)
            #expect(token.status == 200, "\(String(decoding: token.body, as: UTF8.self))")
            #expect(token.json["token_type"] as? String == "Bearer")
            let accessToken = try #require(token.json["access_token"] as? String)
            #expect((token.json["expires_in"] as? Int ?? 0) > 0)
            // An OAuth 2.0 request (no openid): no ID token; and never a refresh token.
            #expect(token.json["id_token"] == nil && token.json["refresh_token"] == nil)
            // The code is single-use.
            #expect(try await business.token(code: code).json["error"] as? String == "invalid_grant")

            let answered = try await business.respond(id: id, key: key, plaintext: accessToken)
            #expect(answered.status == 200, "\(String(decoding: answered.body, as: UTF8.self))")
            #expect(answered.json["status"] as? String == "authenticated")
            #expect(answered.json["user_name"] as? String == "mia")
            let status = try await business.call("GET", "/mfb/requests/\(id)")
            #expect(status.json["status"] as? String == "authenticated")
            #expect(status.json["user_name"] as? String == "mia")
            // Answered: the same token again is 409, and the private key is gone.
            #expect(try await business.respond(id: id, key: key, plaintext: accessToken).status == 409)
            #expect(try await business.server.app.store.mfbRequest(id: id)?.privateKey == nil)
            let events = try await EventsTests.events(business.client, session).items
            #expect(events.first?["type"] as? String == "sign_in")
            #expect((events.first?["details"] as? [String: String])?["method"] == "mfb")
            // One answer counted ok, the second one refused.
            let scrape = try await MetricsTests.scrape(business.client)
            #expect(scrape.value("passkey_ceremonies_total", ["ceremony": "mfb", "outcome": "ok"]) == 1)
            #expect(scrape.value("passkey_ceremonies_total", ["ceremony": "mfb", "outcome": "refused", "error": "already_answered"]) == 1)
        }
    }

    /// The iOS 16 message: the device returns the authorization code itself.
    @Test func iOS16FlowWithTheCode() async throws {
        try await Self.withBusiness { business in
            let (registered, _, _) = try await business.ceremonies.register("noor")
            let session = try #require(registered.json["session"] as? String)
            let (id, key, _) = try await business.request()
            let code = try #require(Business.code(try await business.authorize(key: key, session: session)))
            let answered = try await business.respond(id: id, key: key, plaintext: code)
            #expect(answered.json["status"] as? String == "authenticated")
            #expect(answered.json["user_name"] as? String == "noor")
            // Spent by the reply: it cannot be exchanged any more.
            #expect(try await business.token(code: code).json["error"] as? String == "invalid_grant")
        }
    }

    @Test func theKeyAuditRefusesASwappedKeyAndRecordsIt() async throws {
        try await Self.withBusiness { business in
            let (registered, _, _) = try await business.ceremonies.register("omar")
            let session = try #require(registered.json["session"] as? String)
            let (_, key, _) = try await business.request()
            // A key no request of ours made (an attacker's): no code, an event.
            let attacker = try ECPrivateKey.generate(.p384)
            let swapped = try await business.authorize(key: Data(attacker.publicPoint).base64EncodedString(), session: session)
            #expect(swapped.status == 400)
            #expect(swapped.json["error"] as? String == "mfb_key_mismatch")
            #expect((swapped.json["message"] as? String)?.isEmpty == false, "every /mfb/authorize refusal has the contract's message")
            #expect(swapped.header("Location") == nil)
            let events = try await EventsTests.events(business.client, session).items
            #expect(events.first?["type"] as? String == "mfb_key_mismatch")
            // The userHandle is bound the first time, and must match afterwards.
            #expect(try await business.authorize(key: key, session: session, userHandle: "first").status == 302)
            #expect(try await business.authorize(key: key, session: session, userHandle: "second").json["error"] as? String == "mfb_key_mismatch")
            #expect(try await business.authorize(key: key, session: session, userHandle: "first").status == 302)
            // An expired request's key no longer passes, for its own device either.
            business.server.clock.advance(601)
            let expired = try await business.authorize(key: key, session: session, userHandle: "first")
            #expect(expired.status == 400 && expired.json["error"] as? String == "mfb_key_mismatch")
        }
    }

    /// redirect_uri may be omitted only when one is configured; another response_type goes back
    /// to it with the OAuth error and no code; the form post (iOS 15 and later) works as the GET.
    @Test func redirectURIResponseTypeAndFormPost() async throws {
        try await Self.withBusiness(redirectURIs: [Self.redirectURI, "https://auth.example.com/other"]) { business in
            let (registered, _, _) = try await business.ceremonies.register("ruth")
            let session = try #require(registered.json["session"] as? String)
            let (_, key, _) = try await business.request()
            let omitted = try await business.authorize(
                [("response_type", "code"), ("client_id", Self.clientID), ("responseEncryptionKey", key), ("userHandle", "u")], session: session)
            #expect(omitted.status == 400 && omitted.json["error"] as? String == "invalid_request" && omitted.header("Location") == nil)
            let second = try await business.authorize(key: key, session: session, redirectURI: "https://auth.example.com/other")
            #expect(second.header("Location")?.hasPrefix("https://auth.example.com/other?code=") == true)
        }
        try await Self.withBusiness { business in
            let (registered, _, _) = try await business.ceremonies.register("sam")
            let session = try #require(registered.json["session"] as? String)
            let (_, key, _) = try await business.request()
            let base = [("client_id", Self.clientID), ("state", "st"), ("responseEncryptionKey", key), ("userHandle", "u")]
            let implicit = try await business.authorize([("response_type", "token")] + base, session: session)
            let location = try #require(implicit.header("Location"))
            let items = URLComponents(string: location)?.queryItems ?? []
            #expect(implicit.status == 302 && location.hasPrefix(Self.redirectURI + "?"))
            #expect(items.first { $0.name == "error" }?.value == "unsupported_response_type")
            #expect(items.first { $0.name == "state" }?.value == "st" && !items.contains { $0.name == "code" })
            // The only configured redirect URI stands in for an omitted one; the form post.
            let posted = try await business.authorize([("response_type", "code")] + base, session: session, post: true)
            #expect(posted.status == 302 && posted.header("Location")?.hasPrefix(Self.redirectURI + "?code=") == true)
            // The business's other calls want the api token too.
            #expect(try await business.call("GET", "/mfb/requests/\(UUID().uuidString)", token: nil).status == 401)
            #expect(try await business.call("POST", "/mfb/responses", json: [:], token: "wrong").error == "unauthorized")
        }
    }

    @Test func clientAndRedirectAreCheckedFirstAndNeverRedirectedTo() async throws {
        try await Self.withBusiness { business in
            let (_, key, _) = try await business.request()
            let unknownClient = try await business.authorize(key: key, session: nil, clientID: "other")
            // invalid_request, with the contract's message (RFC 6749 §4.1.2.1 has no invalid_client here).
            #expect(unknownClient.status == 400 && unknownClient.json["error"] as? String == "invalid_request")
            #expect((unknownClient.json["message"] as? String)?.isEmpty == false)
            #expect(unknownClient.header("Location") == nil)
            let badRedirect = try await business.authorize(key: key, session: nil, redirectURI: "https://evil.example/cb")
            #expect(badRedirect.status == 400 && badRedirect.header("Location") == nil)
            #expect(badRedirect.json["error"] as? String == "invalid_request" && (badRedirect.json["message"] as? String)?.isEmpty == false)
            // Without a session: the provider holds the request and sends the browser to the
            // sign-in page, which continues it once signed in; the key audit runs then.
            let signIn = try await business.authorize(key: key, session: nil)
            #expect(signIn.status == 302)
            let location = try #require(signIn.header("Location"))
            let handle = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "authorization" }?.value)
            #expect(URLComponents(string: location)?.path == "/")
            let (registered, _, _) = try await business.ceremonies.register("held")
            let session = try #require(registered.json["session"] as? String)
            let resumed = Business.parse(try await RawHTTP.exchange(port: business.server.port, request: Array(
                "GET /oauth/authorize/resume?authorization=\(handle) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(session)\r\nConnection: close\r\n\r\n".utf8)))
            #expect(resumed.status == 302 && resumed.header("Location")?.hasPrefix(Self.redirectURI + "?code=") == true)
        }
    }

    @Test func theTokenEndpointFollowsRFC6749() async throws {
        try await Self.withBusiness { business in
            let (registered, _, _) = try await business.ceremonies.register("pia")
            let session = try #require(registered.json["session"] as? String)
            let (_, key, _) = try await business.request()
            let code = try #require(Business.code(try await business.authorize(key: key, session: session)))
            let wrongSecret = try await business.token(code: code, secret: "nope")
            #expect(wrongSecret.status == 401 && wrongSecret.json["error"] as? String == "invalid_client")
            let wrongBasic = try await business.token(code: code, secret: "nope", basic: true)
            #expect(wrongBasic.status == 401 && wrongBasic.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
            let twice = try await business.token(code: code, extra: "&code=\(code)")
            #expect(twice.status == 400 && twice.json["error"] as? String == "invalid_request")
            let otherGrant = try await business.token(code: code, extra: "&grant_type=password")
            #expect(otherGrant.status == 400)
            let wrongRedirect = try await business.token(code: code, redirectURI: "https://auth.example.com/other")
            #expect(wrongRedirect.status == 400 && wrongRedirect.json["error"] as? String == "invalid_grant")
            #expect(try await business.token(code: "made-up").json["error"] as? String == "invalid_grant")
            // None of those spent it; it lives 60 s.
            business.server.clock.advance(61)
            #expect(try await business.token(code: code).json["error"] as? String == "invalid_grant")
            // HTTP Basic client authentication works as well as the form.
            let (_, key2, _) = try await business.request(state: "s-2")
            let code2 = try #require(Business.code(try await business.authorize(key: key2, session: session, state: "s-2")))
            let viaBasic = try await business.token(code: code2, basic: true)
            #expect(viaBasic.status == 200 && viaBasic.json["token_type"] as? String == "Bearer", "\(String(decoding: viaBasic.body, as: UTF8.self))")
            #expect(viaBasic.header("Cache-Control") == "no-store" && viaBasic.header("Pragma") == "no-cache")
            #expect(wrongSecret.header("Pragma") == "no-cache")
        }
    }

    @Test func repliesThatFailLeaveTheRequestPending() async throws {
        try await Self.withBusiness { business in
            let (registered, _, _) = try await business.ceremonies.register("quin")
            let session = try #require(registered.json["session"] as? String)
            let (id, key, _) = try await business.request()
            let code = try #require(Business.code(try await business.authorize(key: key, session: session)))
            // Garbage, and a token for another key: one error, the request still pending.
            #expect(try await business.respond(id: id, token: "AAAA").json["error"] as? String == "mfb_decrypt_failed")
            let other = try await business.request()
            let forOther = try await business.respond(id: id, key: other.key, plaintext: code)
            #expect(forOther.status == 400 && forOther.json["error"] as? String == "mfb_decrypt_failed")
            // Decrypts, but is nothing issued for this request.
            #expect(try await business.respond(id: id, key: key, plaintext: "not-a-code").json["error"] as? String == "mfb_token_unknown")
            // A code of another request.
            let otherCode = try #require(Business.code(try await business.authorize(key: other.key, session: session)))
            #expect(try await business.respond(id: id, key: key, plaintext: otherCode).json["error"] as? String == "mfb_token_unknown")
            // A reply whose status is given twice is not strict JSON.
            let twice = Data(#"{"data":{"requestIdentifier":"\#(id)","authenticate":{"status":"failed","status":"authenticated","token":"AAAA"}}}"#.utf8)
            let ambiguous = try await business.client.send("POST", "/mfb/responses", body: twice, headers: ["Authorization": "Bearer \(Self.apiToken)"])
            #expect(ambiguous.status == 400 && ambiguous.error == "invalid_request")
            #expect(try await business.call("GET", "/mfb/requests/\(id)").json["status"] as? String == "pending")
            #expect(try await business.respond(id: id, key: key, plaintext: code).json["status"] as? String == "authenticated")
            #expect(try await business.respond(id: UUID().uuidString, key: key, plaintext: code).status == 404)
        }
    }

    @Test func aFailedReplyIsRecordedAndRequestsExpire() async throws {
        try await Self.withBusiness { business in
            let (id, _, _) = try await business.request()
            let failed = try await business.call("POST", "/mfb/responses", json: [
                "data": ["requestIdentifier": id, "authenticate": ["status": "failed", "errors": [
                    ["code": 2, "domain": "com.apple.icloud.messages.business.cryptor", "message": "Key is not UTF8"],
                ]]],
            ])
            #expect(failed.status == 200)
            #expect(failed.json["status"] as? String == "failed")
            let status = try await business.call("GET", "/mfb/requests/\(id)").json
            #expect(status["status"] as? String == "failed")
            #expect(((status["errors"] as? [[String: Any]])?.first?["message"] as? String) == "Key is not UTF8")
            let scrape = try await MetricsTests.scrape(business.client)
            #expect(scrape.value("passkey_ceremonies_total", ["ceremony": "mfb", "outcome": "refused", "error": "device_failed"]) == 1)

            let (late, lateKey, _) = try await business.request()
            business.server.clock.advance(601)
            #expect(try await business.call("GET", "/mfb/requests/\(late)").json["status"] as? String == "expired")
            #expect(try await business.respond(id: late, key: lateKey, plaintext: "x").status == 404)
            // On PostgreSQL one sweep runs at a time (a try-lock) and a round that finds the lock
            // taken (this server's own background sweeper) is skipped: the next round does it.
            var keyLeft = true
            for _ in 0..<20 where keyLeft {
                _ = try await business.server.app.service.sweep()
                keyLeft = try await business.server.app.store.mfbRequest(id: late)?.privateKey != nil
                if keyLeft { try await Task.sleep(for: .milliseconds(250)) }
            }
            #expect(!keyLeft)
            #expect(try await business.call("GET", "/mfb/requests/\(UUID().uuidString)").status == 404)
        }
    }
}
