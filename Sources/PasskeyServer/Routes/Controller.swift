internal import PasskeyAccounts
internal import Foundation
internal import Hummingbird
internal import NIOCore
internal import HTTPTypes
internal import PasskeyHTTPParsing
internal import PasskeyJSON
internal import PasskeyCore

/// A feature's endpoints: a type holding the use cases it calls, which declares its routes, each
/// with its policy, and whose handlers only translate HTTP to a use-case call and the result
/// back to HTTP. The helpers every controller shares (who is signed in, bodies, answers) are
/// here.
protocol Controller: Sendable {
    typealias Context = PasskeyRequestContext

    /// The passkey use cases: who is signed in, and the server's configuration.
    var service: PasskeySignIn { get }

    func declare(_ routes: inout RouteDeclarations)
}

extension Controller {
    var sessionTTL: TimeInterval { service.configuration.sessionTTL }
    var sessions: Sessions { service.sessions }

    /// `Authorization: Bearer …` only (the business's api token; never the session cookie).
    static func bearer(_ request: Request) -> String? {
        request.headers[.authorization].flatMap(AuthorizationHeader.bearer)
    }

    /// HTTP Basic client credentials (RFC 6749 §2.3.1).
    static func basicCredentials(_ request: Request) -> (id: String, secret: String)? {
        request.headers[.authorization].flatMap(AuthorizationHeader.basic)
    }

    /// A request without the access token it needs (RFC 6750 §3.1): 401 with the bare `Bearer`
    /// challenge, and an empty object (JSON like every other answer, without an error code).
    static func tokenMissing() -> Response {
        var response = jsonResponse(ByteBuffer(string: "{}"), status: .unauthorized)
        response.headers[.wwwAuthenticate] = "Bearer"
        return response
    }

    /// An OAuth refusal (RFC 6749 §5.2, RFC 6750 §3.1): its JSON, its status, and its challenge
    /// (`Basic` for an `invalid_client` whose request carried Basic credentials).
    static func refusal(_ error: OAuthError, basicCredentialsSent: Bool) -> Response {
        var response = HTTPAnswer.oauthError(error.error, error.errorDescription, status: error.httpStatus)
        if let challenge = error.challenge(basicCredentialsSent: basicCredentialsSent) { response.headers[.wwwAuthenticate] = challenge }
        return response
    }

    static func redirect(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    static func found(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .found, headers: headers)
    }

    // MARK: Sessions

    /// The session from `Authorization: Bearer …` (native apps) or the session cookie. A
    /// recovery session is refused with 403 `recovery_only` unless `allowingRecovery` (`GET /me`,
    /// `POST /logout` and the registration endpoints, docs/contracts/accounts.md).
    func session(_ request: Request, allowingRecovery: Bool = false) async throws -> SignedInUser? {
        let session = try await sessions.signedInUser(token: token(request))
        if let session, session.isRecovery, !allowingRecovery { throw APIError.recoveryOnly }
        return session
    }

    func token(_ request: Request) -> String? {
        Self.bearer(request) ?? SessionCookie.token(in: request, secure: isSecure(request), domain: service.configuration.cookieDomain)
    }

    /// The session cookie's Set-Cookie values for this request (its scheme; with the cookie
    /// domain, the host-only session cookie and the forward cookie); an empty `value` clears them.
    func sessionCookies(_ value: String, maxAge: Int, request: Request) -> [String] {
        let domain = service.configuration.cookieDomain
        let forward = domain == nil || value.isEmpty ? nil : sessions.forwardToken(sessionToken: value)
        return SessionCookie.headers(value: value, forward: forward, maxAge: maxAge, secure: isSecure(request), domain: domain)
    }

    func isSecure(_ request: Request) -> Bool {
        SessionCookie.isSecure(request, origins: service.rp.origins)
    }

    /// A finalize answer: the body carries the token for native clients; the cookie is for browsers.
    func signedIn(_ result: CeremonyResult, token: String, request: Request) throws -> Response {
        var response = Self.json(writing: result)
        // A step-up renews the session the client holds: nothing new to set.
        if !result.renewed { response.headers[values: .setCookie] = sessionCookies(token, maxAge: Int(sessionTTL), request: request) }
        return response
    }

    /// A query parameter decoded as application/x-www-form-urlencoded (`+` is a space).
    static func query(_ name: String, _ request: Request) throws -> String? {
        guard let query = request.uri.query else { return nil }
        switch FormURLEncoded.value(name, in: query[...]) {
        case .none: return nil
        case .some(.none): throw APIError.invalidRequest("The query parameter \(name) is not valid percent-encoded UTF-8.")
        case .some(.some(let value)): return value
        }
    }

    static func isBlank(_ bytes: [UInt8]) -> Bool { JSONBody.isBlank(bytes) }

    // MARK: Bodies

    static func body(_ request: Request) async throws -> [UInt8] {
        // The request pipeline has already read the body within the limit (or found none declared).
        let buffer = try await request.body.collect(upTo: .max)
        return Array(buffer.readableBytesView)
    }

    static func initializeBody(_ request: Request) async throws -> InitializeRequest {
        let bytes = try await body(request)
        if isBlank(bytes) {
            return InitializeRequest()
        }
        return try decode(InitializeRequest.self, bytes)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        try JSONBody.decode(type, bytes)
    }

    // MARK: Answers

    static func json(_ value: some Encodable) throws -> Response {
        jsonResponse(ByteBuffer(bytes: try jsonBytes(value)))
    }

    /// An answer's JSON, slashes unescaped; `sortedKeys` for the answers whose bytes are pinned
    /// in sorted order (the OpenID provider's).
    static func jsonBytes(_ value: some Encodable, sortedKeys: Bool = false) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = sortedKeys ? [.sortedKeys, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// The hot endpoints' answers, written without Foundation (JSONWriter).
    static func json(writing value: some JSONWritable) -> Response {
        jsonResponse(ByteBuffer(bytes: value.jsonBytes))
    }

    static func json(_ value: [String: String]) -> Response {
        jsonResponse(ByteBuffer(bytes: (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("{}".utf8)))
    }

    /// JSON that is never cached.
    static func jsonResponse(_ body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        HTTPAnswer.json(body, status: status)
    }

    /// A page of `Public/` served at a path of its own.
    func page(_ file: String) throws -> Response {
        guard let page = FileManager.default.contents(atPath: service.configuration.publicDirectory + "/" + file) else { throw APIError.notFound }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: page)))
    }
}

/// The answers the middleware give as well as the controllers.
enum HTTPAnswer {
    /// JSON that is never cached.
    static func json(_ body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// An OAuth refusal's body (RFC 6749 §5.2): `{"error", "error_description"}`, never cached.
    static func oauthError(_ error: String, _ description: String, status: HTTPResponse.Status) -> Response {
        json(ByteBuffer(bytes: JSONValue.object(["error": .string(error), "error_description": .string(description)]).encoded()), status: status)
    }
}
