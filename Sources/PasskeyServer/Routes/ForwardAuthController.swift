internal import Foundation
internal import PasskeyAccounts
internal import PasskeyHTTPParsing
internal import Hummingbird
internal import HTTPTypes
internal import PasskeyCore

/// Forward authentication for reverse proxies (docs/contracts/identity.md): nginx's `auth_request` asks
/// `/auth/request`, Caddy's `forward_auth` and Traefik's `ForwardAuth` ask `/auth/forward`,
/// about the original request they describe in their headers; only a `--trusted-proxy` is
/// answered (the route's policy). `/auth/return` sends a browser back after signing in.
struct ForwardAuthController: Controller {
    let service: PasskeySignIn
    let forwardAuth: ForwardAuth

    /// The methods a forward-auth subrequest may carry (the original request's).
    static let anyMethod: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    static let originalURL = HTTPField.Name("X-Original-URL")!
    static let originalMethod = HTTPField.Name("X-Original-Method")!
    static let forwardedMethod = HTTPField.Name("X-Forwarded-Method")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwardedURI = HTTPField.Name("X-Forwarded-Uri")!
    static let remoteHeaders = [
        "Remote-User", "Remote-Name", "Remote-Email", "Remote-Groups", "Remote-Sub", "Remote-Acr", "Remote-Amr", "Remote-Auth-Time",
    ].map { HTTPField.Name($0)! }

    func declare(_ routes: inout RouteDeclarations) {
        for method in Self.anyMethod {
            routes.on("/auth/request", method: method, .proxy) { request, _ in
                try await forwardAuth(request, redirect: false)
            }
            routes.on("/auth/forward", method: method, .proxy) { request, _ in
                try await forwardAuth(request, redirect: true)
            }
        }
        routes.get("/auth/return", .json) { request, _ in
            Self.found(returnTarget(try Self.query("rd", request)))
        }
        // What the rule for a return address asks of this session: the page runs that step-up
        // before `/auth/return`.
        routes.get("/auth/requirements", .json) { request, _ in
            let rd = try Self.query("rd", request)
            let requirements = try await forwardAuth.requirements(
                rd.flatMap { ForwardedRequest.parse(originalURL: $0, method: nil) }, session: try await session(request, allowingRecovery: true))
            return try Self.json(RequirementsAnswer(acr: requirements.acr, maxAge: requirements.maxAge, satisfied: requirements.satisfied))
        }
    }

    /// The original request from the proxy's headers, each read only when given once, and only
    /// the ones that endpoint's proxies set: nginx sets `X-Original-URL` (its configuration
    /// replaces whatever the client sent), while Caddy and Traefik set the `X-Forwarded-*`
    /// headers but pass a client's other headers on, so `/auth/forward` never reads a
    /// client-chosen `X-Original-URL`, and `/auth/request` never reads `X-Forwarded-*`.
    static func forwardedRequest(_ request: Request, nginx: Bool) -> ForwardedRequest? {
        func single(_ name: HTTPField.Name) -> String? {
            let values = request.headers[values: name]
            return values.count == 1 ? values[0] : nil
        }
        if nginx {
            guard let original = single(originalURL) else { return nil }
            return ForwardedRequest.parse(originalURL: original, method: single(originalMethod))
        }
        return ForwardedRequest.parse(
            method: single(forwardedMethod), proto: single(forwardedProto), host: single(forwardedHost), uri: single(forwardedURI))
    }

    func forwardAuth(_ request: Request, redirect: Bool) async throws -> Response {
        guard let original = Self.forwardedRequest(request, nginx: !redirect) else {
            throw APIError.invalidRequest(redirect
                ? "The proxy must describe the original request in X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-Uri, each once."
                : "The proxy must describe the original request in X-Original-URL, once.")
        }
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        // Cookies only: an Authorization header on the original request is the
        // application's business, never read as a session of this server. With a cookie domain
        // the forward cookie first (what the protected hosts receive), else this host's session.
        let domain = service.configuration.cookieDomain
        var session = try await sessions.signedInUser(forwardToken: SessionCookie.forwardToken(in: request, domain: domain))
        if session == nil {
            session = try await sessions.signedInUser(token: SessionCookie.token(in: request, secure: isSecure(request), domain: domain))
        }
        // A recovery session is no sign-in for the applications behind the proxy.
        if session?.isRecovery == true { session = nil }
        switch try await forwardAuth.decide(original, session: session) {
        case .allowed(let user):
            let values = [
                user.user, user.name, user.email, user.groups.joined(separator: ","), user.sub, user.assurance.acr ?? "",
                user.assurance.amr.joined(separator: " "), user.assurance.authTime.map { String(Int64($0.timeIntervalSince1970)) } ?? "",
            ]
            for (name, value) in zip(Self.remoteHeaders, values) { headers[name] = Self.headerValue(value) }
            return Response(status: .ok, headers: headers)
        case .unauthenticated where redirect, .stepUp where redirect:
            // The sign-in page signs in, or runs the step-up the rule needs, then returns.
            headers[.location] = service.rp.pageOrigin + "/?rd=" + FormURLEncoded.encode(original.url)
            return Response(status: .found, headers: headers)
        case .unauthenticated, .stepUp:
            return Response(status: .unauthorized, headers: headers)
        case .forbidden:
            return Response(status: .forbidden, headers: headers)
        }
    }

    /// A header value from account data: control characters (a line break above all) cannot
    /// reach the upstream's headers.
    static func headerValue(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
        return String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
    }

    /// `rd` only when it is one of this server's origins or a URL on one, or an https URL whose
    /// host is the `--cookie-domain` or under it; `/` otherwise: the check is the server's, so
    /// the page cannot be made an open redirect.
    func returnTarget(_ rd: String?) -> String {
        guard let rd, let target = ForwardedRequest.parse(originalURL: rd, method: nil) else { return "/" }
        let origin = "\(target.scheme)://\(target.host)\(target.port.map { ":\($0)" } ?? "")"
        if service.rp.origins.contains(origin) { return target.url }
        if let domain = service.configuration.cookieDomain, target.scheme == "https",
           target.host == domain || target.host.hasSuffix("." + domain) {
            return target.url
        }
        return "/"
    }
}

/// `GET /auth/requirements`' answer: `acr` and `max_age` are null when the rule asks neither.
struct RequirementsAnswer: Encodable {
    let acr: String?
    let maxAge: Int?
    let satisfied: Bool

    enum CodingKeys: String, CodingKey { case acr, maxAge = "max_age", satisfied }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(acr, forKey: .acr)
        try container.encode(maxAge, forKey: .maxAge)
        try container.encode(satisfied, forKey: .satisfied)
    }
}
