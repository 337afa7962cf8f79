internal import PasskeyAccounts
public import HTTPTypes
internal import PasskeyHTTPParsing

/// Every route the API has, keyed by the template the router reports for a match
/// (`context.endpointPath`, e.g. `/credentials/{id}`), with the request policy it gets. The
/// policy middleware and the metrics read the route the router actually matched, never the raw
/// path, so another spelling of a path cannot reach a handler without its policy; and spellings
/// that are not canonical (`//logout`, `/logout/`, `/a/../logout`) are 404 before routing.
public enum RoutePaths {
    /// What a route's requests must satisfy before its handler runs.
    struct Policy: Sendable, Equatable {
        enum Body: Sendable, Equatable {
            /// JSON bodies (415 otherwise); state changes with a session cookie checked for a
            /// cross-origin source.
            case json
            /// A form post from another origin (Apple's `form_post`, a device's browser): only
            /// `application/x-www-form-urlencoded`, no origin check.
            case form
            /// A reverse proxy asking about another request (forward authentication): any
            /// method, the body never read, no origin or media-type check; a peer that is not a
            /// `--trusted-proxy` gets 403 whatever it sends.
            case proxy
        }

        var methods: Set<HTTPRequest.Method>
        var body: Body = .json
        /// Runs or starts a ceremony, or keeps something for a caller without a session:
        /// rate-limited per client address.
        var ceremony = false
        /// An OAuth endpoint whose every answer is RFC 6749 §5.1/§5.2 shaped: a rate limit (429)
        /// or a database outage (503) is `{"error", "error_description"}` with
        /// `Cache-Control: no-store` and `Pragma: no-cache`, as its other refusals are.
        var oauthErrors = false
    }

    /// The methods a forward-auth subrequest may carry (the original request's).
    static let anyMethod: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .patch, .delete, .options]

    static let routes: [String: Policy] = [
        "/": Policy(methods: [.get]),
        "/healthz": Policy(methods: [.get]),
        "/metrics": Policy(methods: [.get]),
        "/registration_initialize": Policy(methods: [.get, .post], ceremony: true),
        "/registration_finalize": Policy(methods: [.post], ceremony: true),
        "/authentication_initialize": Policy(methods: [.get, .post], ceremony: true),
        "/authentication_finalize": Policy(methods: [.post], ceremony: true),
        "/invitation": Policy(methods: [.post], ceremony: true),
        "/me": Policy(methods: [.get, .patch, .delete]),
        "/me/events": Policy(methods: [.get]),
        "/me/applications/{clientId}": Policy(methods: [.delete]),
        "/me/sessions": Policy(methods: [.get]),
        "/me/sessions/{id}": Policy(methods: [.delete]),
        "/me/recovery-codes": Policy(methods: [.post]),
        "/recovery": Policy(methods: [.post], ceremony: true),
        "/recovery/{id}": Policy(methods: [.get], ceremony: true),
        "/me/recoveries/{id}": Policy(methods: [.delete]),
        "/admin": Policy(methods: [.get]),
        "/setup": Policy(methods: [.get]),
        "/admin/api/users": Policy(methods: [.get, .post]),
        "/admin/api/users/{sub}": Policy(methods: [.get, .patch, .delete]),
        "/admin/api/users/{sub}/invite": Policy(methods: [.post]),
        "/admin/api/users/{sub}/sessions": Policy(methods: [.delete]),
        "/admin/api/users/{sub}/credentials/{id}": Policy(methods: [.delete]),
        "/admin/api/events": Policy(methods: [.get]),
        "/admin/api/events/checkpoints": Policy(methods: [.get]),
        "/admin/api/groups": Policy(methods: [.get]),
        "/admin/api/clients": Policy(methods: [.get, .post]),
        "/admin/api/clients/{id}": Policy(methods: [.delete]),
        "/logout": Policy(methods: [.post]),
        "/credentials/{id}": Policy(methods: [.patch, .delete]),
        "/.well-known/apple-app-site-association": Policy(methods: [.get]),
        "/apple-app-site-association": Policy(methods: [.get]),
        "/.well-known/assetlinks.json": Policy(methods: [.get]),
        "/.well-known/webauthn": Policy(methods: [.get]),
        "/.well-known/passkey-endpoints": Policy(methods: [.get]),
        "/siwa/initialize": Policy(methods: [.get], ceremony: true),
        "/siwa/finalize": Policy(methods: [.post], ceremony: true),
        "/siwa/callback": Policy(methods: [.post], body: .form, ceremony: true),
        "/siwa/notifications": Policy(methods: [.post]),
        "/siwa/link": Policy(methods: [.delete]),
        "/siwa/link/confirm": Policy(methods: [.post]),
        "/push/devices/discovery": Policy(methods: [.post], ceremony: true),
        "/push/devices": Policy(methods: [.post], ceremony: true),
        "/push/devices/{deviceId}": Policy(methods: [.delete]),
        "/push/authentication_initialize": Policy(methods: [.post], ceremony: true),
        "/push/authenticate": Policy(methods: [.post], ceremony: true),
        "/push/recovery-veto": Policy(methods: [.post], ceremony: true),
        "/push/authentication_status": Policy(methods: [.get]),
        "/mfb/requests": Policy(methods: [.post]),
        "/mfb/requests/{requestIdentifier}": Policy(methods: [.get]),
        "/mfb/responses": Policy(methods: [.post]),
        "/mfb/key-audits": Policy(methods: [.post]),
        "/mfb/authorize": Policy(methods: [.get, .post], body: .form, ceremony: true),
        "/mfb/token": Policy(methods: [.post], body: .form, ceremony: true, oauthErrors: true),
        "/attestation/options": Policy(methods: [.post], ceremony: true),
        "/attestation/result": Policy(methods: [.post], ceremony: true),
        "/assertion/options": Policy(methods: [.post], ceremony: true),
        "/assertion/result": Policy(methods: [.post], ceremony: true),
        "/oauth/jwks": Policy(methods: [.get]),
        "/.well-known/openid-configuration": Policy(methods: [.get]),
        "/oauth/authorize": Policy(methods: [.get, .post], body: .form, ceremony: true),
        "/oauth/authorize/resume": Policy(methods: [.get], ceremony: true),
        "/oauth/authorize/request": Policy(methods: [.get]),
        "/oauth/token": Policy(methods: [.post], body: .form, ceremony: true, oauthErrors: true),
        "/oauth/revoke": Policy(methods: [.post], body: .form, ceremony: true, oauthErrors: true),
        "/oauth/introspect": Policy(methods: [.post], body: .form, ceremony: true, oauthErrors: true),
        "/oauth/par": Policy(methods: [.post], body: .form, ceremony: true, oauthErrors: true),
        "/oauth/device": Policy(methods: [.post], body: .form, ceremony: true, oauthErrors: true),
        "/device": Policy(methods: [.get]),
        "/device/lookup": Policy(methods: [.post], ceremony: true),
        "/device/decision": Policy(methods: [.post]),
        "/oauth/userinfo": Policy(methods: [.get, .post], body: .form),
        "/oauth/logout": Policy(methods: [.get, .post], body: .form),
        "/auth/request": Policy(methods: RoutePaths.anyMethod, body: .proxy),
        "/auth/forward": Policy(methods: RoutePaths.anyMethod, body: .proxy),
        "/auth/return": Policy(methods: [.get]),
    ]

    /// The route template a canonical path belongs to, or nil for a path the API does not
    /// have: for the answers given without a matched route (405 with `Allow`, and metrics).
    public static func template(for path: String) -> String? {
        guard RequestPath.isCanonical(path) else { return nil }
        if routes[path] != nil { return path }
        let segments = path.utf8.split(separator: UInt8(ascii: "/"))
        for template in templates where template.parts.count == segments.count {
            if zip(template.parts, segments).allSatisfy({ $0 == nil || $0!.elementsEqual($1) }) { return template.path }
        }
        return nil
    }

    /// The templates with a parameter, split once: each segment's bytes, nil for a parameter.
    /// Fewer parameters first, as the router prefers a literal segment to a parameter.
    private static let templates: [(path: String, parts: [[UInt8]?])] = routes.keys.filter { $0.contains("{") }
        .map { template in
            (template, template.utf8.split(separator: UInt8(ascii: "/")).map { $0.first == UInt8(ascii: "{") ? nil : Array($0) })
        }
        .sorted { ($0.parts.count { $0 == nil }, $0.path) < ($1.parts.count { $0 == nil }, $1.path) }

    /// The methods answered on `path`; nil for a path the API does not have.
    public static func methods(for path: String) -> Set<HTTPRequest.Method>? {
        template(for: path).flatMap { routes[$0]?.methods }
    }
}
