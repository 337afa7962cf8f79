import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
@testable import PasskeyServer
import PasskeyTestSupport
import Testing

/// The shapes OAuth clients parse: userinfo's answers without a token and with the token in the
/// header of an empty POST, the token endpoint's rate limit and outage in RFC 6749 §5.2's
/// shape with its cache headers, and the member names of each of the provider's typed answers.
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
        let response = try #require(RequestPolicy.oauthAnswer(.unavailable))
        #expect(response.status.code == 503)
        #expect(response.headers[.cacheControl] == "no-store")
        #expect(response.headers[.init("Pragma")!] == "no-cache")
        #expect(response.headers[.retryAfter] == "1")
        #expect(RequestPolicy.oauthAnswer(.invalidRequest("x")) == nil)
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

    /// Each of the provider's typed answers as the HTTP layer encodes it: its members under the
    /// contract's names (a renamed CodingKey fails here), a nil member left out, members in the
    /// order of their names, slashes unescaped.
    @Test func theProvidersAnswersEncodeTheirMembersByTheirContractNames() throws {
        func object(_ answer: some Encodable) throws -> [String: JSONValue] {
            try #require(JSONValue.strictObject(try IdentityController.answerJSON(answer)))
        }
        func members(_ answer: some Encodable) throws -> Set<String> { Set(try object(answer).keys) }

        var token = TokenAnswer(accessToken: "a", tokenType: "Bearer", expiresIn: 300, scope: "openid")
        #expect(try members(token) == ["access_token", "token_type", "expires_in", "scope"])
        #expect(String(decoding: try IdentityController.answerJSON(token), as: UTF8.self) == #"{"access_token":"a","expires_in":300,"scope":"openid","token_type":"Bearer"}"#)
        token.refreshToken = "r"
        token.idToken = "i"
        #expect(try members(token) == ["access_token", "token_type", "expires_in", "scope", "refresh_token", "id_token"])
        let exchanged = TokenAnswer(accessToken: "a", tokenType: "N_A", expiresIn: 300, scope: "openid", issuedTokenType: "urn:x")
        #expect(try members(exchanged) == ["access_token", "token_type", "expires_in", "scope", "issued_token_type"])

        #expect(String(decoding: try IdentityController.answerJSON(IntrospectionAnswer.inactive), as: UTF8.self) == #"{"active":false}"#)
        let introspected = IntrospectionAnswer(
            active: true, sub: "s", username: "ada", clientID: "c", scope: "openid", tokenType: "access_token", exp: 2, iat: 1, authTime: 1,
            amr: ["hwk"], acr: "phr", sid: "d", aud: .one("c"), iss: "https://id.example.com", jti: "j")
        #expect(try members(introspected) == [
            "active", "sub", "username", "client_id", "scope", "token_type", "exp", "iat", "auth_time", "amr", "acr", "sid", "aud", "iss", "jti",
        ])
        var bound = introspected
        bound.cnf = Confirmation(jkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        #expect(try object(bound)["cnf"] == .object(["jkt": .string("0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")]))
        #expect(try object(introspected)["iss"] == .string("https://id.example.com"))
        #expect(try object(introspected)["aud"] == .string("c"))
        var twoAudiences = introspected
        twoAudiences.aud = .many(["https://a.example/", "https://b.example/"])
        #expect(try object(twoAudiences)["aud"] == .array([.string("https://a.example/"), .string("https://b.example/")]))

        var device = DeviceAuthorizationAnswer(
            deviceCode: "d", userCode: "BCDF-GHJK", verificationURI: "https://id.example.com/device",
            verificationURIComplete: "https://id.example.com/device?user_code=BCDF-GHJK", expiresIn: 600, interval: 5)
        let deviceMembers: Set = ["device_code", "user_code", "verification_uri", "verification_uri_complete", "expires_in", "interval"]
        #expect(try members(device) == deviceMembers)
        device.qrSVG = "<svg/>"
        device.qrText = "▀▄"
        #expect(try members(device) == deviceMembers.union(["qr_svg", "qr_text"]))

        let pushed = PushedRequestAnswer(requestURI: "urn:ietf:params:oauth:request_uri:h", expiresIn: 60)
        #expect(String(decoding: try IdentityController.answerJSON(pushed), as: UTF8.self) == #"{"expires_in":60,"request_uri":"urn:ietf:params:oauth:request_uri:h"}"#)

        let discovery = DiscoveryDocument(
            issuer: "i", authorizationEndpoint: "a", tokenEndpoint: "t", userinfoEndpoint: "u", jwksURI: "j", revocationEndpoint: "r",
            endSessionEndpoint: "e", introspectionEndpoint: "n", pushedAuthorizationRequestEndpoint: "p", deviceAuthorizationEndpoint: "d",
            responseTypesSupported: [], responseModesSupported: [], grantTypesSupported: [], subjectTypesSupported: [],
            idTokenSigningAlgValuesSupported: [], tokenEndpointAuthMethodsSupported: [], revocationEndpointAuthMethodsSupported: [],
            introspectionEndpointAuthMethodsSupported: [], tokenEndpointAuthSigningAlgValuesSupported: [],
            revocationEndpointAuthSigningAlgValuesSupported: [], introspectionEndpointAuthSigningAlgValuesSupported: [],
            dpopSigningAlgValuesSupported: [], codeChallengeMethodsSupported: [], scopesSupported: [], claimsSupported: [],
            acrValuesSupported: [], promptValuesSupported: [], claimsParameterSupported: false, requestParameterSupported: false,
            requestURIParameterSupported: false, authorizationResponseIssParameterSupported: true, backchannelLogoutSupported: true,
            backchannelLogoutSessionSupported: true, registrationEndpoint: nil,
            clientIDMetadataDocumentSupported: false, authorizationChallengeEndpoint: "c", backchannelAuthenticationEndpoint: "b",
            backchannelTokenDeliveryModesSupported: [], backchannelUserCodeParameterSupported: false)
        #expect(try members(discovery) == [
            "issuer", "authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri", "revocation_endpoint", "end_session_endpoint",
            "introspection_endpoint", "pushed_authorization_request_endpoint", "device_authorization_endpoint", "response_types_supported",
            "response_modes_supported", "grant_types_supported", "subject_types_supported", "id_token_signing_alg_values_supported",
            "token_endpoint_auth_methods_supported", "revocation_endpoint_auth_methods_supported",
            "introspection_endpoint_auth_methods_supported", "token_endpoint_auth_signing_alg_values_supported",
            "revocation_endpoint_auth_signing_alg_values_supported", "introspection_endpoint_auth_signing_alg_values_supported",
            "dpop_signing_alg_values_supported", "code_challenge_methods_supported", "scopes_supported", "claims_supported",
            "acr_values_supported", "prompt_values_supported", "claims_parameter_supported", "request_parameter_supported",
            "request_uri_parameter_supported", "authorization_response_iss_parameter_supported", "backchannel_logout_supported",
            "backchannel_logout_session_supported", "client_id_metadata_document_supported", "authorization_challenge_endpoint",
            "backchannel_authentication_endpoint", "backchannel_token_delivery_modes_supported", "backchannel_user_code_parameter_supported",
        ])

        // The claims are the scopes' own: a null `passkey` stays, a `sub` among them does not win.
        let info = try object(UserinfoAnswer(sub: "s", claims: ["name": .string("Ada"), "passkey": .null, "sub": .string("other")]))
        #expect(info == ["sub": .string("s"), "name": .string("Ada"), "passkey": .null])

        #expect(try members(HeldRequestAnswer(clientName: "App", reauthenticate: false)) == ["client_name", "reauthenticate"])
        #expect(try members(HeldRequestAnswer(clientName: "App", loginHint: "ada", reauthenticate: true)) == ["client_name", "login_hint", "reauthenticate"])

        let approvable = DeviceRequestAnswer(clientName: "TV", userCode: "BCDF-GHJK", scopes: ["openid"], approval: .approvable)
        #expect(try object(approvable) == [
            "client_name": .string("TV"), "user_code": .string("BCDF-GHJK"), "scopes": .array([.string("openid")]), "approval": .string("approvable"),
        ])
        #expect(try object(DeviceRequestAnswer(clientName: "TV", userCode: "B", scopes: [], approval: .signIn))["approval"] == .string("sign_in"))
        let refused = try object(DeviceRequestAnswer(clientName: "TV", userCode: "B", scopes: [], approval: .refused(error: "access_denied", description: "no")))
        #expect(refused["approval"] == .string("refused"))
        #expect(refused["refusal"] == .object(["error": .string("access_denied"), "error_description": .string("no")]))
    }
}
