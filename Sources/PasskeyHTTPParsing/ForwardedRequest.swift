internal import PasskeyJSON

/// The request a reverse proxy asks about (docs/contracts/identity.md, "Forward authentication for reverse
/// proxies"): from nginx's `X-Original-URL`, or from `X-Forwarded-Proto`, `-Host` and `-Uri`
/// (Caddy, Traefik), with `X-Forwarded-Method`. Only a trusted proxy's word is taken; this
/// parser only reads it, and refuses (nil) anything that is not one plain absolute request.
public struct ForwardedRequest: Sendable, Equatable {
    public let method: String?
    /// `http` or `https`.
    public let scheme: String
    /// Lower case, without the port; an IPv6 address in brackets.
    public let host: String
    public let port: Int?
    /// Path and query as the client sent them, starting with `/`.
    public let uri: String
    /// The path with each segment's `;` parameters removed (`/secure;x/users` is
    /// `/secure/users`, as a servlet container resolves it) and escapes of unreserved characters
    /// decoded (`/%61dmin` is `/admin`), or nil when the path has another spelling of a path (a
    /// dot segment, `..;` included, an empty segment, an encoded `/`, `\`, `.` or `%`, a
    /// backslash): no path rule can be judged on it.
    public let canonicalPath: String?

    public static let maximumHostLength = 253
    public static let maximumURILength = 8192

    /// The original URL: scheme, host, the port when there is one, and the URI.
    public var url: String { "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")\(uri)" }

    /// nginx: `X-Original-URL: https://app.example.com/path?query`.
    public static func parse(originalURL text: String, method: String?) -> ForwardedRequest? {
        let lower = text.prefix(8).lowercased()
        let scheme: String
        if lower.hasPrefix("https://") { scheme = "https" } else if lower.hasPrefix("http://") { scheme = "http" } else { return nil }
        let rest = text.dropFirst(scheme.count + 3)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<slash])
        let uri = slash == rest.endIndex ? "/" : String(rest[slash...])
        return make(method: method, scheme: scheme, authority: authority, uri: uri)
    }

    /// Caddy and Traefik: `X-Forwarded-Proto`, `X-Forwarded-Host`, `X-Forwarded-Uri`, each once.
    public static func parse(method: String?, proto: String?, host: String?, uri: String?) -> ForwardedRequest? {
        guard let proto = proto?.lowercased(), proto == "http" || proto == "https", let host, let uri else { return nil }
        return make(method: method, scheme: proto, authority: host, uri: uri)
    }

    static func make(method: String?, scheme: String, authority: String, uri: String) -> ForwardedRequest? {
        if let method, method.isEmpty || method.utf8.count > 16 || !method.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) { return nil }
        guard let (host, port) = splitAuthority(authority), uri.utf8.first == UInt8(ascii: "/"), uri.utf8.count <= maximumURILength,
              uri.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "#") })
        else { return nil }
        let path = String(uri.prefix { $0 != "?" })
        return ForwardedRequest(method: method, scheme: scheme, host: host, port: port, uri: uri, canonicalPath: canonical(path))
    }

    /// `host[:port]`: a DNS name (letters, digits, `-`, `.`), or an IPv6 address in brackets;
    /// no user info. The port, when given, 1…65535.
    static func splitAuthority(_ authority: String) -> (String, Int?)? {
        guard !authority.isEmpty, authority.utf8.count <= maximumHostLength + 8 else { return nil }
        var hostPart = Substring(authority)
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = parsePort(after.dropFirst()) else { return nil }
                port = value
            }
            let inner = hostPart.dropFirst().dropLast()
            guard !inner.isEmpty, inner.utf8.allSatisfy({ ASCIIHex.value($0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return nil }
            return (hostPart.lowercased(), port)
        }
        if let colon = authority.lastIndex(of: ":") {
            guard let value = parsePort(authority[authority.index(after: colon)...]) else { return nil }
            port = value
            hostPart = authority[..<colon]
        }
        let host = hostPart.lowercased()
        guard !host.isEmpty, host.utf8.count <= maximumHostLength, isDNSName(host) else { return nil }
        return (host, port)
    }

    /// Lower-case letters, digits, `-` and `.`; not starting with `.` or `-`; no `..`. Byte by
    /// byte: a forward-auth check runs this on every request a proxy passes.
    static func isDNSName(_ host: String) -> Bool {
        var first = true
        var previousDot = false
        for byte in host.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                previousDot = false
            case UInt8(ascii: "-"):
                if first { return false }
                previousDot = false
            case UInt8(ascii: "."):
                if first || previousDot { return false }
                previousDot = true
            default:
                return false
            }
            first = false
        }
        return true
    }

    static func parsePort(_ text: Substring) -> Int? {
        guard (1...5).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(text),
              (1...65535).contains(value)
        else { return nil }
        return value
    }

    /// The path without segments' parameters, with `%XX` of unreserved characters decoded, other
    /// escapes upper-cased; nil for another spelling of a path.
    static func canonical(_ path: String) -> String? {
        var out: [UInt8] = []
        var bytes = withoutPathParameters(path).makeIterator()
        while let byte = bytes.next() {
            if byte == UInt8(ascii: "\\") { return nil }
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard let high = bytes.next(), let low = bytes.next(), let h = ASCIIHex.value(high), let l = ASCIIHex.value(low) else { return nil }
            let decoded = h << 4 | l
            switch decoded {
            case UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "."), UInt8(ascii: "%"):
                return nil
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(decoded)
            default:
                out.append(contentsOf: Array("%".utf8) + [hexDigit(decoded >> 4), hexDigit(decoded & 0x0F)])
            }
        }
        let text = String(decoding: out, as: UTF8.self)
        let segments = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            if segment == "." || segment == ".." { return nil }
            if segment.isEmpty, index != segments.count - 1 { return nil }
        }
        return text
    }

    /// Each segment cut at its first `;` (RFC 3986 §3.3 leaves their meaning to the scheme; a
    /// servlet container drops them before it resolves the path, so a rule must too).
    static func withoutPathParameters(_ path: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        var inParameters = false
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                inParameters = false
            } else if byte == UInt8(ascii: ";") {
                inParameters = true
            }
            if !inParameters { out.append(byte) }
        }
        return out
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 { Array("0123456789ABCDEF".utf8)[Int(value)] }
}
