public import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// A host's addresses as the system resolver gives them (getaddrinfo), each 4 bytes (IPv4) or
/// 16 (IPv6): what a policy checks before the server fetches a URL a client chose.
public enum HostAddresses {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Runs off the caller's executor: getaddrinfo blocks.
    public static func resolve(_ host: String) async throws -> [[UInt8]] {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return try await Task.detached { try lookUp(name) }.value
    }

    static func lookUp(_ name: String) throws -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0, let first = list else { throw Failure(description: "\(name.prefix(64)) was not resolved") }
        defer { freeaddrinfo(first) }
        var addresses: [[UInt8]] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            if let address = entry.pointee.ai_addr {
                switch Int32(entry.pointee.ai_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        withUnsafeBytes(of: v4.pointee.sin_addr) { addresses.append(Array($0)) }
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        withUnsafeBytes(of: v6.pointee.sin6_addr) { addresses.append(Array($0)) }
                    }
                default:
                    break
                }
            }
            next = entry.pointee.ai_next
        }
        return addresses
    }
}
