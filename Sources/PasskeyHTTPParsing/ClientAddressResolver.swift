internal import Foundation

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
    public func resolve(peerBytes: [UInt8], forwardedFor: [String]) -> String {
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

    public func isTrusted(_ address: [UInt8]) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// `[::1]:443` → `::1`, `1.2.3.4:80` → `1.2.3.4`; anything else unchanged.
    public static func stripPort(_ hop: String) -> String {
        if hop.hasPrefix("["), let end = hop.firstIndex(of: "]") {
            return String(hop[hop.index(after: hop.startIndex)..<end])
        }
        if hop.filter({ $0 == ":" }).count == 1, let colon = hop.firstIndex(of: ":") {
            return String(hop[..<colon])
        }
        return hop
    }
}
