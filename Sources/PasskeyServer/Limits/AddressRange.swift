internal import Foundation

/// An IPv4 or IPv6 address range in CIDR notation (`10.0.0.0/8`, `::1/128`; a bare address is
/// a single-address range), for `--trusted-proxy`.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    /// The network address, 4 or 16 bytes.
    let network: [UInt8]
    let prefixLength: Int
    public let description: String

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress.parse(String(parts[0])) else { return nil }
        let bits = address.count * 8
        var length = bits
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), parts[1].allSatisfy(\.isASCII), (0...bits).contains(parsed) else { return nil }
            length = parsed
        }
        network = IPAddress.masked(address, prefixLength: length)
        prefixLength = length
        description = text
    }

    /// Whether `address` (4 or 16 bytes) is inside the range. An IPv4-mapped IPv6 address
    /// (::ffff:a.b.c.d) is matched as the IPv4 address.
    public func contains(_ address: [UInt8]) -> Bool {
        let candidate = IPAddress.unmapped(address)
        guard candidate.count == network.count else { return false }
        return IPAddress.masked(candidate, prefixLength: prefixLength) == network
    }
}

/// Textual IP addresses as bytes: dotted IPv4, and IPv6 with `::` compression and an optional
/// embedded IPv4 tail. Anything else (zone ids, ports, names) is nil.
enum IPAddress {
    static func parse(_ text: String) -> [UInt8]? {
        if text.contains(":") { return parseIPv6(text) }
        return parseIPv4(text)
    }

    static func parseIPv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = UInt8(part), !(part.count > 1 && part.first == "0")
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    static func parseIPv6(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 45 else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    guard let v4 = parseIPv4(String(piece)) else { return nil }
                    bytes += v4
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16), piece.allSatisfy(\.isHexDigit) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 {
            return head.count == 16 ? head : nil
        }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    static func masked(_ address: [UInt8], prefixLength: Int) -> [UInt8] {
        address.enumerated().map { index, byte in
            let bitsInByte = min(max(prefixLength - index * 8, 0), 8)
            let mask: UInt8 = bitsInByte == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bitsInByte))
            return byte & mask
        }
    }

    /// ::ffff:a.b.c.d → a.b.c.d; any other address unchanged.
    static func unmapped(_ address: [UInt8]) -> [UInt8] {
        guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF else {
            return address
        }
        return Array(address[12...])
    }

    static func text(_ address: [UInt8]) -> String {
        let address = unmapped(address)
        if address.count == 4 { return address.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: address.count, by: 2)
            .map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}

/// Who the client is, for rate limits and the audit trail: the socket's peer, or — when the
/// peer is a trusted proxy — the last address in X-Forwarded-For that is not itself a trusted
/// proxy. X-Forwarded-For from anyone else is ignored, so a client cannot pick its own key.
public struct ClientAddressResolver: Sendable {
    public let trustedProxies: [AddressRange]

    public init(trustedProxies: [AddressRange]) {
        self.trustedProxies = trustedProxies
    }

    /// `peer` is the socket's peer address as text; `forwardedFor` every X-Forwarded-For value
    /// in order. Returns the client address as text (normalised when it parses).
    public func resolve(peer: String?, forwardedFor: [String]) -> String {
        guard let peer, let peerBytes = IPAddress.parse(peer) else { return peer ?? "unknown" }
        return resolve(peerBytes: peerBytes, forwardedFor: forwardedFor)
    }

    /// The same with the peer's address as bytes (4 or 16), as the socket gives it: no text
    /// to print and parse again for every request.
    func resolve(peerBytes: [UInt8], forwardedFor: [String]) -> String {
        guard isTrusted(peerBytes), !forwardedFor.isEmpty else { return IPAddress.text(peerBytes) }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            guard let bytes = IPAddress.parse(Self.stripPort(hop)) else {
                // An unreadable hop: the chain cannot be followed past it; it is the client.
                return IPAddress.text(peerBytes)
            }
            if !isTrusted(bytes) { return IPAddress.text(bytes) }
        }
        return IPAddress.text(peerBytes)
    }

    func isTrusted(_ address: [UInt8]) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// `[::1]:443` → `::1`, `1.2.3.4:80` → `1.2.3.4`; anything else unchanged.
    static func stripPort(_ hop: String) -> String {
        if hop.hasPrefix("["), let end = hop.firstIndex(of: "]") {
            return String(hop[hop.index(after: hop.startIndex)..<end])
        }
        if hop.filter({ $0 == ":" }).count == 1, let colon = hop.firstIndex(of: ":") {
            return String(hop[..<colon])
        }
        return hop
    }
}
