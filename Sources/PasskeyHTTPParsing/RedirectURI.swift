/// Redirect URIs as the OpenID provider compares them (docs/contracts/identity.md; RFC 9700 §4.1.3; RFC 8252
/// §7.3): as exact strings — no prefix, no wildcard, no normalisation of case, dots, escapes or
/// a trailing slash — with one exception: for an `http` URI on a loopback host (`127.0.0.1`,
/// `[::1]`, `localhost`) the port is left out, because a native app listens on whatever port
/// the system gives it.
public enum RedirectURI {
    static let loopbackHosts: Set<Substring> = ["127.0.0.1", "[::1]", "localhost"]

    /// An `http` loopback URI split around its port: what comes before the port (scheme and
    /// host) and what comes after it (path, query), both as written. Nil for anything else,
    /// userinfo and a port that is not 1 to 5 digits included.
    struct Loopback: Equatable {
        let host: Substring
        let rest: Substring
    }

    static func loopback(_ uri: String) -> Loopback? {
        guard uri.hasPrefix("http://") else { return nil }
        let afterScheme = uri.dropFirst("http://".count)
        let authorityEnd = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        guard !authority.contains("@") else { return nil }
        let host: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let port = authority[authority.index(after: close)...]
            guard port.isEmpty || isPort(port) else { return nil }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            guard isPort(authority[colon...]) else { return nil }
        } else {
            host = authority
        }
        guard loopbackHosts.contains(host) else { return nil }
        return Loopback(host: host, rest: afterScheme[authorityEnd...])
    }

    /// `:` and 1 to 5 ASCII digits.
    static func isPort(_ text: Substring) -> Bool {
        guard text.first == ":" else { return false }
        let digits = text.dropFirst()
        return (1...5).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Whether `requested` is `registered`: the same string, or both `http` loopback URIs that
    /// differ only in their port.
    public static func matches(_ requested: String, registered: String) -> Bool {
        if requested.utf8.elementsEqual(registered.utf8) { return true }
        guard let wanted = loopback(requested), let allowed = loopback(registered) else { return false }
        return wanted.host.utf8.elementsEqual(allowed.host.utf8) && wanted.rest.utf8.elementsEqual(allowed.rest.utf8)
    }

    /// The registered URI `requested` matches, if any.
    public static func match(_ requested: String, in registered: [String]) -> String? {
        registered.first { matches(requested, registered: $0) }
    }
}
