internal import PasskeyAccounts
internal import Foundation
internal import PasskeyCore
internal import PasskeyStorage
internal import Hummingbird
internal import NIOCore
internal import HTTPTypes
internal import PasskeyHTTPParsing

/// The contract's endpoints. Each handler only translates HTTP to a `PasskeyService` call and
/// the result back to HTTP.
struct Routes: Sendable {
    typealias Context = PasskeyRequestContext

    let service: PasskeyService
    /// Sign in with Apple, when `--apple-client-id` is given.
    let apple: AppleSignIn?
    let push: PushSignIn
    /// Messages for Business, when `--mfb-client-id` is given.
    let mfb: MessagesForBusiness?
    /// The FIDO conformance API, when `--fido-conformance` is given.
    let conformance: FIDOConformance?
    let association: AppleAppSiteAssociation?
    /// /.well-known/assetlinks.json, when Android apps are configured.
    let assetLinks: [UInt8]?
    /// /.well-known/webauthn, when related origins are configured.
    let relatedOrigins: [UInt8]?
    let sessionTTL: TimeInterval

    func register(on router: Router<Context>) {
        router.get("/healthz") { _, _ in
            // Touches the database: 200 only once it answers.
            try Self.json(try await service.health())
        }
        router.get("/registration_initialize") { request, _ in
            let options = try await service.beginRegistration(
                CeremonyOptionsRequest(userName: try Self.query("user_name", request), displayName: try Self.query("display_name", request)),
                session: try await session(request))
            return Self.json(writing: options)
        }
        router.post("/registration_initialize") { request, _ in
            let body = try await Self.initializeBody(request)
            let options = try await service.beginRegistration(body.options, session: try await session(request))
            return Self.json(writing: options)
        }
        router.post("/registration_finalize") { request, _ in
            let (result, token) = try await service.finishRegistration(body: try await Self.body(request))
            return try signedIn(result, token: token, request: request)
        }
        router.get("/authentication_initialize") { request, _ in
            Self.json(writing: try await service.beginAuthentication(CeremonyOptionsRequest(userName: try Self.query("user_name", request))))
        }
        router.post("/authentication_initialize") { request, _ in
            let body = try await Self.initializeBody(request)
            return Self.json(writing: try await service.beginAuthentication(body.options))
        }
        router.post("/authentication_finalize") { request, _ in
            let (result, token) = try await service.finishAuthentication(body: try await Self.body(request))
            return try signedIn(result, token: token, request: request)
        }
        registerAccountRoutes(on: router)
        if let apple { registerAppleRoutes(apple, on: router) }
        registerPushRoutes(on: router)
        if let mfb { registerMfBRoutes(mfb, on: router) }
        if let conformance { registerConformanceRoutes(conformance, on: router) }
        registerWellKnownRoutes(on: router)
    }

    /// Sign in with Apple (siwa.md).
    func registerAppleRoutes(_ apple: AppleSignIn, on router: Router<Context>) {
        router.get("/siwa/initialize") { request, _ in
            let (answer, binding) = try await apple.initialize(redirectURI: callbackURI(), session: try await session(request))
            var response = try Self.json(answer)
            response.headers[.setCookie] = SIWACookie.binding.header(
                value: Base64URL.encode(binding), maxAge: Int(service.configuration.challengeTTL))
            return response
        }
        router.post("/siwa/finalize") { request, _ in
            struct Finalize: Decodable {
                struct User: Decodable {
                    struct Name: Decodable { let firstName: String?; let lastName: String? }
                    let name: Name?
                    let email: String?
                }
                let identity_token: String
                let nonce: String?
                let authorization_code: String?
                let user: User?
            }
            let body = try Self.decode(Finalize.self, try await Self.body(request))
            var signIn = AppleSignIn.SignInRequest(identityToken: body.identity_token, nonce: body.nonce, authorizationCode: body.authorization_code)
            signIn.firstName = body.user?.name?.firstName
            signIn.lastName = body.user?.name?.lastName
            signIn.email = body.user?.email
            let result = try await apple.finalize(signIn, session: try await session(request))
            var response = try Self.json(result.body)
            response.headers[.setCookie] = SessionCookie.header(value: result.session, maxAge: Int(sessionTTL), secure: isSecure(request))
            return response
        }
        router.post("/siwa/callback") { request, _ in
            // Apple's form post: answered with a redirect to the page either way.
            let form = String(decoding: try await Self.body(request), as: UTF8.self)[...]
            func field(_ name: String) -> String? { FormURLEncoded.value(name, in: form) ?? nil }
            do {
                guard let token = field("id_token"), let state = field("state") else {
                    throw APIError.invalidRequest("Apple's form post has no id_token or state.")
                }
                var signIn = AppleSignIn.SignInRequest(identityToken: token, authorizationCode: field("code"))
                signIn.redirectURI = callbackURI()
                if let user = field("user").flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }) {
                    let name = user["name"] as? [String: Any]
                    signIn.firstName = name?["firstName"] as? String
                    signIn.lastName = name?["lastName"] as? String
                    signIn.email = user["email"] as? String
                }
                let binding = SIWACookie.binding.value(in: request).flatMap { Base64URL.decodeStrict($0) }
                let result = try await apple.callback(signIn, state: state, binding: binding, session: nil)
                if let pending = result.pendingLink {
                    // Linking to a signed-in account: the page asks its owner to confirm first.
                    var response = Self.redirect("/?siwa=confirm-link")
                    response.headers[values: .setCookie] = [
                        SIWACookie.link.header(value: pending, maxAge: Int(service.configuration.challengeTTL)),
                        SIWACookie.binding.header(value: "", maxAge: 0),
                    ]
                    return response
                }
                var response = Self.redirect("/")
                response.headers[values: .setCookie] = [
                    SessionCookie.header(value: result.session, maxAge: Int(sessionTTL), secure: isSecure(request)),
                    SIWACookie.binding.header(value: "", maxAge: 0),
                ]
                return response
            } catch let error as APIError where error.httpStatus < 500 {
                return Self.redirect("/?error=\(error.code)")
            }
        }
        router.post("/siwa/notifications") { request, _ in
            struct Notification: Decodable { let payload: String }
            let body = try Self.decode(Notification.self, try await Self.body(request))
            try await apple.notification(payload: body.payload)
            return Self.json(["status": "ok"])
        }
        router.post("/siwa/link/confirm") { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            try await apple.confirmLink(SIWACookie.link.value(in: request), session: session)
            var response = Self.json(["status": "ok"])
            response.headers[.setCookie] = SIWACookie.link.header(value: "", maxAge: 0)
            return response
        }
        router.delete("/siwa/link") { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            try await apple.unlink(session)
            return Self.json(["status": "ok"])
        }
    }

    /// The push authenticator (push.md).
    func registerPushRoutes(on router: Router<Context>) {
        router.post("/push/devices/discovery") { request, _ in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            return try Self.json(try await push.discovery(session))
        }
        router.post("/push/devices") { request, _ in
            let deviceID = try await push.register(body: try await Self.body(request))
            var response = Self.json(["deviceId": deviceID])
            response.status = .created
            return response
        }
        router.delete("/push/devices/:deviceId") { request, context in
            guard let session = try await session(request) else { throw APIError.unauthorized }
            try await push.deleteDevice(session, id: context.parameters.get("deviceId") ?? "")
            return Self.json(["status": "ok"])
        }
        router.post("/push/authentication_initialize") { request, _ in
            let body = try await Self.initializeBody(request)
            return try Self.json(try await push.initialize(userName: body.userName))
        }
        router.post("/push/authenticate") { request, _ in
            try await push.authenticate(body: try await Self.body(request))
            var response = Self.json(["status": "accepted"])
            response.status = .accepted
            return response
        }
        router.get("/push/authentication_status") { request, _ in
            let (status, token) = try await push.status(watch: try Self.query("watch", request))
            var response = try Self.json(status)
            if let token {
                response.headers[.setCookie] = SessionCookie.header(value: token, maxAge: Int(sessionTTL), secure: isSecure(request))
            }
            return response
        }
    }

    /// Messages for Business (mfb.md): the business's calls with its api token, and the OAuth
    /// endpoints the device uses.
    func registerMfBRoutes(_ mfb: MessagesForBusiness, on router: Router<Context>) {
        router.post("/mfb/requests") { request, _ in
            try mfb.checkAPIToken(Self.bearer(request))
            var response = try Self.json(try await mfb.create(body: try await Self.body(request)))
            response.status = .created
            return response
        }
        router.get("/mfb/requests/:requestIdentifier") { request, context in
            try mfb.checkAPIToken(Self.bearer(request))
            return try Self.json(try await mfb.status(id: context.parameters.get("requestIdentifier") ?? ""))
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

    func token(_ mfb: MessagesForBusiness, request: Request) async throws -> Response {
        do {
            let form = String(decoding: try await Self.body(request), as: UTF8.self)
            let parameters: [String: String]
            do {
                parameters = try FormURLEncoded.parameters(form)
            } catch {
                throw OAuthError(code: "invalid_request", error.description)
            }
            return try Self.json(try await mfb.token(parameters, basic: Self.basicCredentials(request)))
        } catch let error as OAuthError {
            // RFC 6749 §5.2.
            var response = Self.json(["error": error.code, "error_description": error.description])
            response.status = HTTPResponse.Status(code: error.status)
            if error.status == 401 { response.headers[.wwwAuthenticate] = "Basic realm=\"mfb\"" }
            return response
        }
    }

    func authorize(_ mfb: MessagesForBusiness, parameters: [String: String], request: Request) async throws -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        switch try await mfb.authorize(parameters, session: try await session(request)) {
        case .signIn(let returnPath):
            headers[.location] = "/?return=" + MessagesForBusiness.escape(returnPath)
        case .redirect(let location):
            headers[.location] = location
        }
        return Response(status: .found, headers: headers)
    }

    /// `Authorization: Bearer …` only (the business's api token; never the session cookie).
    static func bearer(_ request: Request) -> String? {
        request.headers[.authorization].flatMap(AuthorizationHeader.bearer)
    }

    /// HTTP Basic client credentials (RFC 6749 §2.3.1).
    static func basicCredentials(_ request: Request) -> (id: String, secret: String)? {
        request.headers[.authorization].flatMap(AuthorizationHeader.basic)
    }

    /// The web flow's redirect_uri: the RP's primary (first configured) origin's /siwa/callback,
    /// the same on every instance and after every restart.
    func callbackURI() -> String {
        (service.rp.primaryOrigin ?? "http://localhost") + "/siwa/callback"
    }

    static func redirect(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    // MARK: Sessions

    /// The session from `Authorization: Bearer …` (native apps) or the session cookie.
    func session(_ request: Request) async throws -> SignedInUser? {
        try await service.signedInUser(token: token(request))
    }

    func token(_ request: Request) -> String? {
        Self.bearer(request) ?? SessionCookie.token(in: request, secure: isSecure(request))
    }

    func isSecure(_ request: Request) -> Bool {
        SessionCookie.isSecure(request, origins: service.rp.origins)
    }

    /// A finalize answer: the body carries the token for native clients; the cookie is for browsers.
    func signedIn(_ result: CeremonyResult, token: String, request: Request) throws -> Response {
        var response = Self.json(writing: result)
        response.headers[.setCookie] = SessionCookie.header(value: token, maxAge: Int(sessionTTL), secure: isSecure(request))
        return response
    }

    /// Form parameters (RFC 6749 §3.1); `invalid_request` when they cannot be read.
    static func formParameters(_ text: String) throws -> [String: String] {
        do { return try FormURLEncoded.parameters(text) } catch { throw APIError.invalidRequest(error.description) }
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

    private static func jsonResponse(_ body: ByteBuffer) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}

/// The body of the POST variants of the initialize endpoints.
/// The JSON body of both initializes (and of the push one, which reads the name only).
struct InitializeRequest: Decodable {
    var userName: String?
    var displayName: String?
    var mediation: String?
    var residentKey: String?
    var hints: [String]?
    var prf: Bool?

    enum CodingKeys: String, CodingKey {
        case userName = "user_name"
        case displayName = "display_name"
        case mediation
        case residentKey = "resident_key"
        case hints
        case prf
    }

    var options: CeremonyOptionsRequest {
        CeremonyOptionsRequest(
            userName: userName, displayName: displayName, mediation: mediation, residentKey: residentKey, hints: hints,
            prf: prf ?? false)
    }
}
