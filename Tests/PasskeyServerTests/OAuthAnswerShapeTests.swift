import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyServerTestSupport
@testable import PasskeyServer
import PasskeyTestSupport
import Testing

/// The shapes OAuth clients parse: userinfo's answers without a token and with the token in the
/// header of an empty POST, and the token endpoint's rate limit and outage in RFC 6749 §5.2's
/// shape with its cache headers.
@Suite struct OAuthAnswerShapeTests {
    @Test func userinfoWithoutAnyTokenIs401WithTheBareChallenge() async throws {
        try await withServer { server, _, _ in
            let rp = TestRelyingParty(server: server, clientID: "x", secret: nil)
            for method in ["GET", "POST"] {
                let result = try await rp.raw(method, "/oauth/userinfo")
                #expect(result.status == 401, "\(method)")
                #expect(result.header("WWW-Authenticate") == "Bearer", "\(method)")
                #expect(result.error == nil, "\(method): RFC 6750 §3.1 gives no error code to a request without credentials")
                #expect(String(decoding: result.body, as: UTF8.self) == "{}", "\(method)")
            }
            // A token that is there but bad still names the error.
            let bad = try await rp.raw("GET", "/oauth/userinfo", headers: ["Authorization": "Bearer not-a-token"])
            #expect(bad.status == 401)
            #expect(bad.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)
        }
    }

    @Test func userinfoByPostWithTheTokenInTheHeaderAndNoBody() async throws {
        try await withServer { server, ceremonies, _ in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let rp = try await TestRelyingParty.register(server)
            let access = try #require(try await rp.tokens(for: ada.session).json["access_token"] as? String)
            // What OAuth client libraries send: a POST with the Bearer header, no body, no type.
            let empty = try await RawHTTP.request(
                port: server.port, "POST", "/oauth/userinfo", headers: [("Authorization", "Bearer \(access)"), ("Content-Length", "0")])
            #expect(empty.status == 200, "\(String(decoding: empty.body, as: UTF8.self))")
            #expect(empty.json["sub"] as? String == ada.userID)
        }
    }

    @Test func theTokenEndpointsRateLimitIsAnOAuthErrorWithItsCacheHeaders() async throws {
        try await withServer({ $0.rateLimitPerAddress = 2 }) { server, _, _ in
            let rp = TestRelyingParty(server: server, clientID: "nobody", secret: nil)
            var limited: HTTPResult?
            for _ in 0..<5 {
                let result = try await rp.token([("grant_type", "authorization_code"), ("code", "x")])
                if result.status == 429 {
                    limited = result
                    break
                }
            }
            let answer = try #require(limited)
            #expect(answer.error == "rate_limited")
            #expect(answer.json["error_description"] is String)
            #expect(answer.json["message"] == nil)
            #expect(answer.header("Cache-Control") == "no-store")
            #expect(answer.header("Pragma") == "no-cache")
            #expect(answer.header("Retry-After").flatMap(Int.init) != nil)
        }
    }

    @Test func anOutageAtAnOAuthEndpointIsTemporarilyUnavailable() throws {
        let response = try #require(RequestPolicyMiddleware.oauthAnswer(.unavailable))
        #expect(response.status.code == 503)
        #expect(response.headers[.cacheControl] == "no-store")
        #expect(response.headers[.init("Pragma")!] == "no-cache")
        #expect(response.headers[.retryAfter] == "1")
        #expect(RequestPolicyMiddleware.oauthAnswer(.invalidRequest("x")) == nil)
    }

    /// Every OAuth endpoint that answers a client in JSON is declared with the shape.
    @Test func everyOAuthEndpointAnswersRefusalsInTheShape() async throws {
        try await withServer(RequestPolicyTests.everything) { server, _, _ in
            for path in ["/oauth/token", "/mfb/token", "/oauth/revoke", "/oauth/introspect", "/oauth/par", "/oauth/device"] {
                #expect(server.app.routeTable.policy(path, .post)?.oauthErrors == true, "\(path)")
            }
        }
    }

    /// `profile` carries `updated_at` (OIDC Core §5.1): the account's creation until its profile
    /// changes, then the change's time; discovery lists it.
    @Test func theProfileScopeCarriesUpdatedAt() async throws {
        try await withServer { server, ceremonies, client in
            server.clock.freeze()
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let rp = try await TestRelyingParty.register(server)
            let created = Int(server.clock.now().timeIntervalSince1970)
            let first = try #require(try await rp.tokens(for: ada.session).json["access_token"] as? String)
            #expect(try await rp.userinfo(first).json["updated_at"] as? Int == created)
            server.clock.advance(120)
            let renamed = try await client.send("PATCH", "/me", body: Data(#"{"display_name":"Ada L."}"#.utf8), bearer: ada.session)
            #expect(renamed.status == 200, "\(String(decoding: renamed.body, as: UTF8.self))")
            let info = try await rp.userinfo(first).json
            #expect(info["name"] as? String == "Ada L.")
            #expect(info["updated_at"] as? Int == created + 120)
            let discovery = try await client.get("/.well-known/openid-configuration")
            #expect((discovery.json["claims_supported"] as? [String])?.contains("updated_at") == true)
        }
    }
}
