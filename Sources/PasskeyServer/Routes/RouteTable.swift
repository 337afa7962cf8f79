public import HTTPTypes
internal import Hummingbird
internal import PasskeyHTTPParsing

/// What a route's requests must satisfy before its handler runs, given where the route is
/// declared (`RouteDeclarations`).
struct RoutePolicy: Sendable, Equatable {
    enum Body: Sendable, Equatable {
        /// JSON bodies (415 otherwise); state changes with a session cookie checked for a
        /// cross-origin source.
        case json
        /// A form post from another origin (Apple's `form_post`, a device's browser): only
        /// `application/x-www-form-urlencoded`, no origin check.
        case form
        /// A form our own page posts (the consent page): `application/x-www-form-urlencoded`
        /// only, and a state change with a session cookie from another site is refused, as for
        /// JSON.
        case sameOriginForm
        /// A reverse proxy asking about another request (forward authentication): any
        /// method, the body never read, no origin or media-type check; a peer that is not a
        /// `--trusted-proxy` gets 403 whatever it sends.
        case proxy
    }

    var body: Body = .json
    /// Runs or starts a ceremony, or keeps something for a caller without a session:
    /// rate-limited per client address.
    var ceremony = false
    /// An OAuth endpoint whose every answer is RFC 6749 §5.1/§5.2 shaped: a rate limit (429)
    /// or a database outage (503) is `{"error", "error_description"}` with
    /// `Cache-Control: no-store` and `Pragma: no-cache`, as its other refusals are.
    var oauthErrors = false

    /// JSON, not rate-limited: a signed-in user's or an admin's request, a page, a document.
    static let json = RoutePolicy()
    /// JSON, rate-limited per client address: a ceremony, or a request without a session that
    /// keeps something.
    static let ceremony = RoutePolicy(ceremony: true)
    /// A form from another origin that needs no rate limit (userinfo, logout).
    static let form = RoutePolicy(body: .form)
    /// A form from another origin that starts a ceremony (Apple's callback, the authorization
    /// endpoint): rate-limited.
    static let formCeremony = RoutePolicy(body: .form, ceremony: true)
    /// An OAuth endpoint a client posts a form to: rate-limited, every refusal in RFC 6749
    /// §5.2's shape.
    static let oauth = RoutePolicy(body: .form, ceremony: true, oauthErrors: true)
    /// Our own page's form that changes something for the signed-in user (the consent page's
    /// answer): rate-limited like a ceremony.
    static let pageForm = RoutePolicy(body: .sameOriginForm, ceremony: true)
    /// Dynamic client registration: JSON from any origin without a session, rate-limited, every
    /// refusal in RFC 6749 §5.2's shape.
    static let registration = RoutePolicy(ceremony: true, oauthErrors: true)
    /// A reverse proxy's question about another request.
    static let proxy = RoutePolicy(body: .proxy)
}

/// Every route the server answers, keyed by the template the router reports for a match
/// (`context.endpointPath`, e.g. `/credentials/{id}`), each method with the policy it was
/// declared with. It is made from the same declarations that register the handlers, so the
/// router and the table cannot disagree. The request pipeline's policy and metrics read the route
/// the router actually matched, never the raw path, so another spelling of a path cannot reach
/// a handler without its policy; and spellings that are not canonical (`//logout`, `/logout/`,
/// `/a/../logout`) are 404 before routing.
public struct RouteTable: Sendable {
    /// The policy of each template's methods.
    private(set) var routes: [String: [HTTPRequest.Method: RoutePolicy]] = [:]
    /// The templates with a parameter, split once: each segment's bytes, nil for a parameter.
    /// Fewer parameters first, as the router prefers a literal segment to a parameter.
    private var templates: [(path: String, parts: [[UInt8]?])] = []

    init(_ routes: [(template: String, method: HTTPRequest.Method, policy: RoutePolicy)]) {
        for route in routes {
            precondition(self.routes[route.template]?[route.method] == nil, "\(route.method) \(route.template) is declared twice")
            self.routes[route.template, default: [:]][route.method] = route.policy
        }
        templates = self.routes.keys.filter { $0.contains("{") }
            .map { template in
                (template, template.utf8.split(separator: UInt8(ascii: "/")).map { $0.first == UInt8(ascii: "{") ? nil : Array($0) })
            }
            .sorted { ($0.parts.count { $0 == nil }, $0.path) < ($1.parts.count { $0 == nil }, $1.path) }
    }

    /// The policy a matched route was declared with.
    func policy(_ template: String, _ method: HTTPRequest.Method) -> RoutePolicy? {
        routes[template]?[method]
    }

    /// Whether the router has `template` (a matched route's `endpointPath`).
    func contains(_ template: String) -> Bool {
        routes[template] != nil
    }

    /// The route template a canonical path belongs to, or nil for a path the API does not
    /// have: for the answers given without a matched route (405 with `Allow`, and metrics).
    func template(for path: String) -> String? {
        guard RequestPath.isCanonical(path) else { return nil }
        if routes[path] != nil { return path }
        let segments = path.utf8.split(separator: UInt8(ascii: "/"))
        for template in templates where template.parts.count == segments.count {
            if zip(template.parts, segments).allSatisfy({ $0 == nil || $0!.elementsEqual($1) }) { return template.path }
        }
        return nil
    }

    /// The methods answered on `path`; nil for a path the API does not have.
    func methods(for path: String) -> Set<HTTPRequest.Method>? {
        template(for: path).flatMap(methods(template:))
    }

    /// The methods answered on a route's template; nil for a template the API does not have.
    func methods(template: String) -> Set<HTTPRequest.Method>? {
        routes[template].map { Set($0.keys) }
    }
}
