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
