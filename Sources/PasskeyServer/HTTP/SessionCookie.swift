internal import PasskeyAccounts
public import Hummingbird
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
/// With `--cookie-domain` (forward authentication for applications on sibling hosts) it is
/// `__Secure-session` with `Domain=` that domain, always Secure, and only that name is read.
enum SessionCookie {
    static let secureName = "__Host-session"
    static let plainName = "session"
    static let domainName = "__Secure-session"

    static func name(secure: Bool, domain: String? = nil) -> String { domain != nil ? domainName : secure ? secureName : plainName }

    static func isPresent(in request: Request) -> Bool {
        cookies(in: request).contains { $0.name == secureName || $0.name == plainName || $0.name == domainName }
    }

    /// The token from the first cookie named for this request's scheme (or the cookie domain).
    static func token(in request: Request, secure: Bool, domain: String? = nil) -> String? {
        let wanted = name(secure: secure, domain: domain)
        guard let first = cookies(in: request).first(where: { $0.name == wanted }) else { return nil }
        return first.value.isEmpty ? nil : first.value
    }

    static func cookies(in request: Request) -> [(name: String, value: String)] {
        CookieHeader.pairs(request.headers[values: .cookie])
    }

    /// A Set-Cookie value.
    static func header(value: String, maxAge: Int, secure: Bool, domain: String? = nil) -> String {
        if let domain {
            return "\(domainName)=\(value); Domain=\(domain); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax; Secure"
        }
        return "\(name(secure: secure))=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
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

/// The short-lived cookies of Sign in with Apple's web flow, both `HttpOnly; Secure`, scoped to
/// `/siwa`. `Secure` is accepted by browsers from `http://localhost` too (local development).
struct SIWACookie {
    let name: String
    let sameSite: String

    /// The browser binding: set by `GET /siwa/initialize`, read and cleared by
    /// `POST /siwa/callback`, whose state is valid only with it. Apple's form post is a
    /// cross-site POST, so `SameSite=None` (a Lax cookie would not come back with it).
    static let binding = SIWACookie(name: "siwa_binding", sameSite: "None")
    /// A link that waits for its owner's confirmation (`PendingAppleLink`, sealed): set by the
    /// callback, read and cleared by `POST /siwa/link/confirm`, which the page sends from this
    /// origin, so `SameSite=Strict`.
    static let link = SIWACookie(name: "siwa_link", sameSite: "Strict")

    func value(in request: Request) -> String? {
        CookieHeader.first(name, in: request.headers[values: .cookie]).flatMap { $0.isEmpty ? nil : $0 }
    }

    func header(value: String, maxAge: Int) -> String {
        "\(name)=\(value); Path=/siwa; Max-Age=\(maxAge); HttpOnly; SameSite=\(sameSite); Secure"
    }
}
