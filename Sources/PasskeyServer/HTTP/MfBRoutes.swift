internal import PasskeyAccounts
internal import Hummingbird
internal import HTTPTypes
internal import PasskeyHTTPParsing

/// Messages for Business (mfb.md): the business's calls and the device's OAuth endpoints.
extension Routes {
    /// Messages for Business (mfb.md): the business's calls with its api token, and the OAuth
    /// endpoints the device uses.
    func registerMfBRoutes(_ mfb: MfBSignIn, on router: Router<Context>) {
        router.post("/mfb/requests") { request, _ in
            try mfb.checkAPIToken(Self.bearer(request))
            do {
                var response = try Self.json(try await mfb.create(body: try await Self.body(request)))
                response.status = .created
                return response
            } catch let failure as MfBGatewayFailure {
                // The gateway did not take the message: 502, with its answer and what it means.
                var response = try Self.json(failure)
                response.status = .badGateway
                return response
            }
        }
        router.get("/mfb/requests/:requestIdentifier") { request, context in
            try mfb.checkAPIToken(Self.bearer(request))
            return try Self.json(try await mfb.status(id: context.parameters.get("requestIdentifier") ?? ""))
        }
        router.post("/mfb/key-audits") { request, _ in
            try mfb.checkAuditToken(Self.bearer(request))
            return try Self.json(try await mfb.providerAudit(body: try await Self.body(request)))
        }
        router.post("/mfb/responses") { request, _ in
            try mfb.checkAPIToken(Self.bearer(request))
            return try Self.json(try await mfb.respond(body: try await Self.body(request)))
        }
        router.get("/mfb/authorize") { request, _ in
            try await authorize(mfb, parameters: try Self.formParameters(request.uri.query ?? ""), request: request)
        }
        router.post("/mfb/authorize") { request, _ in
            let form = String(decoding: try await Self.body(request), as: UTF8.self)
            return try await authorize(mfb, parameters: try Self.formParameters(form), request: request)
        }
        router.post("/mfb/token") { request, _ in
            // RFC 6749 §5.1: tokens and their errors are never cached.
            var response = try await token(mfb, request: request)
            response.headers[.cacheControl] = "no-store"
            response.headers[HTTPField.Name("Pragma")!] = "no-cache"
            return response
        }
    }

    func token(_ mfb: MfBSignIn, request: Request) async throws -> Response {
        do {
            let form = String(decoding: try await Self.body(request), as: UTF8.self)
            let parameters: [String: String]
            do {
                parameters = try Self.tokenParameters(form: form, query: request.uri.query)
            } catch let error as OAuthError {
                throw error
            } catch {
                throw OAuthError("invalid_request", "\(error)")
            }
            return try Self.json(try await mfb.token(parameters, basic: Self.basicCredentials(request)))
        } catch let error as OAuthError {
            // RFC 6749 §5.2.
            var response = Self.json(["error": error.error, "error_description": error.errorDescription])
            response.status = ErrorStatus.status(for: error.error)
            if response.status == .unauthorized { response.headers[.wwwAuthenticate] = "Basic realm=\"mfb\"" }
            return response
        }
    }

    /// The token request's parameters: the form body, as OAuth 2.0 has them (iOS 15 and later),
    /// and the query string, where devices before iOS 15 put them (seed 000). A parameter given
    /// in both with two values is refused; the same value twice is one parameter.
    static func tokenParameters(form: String, query: String?) throws -> [String: String] {
        var parameters = try FormURLEncoded.parameters(form)
        guard let query, !query.isEmpty else { return parameters }
        for (name, value) in try FormURLEncoded.parameters(query) {
            if let other = parameters[name], other != value {
                throw OAuthError("invalid_request", "\(name) is given twice, in the query and in the body, with two values.")
            }
            parameters[name] = value
        }
        return parameters
    }

    func authorize(_ mfb: MfBSignIn, parameters: [String: String], request: Request) async throws -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        switch try await mfb.authorize(parameters, session: try await session(request)) {
        case .signIn(let returnPath):
            headers[.location] = "/?return=" + FormURLEncoded.encode(returnPath)
        case .redirect(let location):
            headers[.location] = location
        }
        return Response(status: .found, headers: headers)
    }
}
