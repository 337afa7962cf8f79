internal import PasskeyAccounts
internal import Foundation
internal import PasskeyCore
internal import PasskeyStorage
internal import Hummingbird
internal import NIOCore
internal import HTTPTypes
internal import PasskeyHTTPParsing

/// The contract's endpoints, one controller file per feature (PasskeyRoutes, AccountRoutes,
/// AppleRoutes, PushRoutes, MfBRoutes, ConformanceRoutes, WellKnownRoutes, IdentityRoutes) over the shared helpers
/// here. Each handler only translates HTTP to a use-case call and the result back to HTTP.
struct Routes: Sendable {
    typealias Context = PasskeyRequestContext

    let service: PasskeySignIn
    /// Sign in with Apple, when `--apple-client-id` is given.
    let apple: AppleSignIn?
    let push: PushSignIn
    /// Messages for Business, when `--mfb-client-id` is given.
    let mfb: MfBSignIn?
    /// The FIDO conformance API, when `--fido-conformance` is given.
    let conformance: FIDOConformance?
    let association: AppleAppSiteAssociation?
    /// /.well-known/assetlinks.json, when Android apps are configured.
    let assetLinks: [UInt8]?
    /// /.well-known/webauthn, when related origins are configured.
    let relatedOrigins: [UInt8]?
    let sessionTTL: TimeInterval
    /// The OpenID provider's signing keys.
    let signingKeys: SigningKeys
    /// The OpenID provider.
    let openID: OpenIDProvider
    /// Forward authentication's rules.
    let forwardAuth: ForwardAuth

    func register(on router: Router<Context>) {
        registerPasskeyRoutes(on: router)
        registerAccountRoutes(on: router)
        if let apple { registerAppleRoutes(apple, on: router) }
        registerPushRoutes(on: router)
        if let mfb { registerMfBRoutes(mfb, on: router) }
        if let conformance { registerConformanceRoutes(conformance, on: router) }
        registerWellKnownRoutes(on: router)
        registerIdentityRoutes(on: router)
        registerForwardAuthRoutes(on: router)
        registerAdminRoutes(on: router)
    }

    /// `Authorization: Bearer …` only (the business's api token; never the session cookie).
    static func bearer(_ request: Request) -> String? {
        request.headers[.authorization].flatMap(AuthorizationHeader.bearer)
    }

    /// HTTP Basic client credentials (RFC 6749 §2.3.1).
    static func basicCredentials(_ request: Request) -> (id: String, secret: String)? {
        request.headers[.authorization].flatMap(AuthorizationHeader.basic)
    }

    static func redirect(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    // MARK: Sessions

    /// The session from `Authorization: Bearer …` (native apps) or the session cookie. A
    /// recovery session is refused with 403 `recovery_only` unless `allowingRecovery` (`GET /me`,
    /// `POST /logout` and the registration endpoints, docs/contracts/accounts.md).
    func session(_ request: Request, allowingRecovery: Bool = false) async throws -> SignedInUser? {
        let session = try await service.signedInUser(token: token(request))
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
        let forward = domain == nil || value.isEmpty ? nil : service.forwardToken(sessionToken: value)
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
        // BodyLimitMiddleware has already collected the body within the limit.
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return jsonResponse(try encoder.encode(value))
    }

    /// The hot endpoints' answers, written without Foundation (JSONWriter).
    static func json(writing value: some JSONWritable) -> Response {
        jsonResponse(ByteBuffer(bytes: value.jsonBytes))
    }

    static func json(_ value: [String: String]) -> Response {
        jsonResponse((try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("{}".utf8))
    }

    private static func jsonResponse(_ data: Data) -> Response {
        jsonResponse(ByteBuffer(bytes: data))
    }

    /// JSON that is never cached.
    static func jsonResponse(_ body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}
