public import PasskeyStorage
internal import PasskeyHTTPParsing

/// An authorization request (docs/contracts/identity.md, "Authorization endpoint"; OpenID Connect Core §3.1.2;
/// RFC 7636; RFC 9700), checked in the order that keeps the endpoint from being an open
/// redirector: first the client and the redirect URI, whose refusals are shown to the user and
/// never redirected; then everything else, whose refusals go back to that redirect URI.
public struct AuthorizationRequest: Sendable, Equatable {
    public enum ResponseMode: String, Sendable { case query, formPost = "form_post" }
    public enum Prompt: String, Sendable { case none, login }

    public let client: ClientRecord
    /// The redirect URI as the client sent it (a loopback one with its port).
    public let redirectURI: String
    public let responseMode: ResponseMode
    public let state: String
    /// Required, but of the Messages for Business client (its device sends none).
    public let nonce: String?
    public let scopes: [String]
    /// The PKCE S256 challenge; "" only for the Messages for Business client, whose device
    /// sends none.
    public let codeChallenge: String
    public let prompt: Prompt?
    public let maxAge: Int?
    public let loginHint: String?
    /// The class every sign-in needs: the stricter of what the request asks (as essential) and
    /// what the client requires; nil for any session.
    public let requiredACR: String?
    /// The Messages for Business client's request: the two parameters seed 001 adds to it,
    /// which the key audit checks before any code is issued. Nil for every other client.
    public let messagesForBusiness: MfBParameters?
    /// `dpop_jkt` (RFC 9449 §10): the thumbprint of the DPoP key the code may be redeemed with.
    public let dpopJKT: String?
    /// `prompt=consent`: a third-party client's user is asked again, consent given or not.
    public let asksConsent: Bool

    public struct MfBParameters: Sendable, Equatable {
        public let responseEncryptionKey: String?
        public let userHandle: String?
    }

    /// Why a request is refused.
    public enum Refusal: Error, Sendable, Equatable {
        /// Shown to the user (400), never redirected: the client or the redirect URI is unknown.
        case shown(error: String, description: String)
        /// Sent back to the client's redirect URI with `state` (when it was readable) and `iss`.
        case redirected(error: String, description: String, redirectURI: String, state: String?, responseMode: ResponseMode)
    }

    static let maximumStateLength = 1024
    static let maximumNonceLength = 1024
    static let maximumLoginHintLength = 256
    static let maximumMaxAge = 1_000_000_000

    /// Checks `parameters` (a query string's or a form body's, in order, repeats kept) with
    /// `lookup` finding a client by id.
    /// `pushed`: the parameters came from `/oauth/par` (RFC 9126), the only way a client
    /// registered with `--require-par` may ask.
    public static func check(
        _ parameters: [(name: String, value: String)], pushed: Bool = false, lookup: (String) async throws -> ClientRecord?
    ) async throws -> AuthorizationRequest {
        var values: [String: String] = [:]
        var repeated: [String] = []
        for (name, value) in parameters {
            if values.updateValue(value, forKey: name) != nil { repeated.append(name) }
        }
        // 1. Who is asking, and where the answer may go: refusals here are never redirected.
        if repeated.contains("client_id") || repeated.contains("redirect_uri") {
            throw Refusal.shown(error: "invalid_request", description: "client_id and redirect_uri may each be given once")
        }
        guard let clientID = values["client_id"], !clientID.isEmpty else {
            throw Refusal.shown(error: "invalid_request", description: "client_id is missing")
        }
        guard clientID.utf8.count <= ClientRegistry.maximumURILength, let client = try await lookup(clientID) else {
            // invalid_request: RFC 6749 §4.1.2.1 gives the authorization endpoint no invalid_client.
            throw Refusal.shown(error: "invalid_request", description: "no client is registered with this client_id")
        }
        guard let redirectURI = values["redirect_uri"].flatMap({ $0.isEmpty ? nil : $0 }) ?? impliedRedirectURI(client) else {
            throw Refusal.shown(error: "invalid_request", description: "redirect_uri is missing")
        }
        guard RedirectURI.match(redirectURI, in: client.redirectURIs) != nil else {
            throw Refusal.shown(error: "invalid_request", description: "redirect_uri is not one the client registered")
        }

        // 2. Everything else goes back to the client.
        let responseMode = ResponseMode(rawValue: values["response_mode"] ?? "query")
        let state = values["state"].flatMap { $0.utf8.count <= maximumStateLength ? $0 : nil }
        func refuse(_ error: String, _ description: String) -> Refusal {
            .redirected(error: error, description: description, redirectURI: redirectURI, state: state, responseMode: responseMode ?? .query)
        }
        guard let responseMode else { throw refuse("invalid_request", "response_mode must be query or form_post") }
        if let name = repeated.first { throw refuse("invalid_request", "\(name.prefix(32)) is given more than once") }
        guard let state, !state.isEmpty else {
            throw refuse("invalid_request", "state is required, at most \(maximumStateLength) bytes")
        }
        if values["request"] != nil { throw refuse("request_not_supported", "request objects are not supported") }
        if values["request_uri"] != nil { throw refuse("invalid_request_uri", "request_uri is not one this server issued") }
        if values[OpenIDProvider.pushedMarker] != nil { throw refuse("invalid_request", "\(OpenIDProvider.pushedMarker) is not an authorization parameter") }
        if client.requirePAR, !pushed { throw refuse("invalid_request", "this client must push its authorization requests first") }
        try checkClientActive(client, refuse: refuse)
        guard values["response_type"] == "code" else {
            throw refuse("unsupported_response_type", "response_type must be code")
        }
        let scopes = try checkScopes(values["scope"], client: client, refuse: refuse)
        // The Messages for Business device sends neither a PKCE challenge nor a nonce; its
        // request is bound by the key audit instead, and its client is confidential.
        let device = client.messagesForBusiness
        let challenge = device && values["code_challenge"] == nil && values["code_challenge_method"] == nil
            ? "" : try checkCodeChallenge(values["code_challenge"], method: values["code_challenge_method"], refuse: refuse)
        let nonce = values["nonce"]
        if let nonce, nonce.isEmpty || nonce.utf8.count > maximumNonceLength {
            throw refuse("invalid_request", "nonce must be 1 to \(maximumNonceLength) bytes")
        }
        if nonce == nil, !device { throw refuse("invalid_request", "nonce is required, at most \(maximumNonceLength) bytes") }
        let prompt = try checkPrompt(values["prompt"], refuse: refuse)
        var maxAge: Int?
        if let text = values["max_age"] {
            guard !text.isEmpty, text.utf8.count <= 10, text.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int(text),
                  seconds <= maximumMaxAge
            else { throw refuse("invalid_request", "max_age must be a number of seconds") }
            maxAge = seconds
        }
        if let hint = values["login_hint"], hint.utf8.count > maximumLoginHintLength {
            throw refuse("invalid_request", "login_hint is longer than \(maximumLoginHintLength) bytes")
        }
        let acr = try checkACR(values["acr_values"], client: client, refuse: refuse)
        let dpopJKT = try checkDPoPThumbprint(values["dpop_jkt"], refuse: refuse)
        return AuthorizationRequest(
            client: client, redirectURI: redirectURI, responseMode: responseMode, state: state, nonce: nonce, scopes: scopes,
            codeChallenge: challenge, prompt: prompt, maxAge: maxAge, loginHint: values["login_hint"].flatMap { $0.isEmpty ? nil : $0 },
            requiredACR: acr,
            messagesForBusiness: device
                ? MfBParameters(responseEncryptionKey: values["responseEncryptionKey"], userHandle: values["userHandle"]) : nil,
            dpopJKT: dpopJKT, asksConsent: values["prompt"]?.split(separator: " ").contains("consent") ?? false)
    }

    /// An open registration an admin has not approved: `access_denied`, back at its redirect URI.
    static func checkClientActive(_ client: ClientRecord, refuse: (String, String) -> Refusal) throws(Refusal) {
        if client.pending { throw refuse("access_denied", "this application is waiting for an administrator's approval") }
    }

    /// RFC 9449 §10: `dpop_jkt`, when given, is a JWK SHA-256 thumbprint (RFC 7638): 43
    /// base64url characters.
    static func checkDPoPThumbprint(_ text: String?, refuse: (String, String) -> Refusal) throws(Refusal) -> String? {
        guard let text else { return nil }
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        guard text.utf8.count == 43, text.utf8.allSatisfy(alphabet.contains) else { throw refuse("invalid_request", "dpop_jkt must be a JWK SHA-256 thumbprint (43 base64url characters)") }
        return text
    }

    /// RFC 6749 §3.1.2.3: a client with one registered redirect URI may leave it out. Only the
    /// Messages for Business client does (docs/contracts/mfb.md); OpenID Connect requires it of the others.
    static func impliedRedirectURI(_ client: ClientRecord) -> String? {
        guard client.messagesForBusiness, client.redirectURIs.count == 1 else { return nil }
        return client.redirectURIs.first
    }

    /// `scope` names `openid` (but for the Messages for Business client, whose device asks by
    /// OAuth 2.0 alone) and only scopes the client may ask for.
    static func checkScopes(_ text: String?, client: ClientRecord, refuse: (String, String) -> Refusal) throws(Refusal) -> [String] {
        let scopes = (text ?? "").split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard scopes.contains("openid") || client.messagesForBusiness else { throw refuse("invalid_scope", "scope must contain openid") }
        if let other = scopes.first(where: { !client.scopes.contains($0) }) {
            throw refuse("invalid_scope", "\(other.prefix(32)) is not a scope this client may ask for")
        }
        var seen = Set<String>()
        return scopes.filter { seen.insert($0).inserted }
    }

    /// RFC 7636 §4.2–4.3: a challenge of 43 to 128 unreserved characters, method S256 (required
    /// for every client; `plain`, the default when the method is absent, is refused).
    static func checkCodeChallenge(_ challenge: String?, method: String?, refuse: (String, String) -> Refusal) throws(Refusal) -> String {
        guard let challenge else { throw refuse("invalid_request", "code_challenge is required (PKCE with S256)") }
        guard method == "S256" else { throw refuse("invalid_request", "code_challenge_method must be S256") }
        guard (43...128).contains(challenge.utf8.count), ClientRegistry.isUnreserved(challenge) else { throw refuse("invalid_request", "code_challenge must be 43 to 128 unreserved characters") }
        return challenge
    }

    /// `prompt`: `none` alone, or any of `login`, `consent`, `select_account` (`consent` asks a
    /// third-party client's user again and changes nothing for the operator's clients; a
    /// session has one account, so `select_account` changes nothing).
    static func checkPrompt(_ text: String?, refuse: (String, String) -> Refusal) throws(Refusal) -> Prompt? {
        guard let text else { return nil }
        let values = Set(text.split(separator: " ").map(String.init))
        guard !values.isEmpty, values.isSubset(of: ["none", "login", "consent", "select_account"]) else {
            throw refuse("invalid_request", "prompt must be none, login, consent or select_account")
        }
        if values.contains("none") {
            guard values.count == 1 else { throw refuse("invalid_request", "prompt=none cannot be combined with other values") }
            return Prompt.none
        }
        return values.contains("login") ? .login : nil
    }

    /// `acr_values`, treated as essential: every value must be `phr` or `phrh`, and the
    /// strictest asked (or the client's own minimum, if stricter) is required.
    static func checkACR(_ text: String?, client: ClientRecord, refuse: (String, String) -> Refusal) throws(Refusal) -> String? {
        let asked = (text ?? "").split(separator: " ").map(String.init)
        if let unknown = asked.first(where: { !ClientRegistry.authenticationClasses.contains($0) }) {
            throw refuse("unmet_authentication_requirements", "acr \(unknown.prefix(32)) cannot be met here")
        }
        return strictestClass(asked + (client.requiredACR.map { [$0] } ?? []))
    }

    /// The strictest of the classes named (`phrh` over `phr`); nil for none.
    static func strictestClass(_ classes: [String]) -> String? {
        classes.contains("phrh") ? "phrh" : classes.contains("phr") ? "phr" : nil
    }

    /// One of these checks for an endpoint that answers in RFC 6749 §5.2's shape (the
    /// authorization challenge, CIBA's request): its refusal as an `OAuthError`.
    static func asOAuthError<T>(_ check: ((String, String) -> Refusal) throws(Refusal) -> T) throws(OAuthError) -> T {
        do {
            return try check { error, description in .shown(error: error, description: description) }
        } catch {
            switch error {
            case .shown(let code, let description), .redirected(let code, let description, _, _, _): throw OAuthError(code, description)
            }
        }
    }
}
