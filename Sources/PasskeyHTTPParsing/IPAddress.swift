internal import Foundation

/// Textual IP addresses as bytes: dotted IPv4, and IPv6 with `::` compression and an optional
/// embedded IPv4 tail. Anything else (zone ids, ports, names) is nil.
public enum IPAddress {
    public static func parse(_ text: String) -> [UInt8]? {
        if text.contains(":") { return parseIPv6(text) }
        return parseIPv4(text)
    }

    public static func parseIPv4(_ text: String) -> [UInt8]? {
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

    public static func parseIPv6(_ text: String) -> [UInt8]? {
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

    public static func masked(_ address: [UInt8], prefixLength: Int) -> [UInt8] {
        address.enumerated().map { index, byte in
            let bitsInByte = min(max(prefixLength - index * 8, 0), 8)
            let mask: UInt8 = bitsInByte == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bitsInByte))
            return byte & mask
        }
    }

    /// ::ffff:a.b.c.d → a.b.c.d; any other address unchanged.
    public static func unmapped(_ address: [UInt8]) -> [UInt8] {
        guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF else {
            return address
        }
        return Array(address[12...])
    }

    public static func text(_ address: [UInt8]) -> String {
        let address = unmapped(address)
        if address.count == 4 { return address.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: address.count, by: 2)
            .map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    /// The key a per-address limit counts under: an IPv4 address as it is, an IPv6 address by
    /// its /64 (`2001:db8:1:2:0:0:0:0/64`), since one subscriber is given a whole /64; an
    /// IPv4-mapped IPv6 address as its IPv4 address. Text that is not an address is its own key.
    public static func limitKey(_ address: String) -> String {
        guard let bytes = parse(address).map(unmapped) else { return address }
        guard bytes.count == 16 else { return text(bytes) }
        return text(masked(bytes, prefixLength: 64)) + "/64"
    }
}
