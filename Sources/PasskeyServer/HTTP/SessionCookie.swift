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
enum SessionCookie {
    static let secureName = "__Host-session"
    static let plainName = "session"

    static func name(secure: Bool) -> String { secure ? secureName : plainName }

    static func isPresent(in request: Request) -> Bool {
        cookies(in: request).contains { $0.name == secureName || $0.name == plainName }
    }

    /// The token from the first cookie named for this request's scheme.
    static func token(in request: Request, secure: Bool) -> String? {
        let wanted = name(secure: secure)
        guard let first = cookies(in: request).first(where: { $0.name == wanted }) else { return nil }
        return first.value.isEmpty ? nil : first.value
    }

    static func cookies(in request: Request) -> [(name: String, value: String)] {
        CookieHeader.pairs(request.headers[values: .cookie])
    }

    /// A Set-Cookie value.
    static func header(value: String, maxAge: Int, secure: Bool) -> String {
        "\(name(secure: secure))=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
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
