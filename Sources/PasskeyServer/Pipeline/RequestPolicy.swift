internal import PasskeyCore
internal import NIOCore
internal import PasskeyAccounts
internal import Hummingbird
internal import Foundation
internal import HTTPTypes
internal import PasskeyHTTPParsing
internal import Logging

/// The contract's "Requests" rules, applied by the request pipeline before any handler (and
/// so before any challenge is looked up or anything is written), keyed on the route the router
/// matched (`context.endpointPath`), never on the raw path:
/// - 415 `unsupported_media_type`: a POST or PATCH whose Content-Type is not `application/json`
///   (parameters such as `charset=utf-8` allowed), or that has a body and no Content-Type; on
///   the form routes, anything but `application/x-www-form-urlencoded`. Cross-site form posts
///   (`text/plain`, form encodings) never reach a ceremony.
/// - 403 `forbidden_origin`: a state change (POST, PATCH, DELETE) that carries a session cookie
///   and comes from another site (`checkCrossOrigin`).
/// - 429 `rate_limited` (with `Retry-After`): ceremony endpoints, per client address (an IPv6
///   client by its /64).
/// A route the router matched that the table does not list gets the JSON rules (the strictest).
struct RequestPolicy: Sendable {
    typealias Context = PasskeyRequestContext

    let service: PasskeySignIn
    let addressLimiter: RateLimiter
    let resolver: ClientAddressResolver

    static let unlisted = RoutePolicy.json

    /// The matched route's `policy` applied to `request`; the client it comes from, for the
    /// handler (`RequestClient.current`).
    func admit(_ policy: RoutePolicy, _ request: Request, context: Context) throws -> RequestClient {
        let client = clientAddress(request, context: context)
        switch policy.body {
        case .form:
            if request.method == .post { try Self.checkFormMediaType(request) }
        case .sameOriginForm:
            try checkCrossOrigin(request)
            if request.method == .post { try Self.checkFormMediaType(request) }
        case .proxy:
            guard let peer = context.remoteAddress.flatMap(Self.addressBytes), resolver.isTrusted(peer) else {
                throw APIError.forbidden("Only a --trusted-proxy may ask about another request.")
            }
        case .json:
            // A foreign origin first: a cross-site request learns nothing from a 415.
            try checkCrossOrigin(request)
            try Self.checkMediaType(request)
        }
        if policy.ceremony, addressLimiter.isOn, let retryAfter = addressLimiter.take(IPAddress.limitKey(client), now: service.now()) {
            throw APIError.rateLimited(retryAfter: retryAfter)
        }
        return RequestClient(address: client, userAgent: request.headers[.userAgent])
    }

    /// At an OAuth route (`RoutePolicy.oauthErrors`): `error` as RFC 6749 §5.2 answers a rate
    /// limit or an outage; nil for any other error, which keeps the route's own answer.
    func oauthAnswer(to error: any Error, context: Context) -> Response? {
        guard let answer = APIError.answer(to: error), let response = Self.oauthAnswer(answer) else { return nil }
        if answer == .unavailable {
            context.logger.warning("database unavailable", metadata: ["path": "\(context.endpointPath ?? "")", "error": "\(error)"])
        }
        return response
    }

    /// A rate limit or an outage at an OAuth endpoint, in RFC 6749 §5.2's shape (`rate_limited`,
    /// `temporarily_unavailable`) with `Retry-After` and the token endpoint's cache headers; nil
    /// for any other error, which keeps the route's own answer.
    static func oauthAnswer(_ error: APIError) -> Response? {
        let code: String
        switch error.code {
        case "rate_limited": code = "rate_limited"
        case "unavailable": code = "temporarily_unavailable"
        default: return nil
        }
        var response = HTTPAnswer.oauthError(code, error.message, status: error.status)
        response.headers[HTTPField.Name("Pragma")!] = "no-cache"
        if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    func clientAddress(_ request: Request, context: Context) -> String {
        let forwardedFor = request.headers[values: Self.forwardedFor]
        guard let peer = context.remoteAddress.flatMap(Self.addressBytes) else {
            return resolver.resolve(peer: context.remoteAddress?.ipAddress, forwardedFor: forwardedFor)
        }
        return resolver.resolve(peerBytes: peer, forwardedFor: forwardedFor)
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The peer's IP address as the socket holds it (network order): 4 bytes or 16.
    static func addressBytes(_ address: SocketAddress) -> [UInt8]? {
        switch address {
        // Linux's layouts: sockaddr_in is family (2), port (2), address (4); sockaddr_in6 is
        // family (2), port (2), flow info (4), address (16).
        case .v4(let v4): withUnsafeBytes(of: v4.address) { Array($0[4..<8]) }
        case .v6(let v6): withUnsafeBytes(of: v6.address) { Array($0[8..<24]) }
        case .unixDomainSocket: nil
        }
    }

    /// JSON bodies must say so.
    static func checkMediaType(_ request: Request) throws {
        // A DELETE may carry a JSON body (`DELETE /me`'s confirmation); one that carries a body
        // is held to the same rule.
        let hasBody = hasBody(request)
        guard request.method == .post || request.method == .patch || request.method == .put || (request.method == .delete && hasBody) else {
            return
        }
        if let contentType = request.headers[.contentType] {
            guard isJSON(contentType) else { throw APIError.unsupportedMediaType }
            return
        }
        if hasBody { throw APIError.unsupportedMediaType }
    }

    /// Whether the request declares a body: a Content-Length above 0, or chunked.
    static func hasBody(_ request: Request) -> Bool {
        let declared = request.headers[.contentLength].flatMap(Int.init) ?? 0
        return declared > 0 || request.headers[values: .transferEncoding].contains { $0.lowercased().contains("chunked") }
    }

    /// A form post: `application/x-www-form-urlencoded`, nothing else. It comes from another
    /// origin (Apple's page, a device), so no Origin check: the callback trusts the token, its
    /// nonce and the state bound to it; the OAuth endpoints their client, code and key audit.
    static func checkFormMediaType(_ request: Request) throws {
        // No body at all needs no type: a userinfo POST that carries its token in the header
        // (OpenID Connect Core §5.3.1), as OAuth client libraries send it.
        if request.headers[.contentType] == nil, !hasBody(request) { return }
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/x-www-form-urlencoded" else { throw APIError.unsupportedMediaType }
    }

    /// `application/json`, any case, optionally with parameters; a charset must be UTF-8.
    static func isJSON(_ contentType: String) -> Bool {
        // The spellings clients send, compared as they are; anything else goes through the
        // general reading below (this runs on every JSON request, and the general one costs
        // Foundation's trimming and case mapping of each part).
        if contentType == "application/json" || contentType == "application/json; charset=utf-8" { return true }
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard parts.first == "application/json" else { return false }
        for parameter in parts.dropFirst() where parameter.hasPrefix("charset=") {
            let charset = parameter.dropFirst("charset=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            guard charset == "utf-8" || charset == "utf8" else { return false }
        }
        return true
    }

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!

    /// A cookie-carrying state change must not come from another site, checked the way Go's
    /// `http.CrossOriginProtection` does: `Sec-Fetch-Site` first (`same-origin` and `none`
    /// pass; `same-site` and `cross-site` are refused unless the `Origin` is one of the RP's),
    /// then, from browsers that do not send it, an `Origin` that is not one of the RP's is
    /// refused. A request with neither header (a native client) passes. `SameSite=Lax` does not
    /// stop a sibling subdomain; `Sec-Fetch-Site: same-site` does.
    func checkCrossOrigin(_ request: Request) throws {
        guard request.method == .post || request.method == .patch || request.method == .delete || request.method == .put,
              SessionCookie.isPresent(in: request)
        else { return }
        let origin = request.headers[.origin]
        if let site = request.headers[Self.secFetchSite]?.lowercased() {
            if site == "same-origin" || site == "none" { return }
            guard let origin, service.rp.origins.contains(origin) else { throw APIError.forbiddenOrigin }
            return
        }
        if let origin, !service.rp.origins.contains(origin) { throw APIError.forbiddenOrigin }
    }
}
