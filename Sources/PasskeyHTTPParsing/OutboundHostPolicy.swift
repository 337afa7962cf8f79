public import Foundation

/// Which URLs the server may fetch on a client's word: a `--jwks-uri` key set, and client ID
/// metadata documents (docs/contracts/identity.md, "Machine and agent clients"). A client chooses
/// these URLs, so a fetch must not reach what only the server can reach: the operator's
/// `--client-metadata-hosts` patterns limit the hosts, addresses in private, loopback and
/// link-local ranges are refused unless a pattern names the host, and plain `http` is accepted
/// only for a loopback host a pattern names (tests, local development).
public struct OutboundHostPolicy: Sendable, Equatable {
    /// One `--client-metadata-hosts` value: `host` or `*.example.com`, with an optional `:port`
    /// (without one, every port). Compared with the URL's host as written, lower-cased: a
    /// pattern `localhost` does not name `127.0.0.1`.
    public struct Pattern: Sendable, Equatable, CustomStringConvertible {
        /// The host, lower-cased; for a wildcard, the suffix after `*.`.
        let host: String
        let wildcard: Bool
        let port: Int?

        public init(_ text: String) throws(Refusal) {
            var rest = Substring(text.lowercased())
            var port: Int?
            // A port follows the last colon, after a bracketed IPv6 address if there is one.
            let hostEnd = rest.hasPrefix("[") ? rest.firstIndex(of: "]").map { rest.index(after: $0) } ?? rest.endIndex : rest.startIndex
            if let colon = rest[hostEnd...].lastIndex(of: ":") {
                guard let number = Int(rest[rest.index(after: colon)...]), (1...65535).contains(number) else {
                    throw Refusal("--client-metadata-hosts \(text.prefix(64)): the port must be 1 to 65535")
                }
                port = number
                rest = rest[..<colon]
            }
            let refusal = Refusal("--client-metadata-hosts \(text.prefix(64)) is not a host name, *.domain or address, with an optional :port")
            if rest.hasPrefix("[") {
                // An IPv6 address, in brackets as in a URL.
                guard rest.hasSuffix("]"), IPAddress.parseIPv6(String(rest.dropFirst().dropLast())) != nil else { throw refusal }
                self.host = String(rest.dropFirst().dropLast())
                self.wildcard = false
                self.port = port
                return
            }
            let wildcard = rest.hasPrefix("*.")
            if wildcard { rest = rest.dropFirst(2) }
            guard !rest.isEmpty, rest.utf8.count <= 253,
                  rest.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E })
            else { throw refusal }
            self.host = String(rest)
            self.wildcard = wildcard
            self.port = port
        }

        /// Whether this pattern names `host` (as the URL writes it) on `port`.
        func names(host: String, port: Int) -> Bool {
            if let own = self.port, own != port { return false }
            let host = Self.unbracketed(host.lowercased())
            return wildcard ? host.hasSuffix("." + self.host) : host == self.host
        }

        /// An IPv6 address without its URL brackets, as Foundation gives a URL's host either way.
        static func unbracketed(_ host: String) -> String {
            host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        }

        public var description: String {
            (wildcard ? "*." : "") + (host.contains(":") ? "[" + host + "]" : host) + (port.map { ":\($0)" } ?? "")
        }
    }

    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// A URL the policy let through, before its addresses are known.
    public struct Permit: Sendable, Equatable {
        public let host: String
        public let port: Int
        /// A pattern names the host: its addresses may be private, loopback or link-local.
        public let named: Bool
    }

    public var patterns: [Pattern]

    public init(patterns: [Pattern] = []) {
        self.patterns = patterns
    }

    /// The checks made on the URL alone, in order: `https` (or `http` for a loopback host a
    /// pattern names), no credentials, a host the patterns admit (any public host when there
    /// are none).
    public func check(_ url: URL) throws(Refusal) -> Permit {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty
        else { throw Refusal("\(url.absoluteString.prefix(64)) is not an absolute URL with a host") }
        guard components.user == nil, components.password == nil else { throw Refusal("the URL carries credentials") }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        let named = patterns.contains { $0.names(host: host, port: port) }
        switch scheme {
        case "https":
            break
        case "http":
            guard named, Self.isLoopbackName(host) else {
                throw Refusal("\(host.prefix(64)): plain http is fetched only from a loopback host --client-metadata-hosts names")
            }
        default:
            throw Refusal("\(scheme.prefix(16)) URLs are not fetched, only https")
        }
        guard patterns.isEmpty || named else { throw Refusal("\(host.prefix(64)) is not a host --client-metadata-hosts names") }
        return Permit(host: host, port: port, named: named)
    }

    /// The check made once the host's addresses are known: every one public, unless the host
    /// is named. An address is 4 bytes (IPv4) or 16 (IPv6).
    public func check(addresses: [[UInt8]], for permit: Permit) throws(Refusal) {
        guard !addresses.isEmpty else { throw Refusal("\(permit.host.prefix(64)) has no address") }
        guard !permit.named else { return }
        if addresses.contains(where: Self.isInternal) {
            throw Refusal("\(permit.host.prefix(64)) has a private, loopback or link-local address, which only a --client-metadata-hosts pattern allows")
        }
    }

    static func isLoopbackName(_ host: String) -> Bool {
        let host = host.lowercased()
        return host == "localhost" || host == "[::1]" || host == "::1" || (host.hasPrefix("127.") && host.allSatisfy { $0.isNumber || $0 == "." })
    }

    /// An address the public internet does not route to this server's peers: IPv4 0/8, 10/8,
    /// 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, 192.168/16, 198.18/15, 224/4 and
    /// above; IPv6 ::, ::1, fc00::/7, fe80::/10, ff00::/8, and IPv4-mapped or -compatible
    /// forms of the IPv4 ranges.
    public static func isInternal(_ address: [UInt8]) -> Bool {
        switch address.count {
        case 4:
            let (a, b) = (address[0], address[1])
            return a == 0 || a == 10 || a == 127 || a >= 224 || (a == 100 && (64...127).contains(b)) || (a == 169 && b == 254)
                || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168) || (a == 192 && b == 0 && address[2] == 0)
                || (a == 198 && (b == 18 || b == 19))
        case 16:
            if address[0..<15].allSatisfy({ $0 == 0 }) { return true }  // :: and ::1
            if address[0..<10].allSatisfy({ $0 == 0 }), (address[10] == 0xFF && address[11] == 0xFF) || (address[10] == 0 && address[11] == 0) {
                return isInternal(Array(address[12..<16]))  // ::ffff:a.b.c.d and ::a.b.c.d
            }
            return address[0] & 0xFE == 0xFC || (address[0] == 0xFE && address[1] & 0xC0 == 0x80) || address[0] == 0xFF
        default:
            return true
        }
    }
}
