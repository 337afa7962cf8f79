import Foundation
import PasskeyAccounts
import PasskeyStorage
import Testing

/// docs/contracts/identity.md's authorization request checks, in the order that keeps the endpoint from being
/// an open redirector: a refusal before the redirect URI is known is shown, never redirected.
@Suite struct AuthorizationRequestTests {
    static let client = ClientRecord(
        id: "wiki", name: "Wiki", isPublic: false, secretHash: Array(repeating: 1, count: 32),
        redirectURIs: ["https://wiki.example/cb", "http://127.0.0.1/cb"], postLogoutRedirectURIs: [], backchannelLogoutURI: nil,
        scopes: ["openid", "profile", "email"], idTokenAlgorithm: "RS256", introspection: false, tokenExchange: false,
        allowedGroups: [], requiredACR: nil, deviceFlow: false, requirePAR: false, refresh: false, createdAt: Date(timeIntervalSince1970: 0))
    static let challenge = String(repeating: "a", count: 43)

    static var good: [(name: String, value: String)] {
        [("response_type", "code"), ("client_id", "wiki"), ("redirect_uri", "https://wiki.example/cb"), ("scope", "openid profile"),
         ("state", "s1"), ("nonce", "n1"), ("code_challenge", challenge), ("code_challenge_method", "S256")]
    }

    static func check(_ parameters: [(name: String, value: String)], client: ClientRecord = client) async throws -> AuthorizationRequest {
        try await AuthorizationRequest.check(parameters) { $0 == client.id ? client : nil }
    }

    static func refusal(
        _ change: (inout [(name: String, value: String)]) -> Void, client: ClientRecord = client
    ) async -> AuthorizationRequest.Refusal? {
        var parameters = good
        change(&parameters)
        do {
            _ = try await check(parameters, client: client)
            return nil
        } catch let refusal as AuthorizationRequest.Refusal {
            return refusal
        } catch {
            return nil
        }
    }

    static func set(_ name: String, _ value: String?) -> (inout [(name: String, value: String)]) -> Void {
        { parameters in
            parameters.removeAll { $0.name == name }
            if let value { parameters.append((name, value)) }
        }
    }

    @Test func aGoodRequest() async throws {
        let request = try await Self.check(Self.good + [("prompt", "login"), ("max_age", "300"), ("login_hint", "ada"), ("acr_values", "phr")])
        #expect(request.client == Self.client && request.redirectURI == "https://wiki.example/cb")
        #expect(request.scopes == ["openid", "profile"] && request.state == "s1" && request.nonce == "n1")
        #expect(request.codeChallenge == Self.challenge && request.prompt == .login && request.maxAge == 300)
        #expect(request.loginHint == "ada" && request.requiredACR == "phr" && request.responseMode == .query)
        let loopback = try await Self.check(Self.good.map { $0.name == "redirect_uri" ? ($0.name, "http://127.0.0.1:5555/cb") : $0 })
        #expect(loopback.redirectURI == "http://127.0.0.1:5555/cb")
    }

    /// No open redirector: an unknown client or redirect URI is shown, never redirected.
    @Test func refusalsBeforeTheRedirectURIAreShown() async {
        let shown: [(inout [(name: String, value: String)]) -> Void] = [
            Self.set("client_id", nil), Self.set("client_id", "other"), Self.set("redirect_uri", nil),
            Self.set("redirect_uri", "https://evil.example/cb"), Self.set("redirect_uri", "https://wiki.example/cb/"),
            Self.set("redirect_uri", "https://wiki.example/cb?x=1"), { $0.append(("redirect_uri", "https://wiki.example/cb")) },
            { $0.append(("client_id", "wiki")) },
        ]
        for change in shown {
            guard case .shown = await Self.refusal(change) else {
                Issue.record("not shown: \(String(describing: await Self.refusal(change)))")
                continue
            }
        }
    }

    @Test func laterRefusalsGoBackWithTheirState() async {
        let cases: [((inout [(name: String, value: String)]) -> Void, String)] = [
            (Self.set("response_type", "token"), "unsupported_response_type"),
            (Self.set("scope", "profile"), "invalid_scope"),
            (Self.set("scope", "openid groups"), "invalid_scope"),
            (Self.set("code_challenge", nil), "invalid_request"),
            (Self.set("code_challenge_method", nil), "invalid_request"),
            (Self.set("code_challenge_method", "plain"), "invalid_request"),
            (Self.set("code_challenge", String(repeating: "a", count: 42)), "invalid_request"),
            (Self.set("code_challenge", String(repeating: "+", count: 43)), "invalid_request"),
            (Self.set("nonce", nil), "invalid_request"),
            (Self.set("prompt", "none login"), "invalid_request"),
            (Self.set("prompt", "bogus"), "invalid_request"),
            (Self.set("max_age", "-1"), "invalid_request"),
            (Self.set("max_age", "99999999999"), "invalid_request"),
            (Self.set("acr_values", "mfa"), "unmet_authentication_requirements"),
            (Self.set("request", "eyJ.x.y"), "request_not_supported"),
            (Self.set("request_uri", "urn:x"), "invalid_request_uri"),
            ({ $0.append(("scope", "openid")) }, "invalid_request"),
            (Self.set("login_hint", String(repeating: "a", count: 257)), "invalid_request"),
        ]
        for (change, expected) in cases {
            guard case .redirected(let error, _, let uri, let state, let mode) = await Self.refusal(change) else {
                Issue.record("\(expected): not redirected")
                continue
            }
            #expect(error == expected && uri == "https://wiki.example/cb" && state == "s1" && mode == .query, "\(expected) → \(error)")
        }
        // Without a state, or with an unreadable response_mode: still redirected, to the registered URI.
        guard case .redirected("invalid_request", _, _, nil, .query) = await Self.refusal(Self.set("state", nil)) else {
            Issue.record("a missing state is not refused")
            return
        }
        guard case .redirected("invalid_request", _, _, "s1", .query) = await Self.refusal(Self.set("response_mode", "fragment")) else {
            Issue.record("a bad response_mode is not refused")
            return
        }
        guard case .redirected(_, _, _, _, .formPost) = await Self.refusal({
            Self.set("response_mode", "form_post")(&$0)
            Self.set("response_type", "id_token")(&$0)
        }) else {
            Issue.record("a form_post refusal is not posted")
            return
        }
    }

    @Test func theClientsOwnRulesApply() async throws {
        var strict = Self.client
        strict.requiredACR = "phrh"
        #expect(try await Self.check(Self.good + [("acr_values", "phr")], client: strict).requiredACR == "phrh")
        var pushed = Self.client
        pushed.requirePAR = true
        guard case .redirected("invalid_request", _, _, _, _) = await Self.refusal({ _ in }, client: pushed) else {
            Issue.record("a client that must push its requests was not refused")
            return
        }
    }
}
