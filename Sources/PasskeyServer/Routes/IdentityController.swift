internal import PasskeyAccounts
internal import PasskeyHTTPParsing
internal import PasskeyJSON
internal import Hummingbird
internal import NIOCore
internal import HTTPTypes
internal import Foundation

/// The OpenID provider's endpoints (docs/contracts/identity.md): discovery, the key set, the authorization
/// endpoint and its resumption, the token endpoint, userinfo and revocation. Each handler reads
/// the request into the provider's terms and writes its answer back.
struct IdentityController: Controller {
    let service: PasskeySignIn
    let openID: OpenIDProvider
    let signingKeys: SigningKeys

    /// How long a fetched key set or discovery document may be cached: far less than a
    /// rotation's publish-ahead time, so a relying party has the next key before it signs anything.
    static let keySetMaxAge = 300

    func declare(_ routes: inout RouteDeclarations) {
        routes.get("/oauth/jwks", .json) { _, _ in
            Self.cacheableJSON(try await signingKeys.keySet(now: service.now()))
        }
        // The same metadata under both names: OpenID Connect Discovery's, and RFC 8414's, where
        // OAuth clients (MCP clients and agents among them) look first.
        for path in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"] {
            routes.get(path, .json) { _, _ in
                Self.cacheableJSON(try Self.answerJSON(openID.discovery()))
            }
        }
        declareAuthorizationEndpoint("/oauth/authorize", on: &routes)
        for method: HTTPRequest.Method in [.get, .post] {
            // RP-initiated logout; a POST may also be the confirmation page's answer (`confirm`).
            routes.on("/oauth/logout", method: method, .form) { request, _ in
                guard var parameters = try await Self.parameters(request) else { return Self.unreadable(request) }
                var confirmation: String?
                if method == .post {
                    confirmation = parameters.last { $0.name == "confirm" }?.value
                    parameters.removeAll { $0.name == "confirm" }
                }
                return logout(try await openID.logout(parameters, session: try await session(request), confirmation: confirmation), request: request)
            }
        }
        routes.get("/oauth/authorize/resume", .ceremony) { request, _ in
            let handle = (try? Self.query("authorization", request)) ?? nil
            return Self.authorization(try await openID.resume(handle: handle ?? "", session: try await session(request)), request: request)
        }
        // The consent page for a third-party client (held request), and its answer.
        routes.get("/oauth/consent", .json) { request, _ in
            let handle = (try? Self.query("authorization", request)) ?? nil
            return Self.authorization(try await openID.consentPage(handle: handle ?? "", session: try await session(request)), request: request)
        }
        routes.post("/oauth/consent", .pageForm) { request, _ in
            guard let parameters = try await Self.parameters(request) else { return Self.unreadable(request) }
            let handle = parameters.last { $0.name == "authorization" }?.value ?? ""
            let decision = parameters.last { $0.name == "decision" }?.value ?? ""
            return Self.authorization(try await openID.decideConsent(handle: handle, decision: decision, session: try await session(request)), request: request)
        }
        routes.get("/oauth/authorize/request", .json) { request, _ in
            guard let handle = try Self.query("authorization", request), let held = try await openID.heldRequest(handle: handle) else {
                throw APIError.notFound
            }
            return Self.jsonResponse(ByteBuffer(bytes: try Self.answerJSON(held)))
        }
        declareTokenEndpoint("/oauth/token", on: &routes)
        routes.post("/oauth/par", .oauth) { request, _ in
            var response = try await Self.oauth(request) { parameters in
                try await openID.pushAuthorizationRequest(parameters, basic: Self.basicCredentials(request))
            }
            if response.status == .ok { response.status = .created }
            return response
        }
        // CIBA: a client asks for a user's approval on their phone.
        routes.post("/oauth/bc-authorize", .oauth) { request, _ in
            try await Self.oauth(request) { parameters in
                try await openID.backchannelAuthorize(parameters, basic: Self.basicCredentials(request))
            }
        }
        routes.post("/oauth/device", .oauth) { request, _ in
            try await Self.oauth(request) { parameters in
                try await openID.deviceAuthorization(parameters, basic: Self.basicCredentials(request))
            }
        }
        // The device flow's page is the main page, which shows its device view on this path.
        routes.get("/device", .json) { _, _ in
            try page("index.html")
        }
        routes.post("/device/lookup", .ceremony) { request, _ in
            struct Lookup: Decodable {
                let userCode: String
                enum CodingKeys: String, CodingKey { case userCode = "user_code" }
            }
            let body = try Self.decode(Lookup.self, try await Self.body(request))
            let found = try await openID.deviceRequest(userCode: body.userCode, session: try await session(request))
            return Self.jsonResponse(ByteBuffer(bytes: try Self.answerJSON(found)))
        }
        routes.post("/device/decision", .json) { request, _ in
            struct Decision: Decodable {
                let userCode: String
                let approve: Bool
                enum CodingKeys: String, CodingKey {
                    case userCode = "user_code"
                    case approve
                }
            }
            let body = try Self.decode(Decision.self, try await Self.body(request))
            try await openID.decideDevice(userCode: body.userCode, approve: body.approve, session: try await session(request))
            return Self.json(["status": body.approve ? "approved" : "denied"])
        }
        routes.post("/oauth/introspect", .oauth) { request, _ in
            try await Self.oauth(request) { parameters in
                try await openID.introspect(parameters, basic: Self.basicCredentials(request))
            }
        }
        routes.post("/oauth/revoke", .oauth) { request, _ in
            try await Self.oauth(request) { parameters in
                try await openID.revoke(parameters, basic: Self.basicCredentials(request))
                // RFC 7009 §2.2: the body is ignored; an empty object, JSON like every other answer.
                return [String: String]()
            }
        }
        for method: HTTPRequest.Method in [.get, .post] {
            routes.on("/oauth/userinfo", method: method, .form) { request, _ in
                let presented = Self.accessToken(request)
                let usedDPoP = presented?.scheme == .dpop || request.headers[Self.dpopField] != nil
                var response = try await Self.protectedResource(usedDPoP: usedDPoP) {
                    try await openID.userinfo(accessToken: presented?.token, scheme: presented?.scheme ?? .bearer, dpop: Self.dpop(request))
                }
                Self.addDPoPNonce(to: &response, request: request, openID: openID)
                return response
            }
        }
    }

    static let dpopField = HTTPField.Name("DPoP")!
    static let dpopNonceField = HTTPField.Name("DPoP-Nonce")!

    /// The request's DPoP proofs (every `DPoP` header) and method; nil without any.
    static func dpop(_ request: Request) -> DPoPRequest? {
        let proofs = request.headers[values: dpopField]
        return proofs.isEmpty ? nil : DPoPRequest(proofs: proofs, method: request.method.rawValue)
    }

    /// The access token of `Authorization: Bearer` or `Authorization: DPoP`, and which it was.
    static func accessToken(_ request: Request) -> (token: String, scheme: OpenIDProvider.TokenScheme)? {
        guard let value = request.headers[.authorization] else { return nil }
        if let token = AuthorizationHeader.bearer(value) { return (token, .bearer) }
        if let token = AuthorizationHeader.dpop(value) { return (token, .dpop) }
        return nil
    }

    /// RFC 9449 §8 and §9: every answer to a request that carried a DPoP proof gives the nonce
    /// its next proof must carry.
    static func addDPoPNonce(to response: inout Response, request: Request, openID: OpenIDProvider) {
        guard request.headers[dpopField] != nil else { return }
        response.headers[dpopNonceField] = openID.currentDPoPNonce()
    }

    /// A protected resource's answer (RFC 6750 §3, RFC 9449 §7.1): a refused token or proof is
    /// 401 with a challenge in the scheme the request used (`DPoP …, algs="…"` for DPoP); a
    /// request without a token 401 with a bare `Bearer` challenge.
    static func protectedResource(usedDPoP: Bool, _ body: () async throws -> some Encodable) async throws -> Response {
        do {
            return jsonResponse(ByteBuffer(bytes: try answerJSON(try await body())))
        } catch is AccessTokenMissing {
            return tokenMissing()
        } catch let error as OAuthError {
            var response = errorJSON(error.error, error.errorDescription, status: error.resourceStatus)
            response.headers[.wwwAuthenticate] = error.resourceChallenge(dpop: usedDPoP)
            return response
        }
    }

    /// The authorization endpoint (GET and POST) at `path`.
    func declareAuthorizationEndpoint(_ path: String, on routes: inout RouteDeclarations) {
        for method: HTTPRequest.Method in [.get, .post] {
            routes.on(path, method: method, .formCeremony) { request, _ in
                guard let parameters = try await Self.parameters(request) else { return Self.unreadable(request) }
                return Self.authorization(try await openID.authorize(parameters, session: try await session(request)), request: request)
            }
        }
    }

    /// The token endpoint at `path`. The URI's query is passed on: the provider reads it for
    /// the Messages for Business client only (seed 000's devices before iOS 15 put the
    /// parameters there). RFC 6749 §5.1: besides `Cache-Control: no-store`, `Pragma: no-cache`
    /// on every answer, tokens and errors alike.
    func declareTokenEndpoint(_ path: String, on routes: inout RouteDeclarations) {
        routes.post(path, .oauth) { request, _ in
            var response = try await Self.oauth(request) { parameters in
                let text = request.uri.query ?? ""
                guard let query = text.isEmpty ? [] : try? FormURLEncoded.pairs(text) else {
                    throw OAuthError("invalid_request", "the URI's query is not valid percent-encoded UTF-8")
                }
                return try await openID.token(parameters, query: query, basic: Self.basicCredentials(request), dpop: Self.dpop(request))
            }
            response.headers[HTTPField.Name("Pragma")!] = "no-cache"
            Self.addDPoPNonce(to: &response, request: request, openID: openID)
            return response
        }
    }

    static func cacheableJSON(_ body: [UInt8]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "public, max-age=\(keySetMaxAge)"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The request's parameters (RFC 6749 §3.1): a GET's query, a POST's form body, in order,
    /// repeats kept; nil when they are not valid percent-encoded UTF-8.
    static func parameters(_ request: Request) async throws -> [(name: String, value: String)]? {
        let text = request.method == .post ? String(decoding: try await body(request), as: UTF8.self) : request.uri.query ?? ""
        return try? FormURLEncoded.pairs(text)
    }

    /// The answer to parameters that cannot be read: shown, never redirected.
    static func unreadable(_ request: Request) -> Response {
        shown("invalid_request", "the \(request.method == .post ? "form" : "query") is not valid percent-encoded UTF-8", request: request)
    }

    static func errorJSON(_ error: String, _ description: String, status: HTTPResponse.Status) -> Response {
        HTTPAnswer.oauthError(error, description, status: status)
    }

    /// The provider's answers as JSON: compact, members in the order of their names, slashes
    /// unescaped (URLs stay readable), as the provider answered before its answers were typed.
    static func answerJSON(_ answer: some Encodable) throws -> [UInt8] {
        try jsonBytes(answer, sortedKeys: true)
    }

    /// A form-bodied OAuth endpoint: the parameters in order, the answer as JSON with
    /// `Cache-Control: no-store`, a refusal as RFC 6749 §5.2 (or RFC 6750 §3.1) JSON.
    static func oauth<Answer: Encodable>(
        _ request: Request, _ body: ([(name: String, value: String)]) async throws -> Answer
    ) async throws -> Response {
        do {
            guard let parameters = try await Self.parameters(request) else {
                throw OAuthError("invalid_request", "the form is not valid percent-encoded UTF-8")
            }
            return jsonResponse(ByteBuffer(bytes: try answerJSON(try await body(parameters))))
        } catch is AccessTokenMissing {
            return tokenMissing()
        } catch let error as OAuthError {
            return refusal(error, basicCredentialsSent: Self.basicCredentials(request) != nil)
        }
    }

    /// The authorization endpoint's answer as HTTP.
    static func authorization(_ outcome: OpenIDProvider.AuthorizationOutcome, request: Request) -> Response {
        switch outcome {
        case .shown(let error, let description):
            return shown(error, description, request: request)
        case .signIn(let location):
            return found(location)
        case .respond(let answer) where answer.formPost:
            return formPost(answer)
        case .respond(let answer):
            return found(answer.location)
        case .consent(let prompt):
            return consentPage(prompt)
        }
    }

    /// The consent page: the client's name and host and each scope, as text; two buttons that
    /// post the decision back to this origin.
    static func consentPage(_ prompt: OpenIDProvider.ConsentPrompt) -> Response {
        let name = HTML.escape(prompt.clientName)
        let scopes = prompt.scopes.map { "<li data-scope=\"\(HTML.escape($0.name))\">\(HTML.escape($0.meaning)) <code>\(HTML.escape($0.name))</code></li>" }.joined()
        let fields = HTML.hiddenInputs([.init(name: "authorization", value: prompt.handle)])
        return page(title: "Allow \(prompt.clientName)?", body: """
            <main id="consent"><h1>Allow <span id="consent-client">\(name)</span>?</h1>\
            <p>The application <strong>\(name)</strong> at <strong id="consent-host">\(HTML.escape(prompt.clientHost))</strong> asks to:</p>\
            <ul id="consent-scopes">\(scopes)</ul>\
            <p>This server's operator did not add this application. Allow it only if you trust it; \
            you can withdraw this later under your account's applications.</p>\
            <form method="post" action="/oauth/consent">\(fields)\
            <button id="consent-allow" type="submit" name="decision" value="allow">Allow</button> \
            <button id="consent-deny" type="submit" name="decision" value="deny">Deny</button></form></main>
            """)
    }

    /// RP-initiated logout's answers: a redirect to the client, our own pages otherwise; once
    /// signed out, the browser's session cookie is cleared too.
    func logout(_ outcome: OpenIDProvider.LogoutOutcome, request: Request) -> Response {
        var response = Self.logoutPage(outcome, request: request)
        switch outcome {
        case .redirect, .signedOut:
            response.headers[values: .setCookie] = sessionCookies("", maxAge: 0, request: request)
        case .confirm, .refused:
            break
        }
        return response
    }

    static func logoutPage(_ outcome: OpenIDProvider.LogoutOutcome, request: Request) -> Response {
        switch outcome {
        case .refused(let error, let description):
            return shown(error, description, request: request)
        case .redirect(let location):
            return found(location)
        case .signedOut:
            return page(title: "Signed out", body: "<h1>You are signed out</h1><p><a href=\"/\">Sign in again</a></p>")
        case .confirm(let clientName, let parameters, let confirmation):
            let fields = HTML.hiddenInputs(parameters + [.init(name: "confirm", value: confirmation)])
            let asker = clientName.map { "<p>\(HTML.escape($0)) asks to sign you out.</p>" } ?? ""
            return page(title: "Sign out?", body: """
                <h1>Sign out?</h1>\(asker)<form method="post" action="/oauth/logout">\(fields)\
                <button type="submit">Sign out</button> <a href="/">Stay signed in</a></form>
                """)
        }
    }

    /// A small page of this server's own (never cached), with the page's stylesheet when the
    /// server serves the page's files.
    static func page(title: String, body: String, status: HTTPResponse.Status = .ok) -> Response {
        let head = "<meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            + "<link rel=\"stylesheet\" href=\"/app.css\"><title>\(HTML.escape(title))</title>"
        let html = "<!doctype html><html lang=\"en\"><head>\(head)</head><body>\(body)</body></html>"
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A refusal that must not go back to the client: a 400 page for a browser, JSON otherwise.
    /// A refusal shown, never redirected: a page for a browser, else JSON with `message` beside
    /// `error_description`, in the shape every other refusal of the API has.
    static func shown(_ error: String, _ description: String, request: Request) -> Response {
        guard request.headers[.accept]?.contains("text/html") ?? false else {
            let body: [String: JSONValue] = ["error": .string(error), "error_description": .string(description), "message": .string(description)]
            return jsonResponse(ByteBuffer(bytes: JSONValue.object(body).encoded()), status: .badRequest)
        }
        return page(
            title: "Sign-in request refused",
            body: "<h1>This sign-in request cannot go on</h1><p>\(HTML.escape(description)) (<code>\(HTML.escape(error))</code>).</p>",
            status: .badRequest)
    }

    /// The form_post page's one script, and its SHA-256 for the page's policy (the script never
    /// changes, so its hash is fixed; `FormPostTests` checks it against the script).
    static let formPostScript = "document.forms[0].submit()"
    static let formPostScriptHash = "sha256-ePniVEkSivX/c7XWBGafqh8tSpiRrKiqYeqbG7N1TOE="

    /// OAuth 2.0 Form Post Response Mode: a page that posts the answer to the redirect URI by
    /// itself (a button when scripts are off). Its own policy allows that one script and a form
    /// sent to the redirect URI only.
    static func formPost(_ answer: OpenIDProvider.AuthorizationResponse) -> Response {
        var response = page(title: "Signing in…", body: """
            <form method="post" action="\(HTML.escape(answer.redirectURI))">\(HTML.hiddenInputs(answer.parameters))
            <noscript><button type="submit">Continue</button></noscript></form>
            <script>\(formPostScript)</script>
            """)
        response.headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'none'; script-src '\(formPostScriptHash)'; form-action \(formActionSource(answer.redirectURI)); frame-ancestors 'none'; base-uri 'none'"
        return response
    }
}

extension IdentityController {
    /// The CSP source that allows a form to be sent to `uri` and nowhere else of note: its
    /// origin, or its scheme for a private-use URI (a registered redirect URI, so no `;` or `,`
    /// can reach the header through it unencoded).
    static func formActionSource(_ uri: String) -> String {
        if let components = URLComponents(string: uri), let scheme = components.scheme, let host = components.host, !host.isEmpty {
            let port = components.port.map { ":\($0)" } ?? ""
            return "\(scheme)://\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host)\(port)"
        }
        let scheme = uri.prefix { $0 != ":" }
        return scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "+" || $0 == "-" }) && !scheme.isEmpty ? scheme + ":" : "'none'"
    }
}
