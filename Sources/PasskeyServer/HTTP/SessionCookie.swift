internal import PasskeyAccounts
internal import Hummingbird
internal import Foundation
internal import PasskeyHTTPParsing

/// The session cookie. On a request that reached the server over https (its `Origin`, or else
/// its `Host`, is one of the RP's https origins) it is `__Host-session`: Secure, Path=/, no
/// Domain, so no sibling subdomain and no plain-http page can set or overwrite it (cookie
/// tossing). Over http (local development) it is `session`, without Secure.
///
/// Reading takes the first cookie of the expected name only: a second one, as a tossed cookie
/// with a longer path would arrive, never replaces it; and over https a plain `session` cookie
/// (which anyone on a sibling subdomain can set) is not read at all.
///
/// With `--cookie-domain` (forward authentication for applications on sibling hosts) the session
/// stays in the host-only `__Host-session` (always Secure: the first origin is https), and a
/// second cookie, `__Secure-forward` with `Domain=` that domain, carries the session's forward
/// token (`PasskeySignIn.forwardToken`), which only forward authentication reads: the hosts
/// under the domain receive a token that opens nothing of the account.
enum SessionCookie {
    static let secureName = "__Host-session"
    static let plainName = "session"
    static let forwardName = "__Secure-forward"

    static func name(secure: Bool, domain: String? = nil) -> String { secure || domain != nil ? secureName : plainName }

    /// Whether the request carries a session cookie (for the cross-origin check of state changes).
    static func isPresent(in request: Request) -> Bool {
        cookies(in: request).contains { $0.name == secureName || $0.name == plainName }
    }

    /// The token from the first cookie named for this request's scheme (with a cookie domain,
    /// `__Host-session`). Never the forward cookie.
    static func token(in request: Request, secure: Bool, domain: String? = nil) -> String? {
        first(name(secure: secure, domain: domain), in: request)
    }

    /// The forward token from the first `__Secure-forward` cookie (only with a cookie domain).
    static func forwardToken(in request: Request, domain: String?) -> String? {
        domain == nil ? nil : first(forwardName, in: request)
    }

    private static func first(_ name: String, in request: Request) -> String? {
        guard let first = cookies(in: request).first(where: { $0.name == name }) else { return nil }
        return first.value.isEmpty ? nil : first.value
    }

    static func cookies(in request: Request) -> [(name: String, value: String)] {
        CookieHeader.pairs(request.headers[values: .cookie])
    }

    /// The Set-Cookie values: the session cookie, and with a cookie domain the forward cookie
    /// (`forward` is its value; both are cleared together with an empty value and `maxAge` 0).
    static func headers(value: String, forward: String?, maxAge: Int, secure: Bool, domain: String? = nil) -> [String] {
        let session = "\(name(secure: secure, domain: domain))=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax"
            + (secure || domain != nil ? "; Secure" : "")
        guard let domain else { return [session] }
        return [session, "\(forwardName)=\(forward ?? ""); Domain=\(domain); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax; Secure"]
    }

    /// Whether the request came over https: its Origin is one of the RP's https origins, or
    /// (no Origin) its Host is the host of one.
    static func isSecure(_ request: Request, origins: Set<String>) -> Bool {
        if let origin = request.headers[.origin], origins.contains(origin) {
            return origin.hasPrefix("https://")
        }
        guard var host = request.head.authority?.lowercased() else { return false }
        if host.hasSuffix(":443") { host.removeLast(4) }
        return origins.contains("https://" + host)
    }
}
