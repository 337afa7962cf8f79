internal import PasskeyAccounts
internal import PasskeyJSON
internal import Hummingbird
internal import NIOCore
internal import HTTPTypes

/// Dynamic client registration (RFC 7591) and its management (RFC 7592): JSON in, the client's
/// information out with `Cache-Control: no-store`; a refusal is `{"error", "error_description"}`
/// (`invalid_client_metadata`, `invalid_redirect_uri`; 401 `invalid_token` for a token refused).
struct RegistrationController: Controller {
    let service: PasskeySignIn
    let openID: OpenIDProvider

    func declare(_ routes: inout RouteDeclarations) {
        routes.post("/oauth/register", .registration) { request, _ in
            try await Self.answer(request, status: .created) {
                try await openID.register(try Self.metadata(try await Self.body(request)), initialToken: Self.bearer(request))
            }
        }
        routes.get("/oauth/register/:clientId", .registration) { request, context in
            try await Self.answer(request) {
                try await openID.registeredClient(context.parameters.get("clientId") ?? "", token: Self.bearer(request))
            }
        }
        routes.on("/oauth/register/:clientId", method: .put, .registration) { request, context in
            try await Self.answer(request) {
                let body = try Self.metadata(try await Self.body(request))
                return try await openID.updateRegisteredClient(context.parameters.get("clientId") ?? "", token: Self.bearer(request), body: body)
            }
        }
        routes.delete("/oauth/register/:clientId", .registration) { request, context in
            var response = try await Self.answer(request, status: .noContent) {
                try await openID.deleteRegisteredClient(context.parameters.get("clientId") ?? "", token: Self.bearer(request))
                return JSONValue.null
            }
            if response.status == .noContent {
                response.body = .init()
                response.headers[.contentType] = nil
            }
            return response
        }
    }

    /// The body as one JSON object; anything else is `invalid_client_metadata`.
    static func metadata(_ bytes: [UInt8]) throws -> [String: JSONValue] {
        guard let object = JSONValue.strictObject(bytes) else {
            throw OAuthError("invalid_client_metadata", "the body must be one JSON object of client metadata")
        }
        return object
    }

    /// The answer, or the refusal in RFC 7591 §3.2.2's shape, never cached.
    static func answer(_ request: Request, status: HTTPResponse.Status = .ok, _ body: () async throws -> JSONValue) async throws -> Response {
        var response: Response
        do {
            response = jsonResponse(ByteBuffer(bytes: try await body().encoded()), status: status)
        } catch is AccessTokenMissing {
            response = tokenMissing()
        } catch let error as OAuthError {
            response = refusal(error, basicCredentialsSent: false)
        }
        response.headers[.cacheControl] = "no-store"
        response.headers[HTTPField.Name("Pragma")!] = "no-cache"
        return response
    }
}
