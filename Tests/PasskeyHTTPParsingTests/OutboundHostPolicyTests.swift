import Foundation
@testable import PasskeyHTTPParsing
import Testing

/// Where the server fetches what a client names (docs/contracts/identity.md, "Machine and agent
/// clients"): each rule of `OutboundHostPolicy`.
@Suite struct OutboundHostPolicyTests {
    static func policy(_ patterns: String...) throws -> OutboundHostPolicy {
        OutboundHostPolicy(patterns: try patterns.map { try OutboundHostPolicy.Pattern($0) })
    }

    static func url(_ text: String) -> URL { URL(string: text)! }

    @Test func withoutPatternsAnyPublicHttpsHostIsFetched() throws {
        let policy = OutboundHostPolicy()
        let permit = try policy.check(Self.url("https://agent.example/jwks.json"))
        #expect(permit == .init(host: "agent.example", port: 443, named: false))
        try policy.check(addresses: [[93, 184, 215, 14]], for: permit)
        #expect(throws: OutboundHostPolicy.Refusal.self) { try policy.check(addresses: [[10, 0, 0, 7]], for: permit) }
        #expect(throws: OutboundHostPolicy.Refusal.self) { try policy.check(addresses: [], for: permit) }
        #expect(throws: OutboundHostPolicy.Refusal.self) { try policy.check(Self.url("http://agent.example/jwks.json")) }
        #expect(throws: OutboundHostPolicy.Refusal.self) { try policy.check(Self.url("ftp://agent.example/jwks.json")) }
        #expect(throws: OutboundHostPolicy.Refusal.self) { try policy.check(Self.url("https://user:pw@agent.example/jwks.json")) }
    }

    @Test func patternsLimitTheHostsAndNameThePrivateOnes() throws {
        let policy = try Self.policy("*.corp.example", "keys.example:8443", "127.0.0.1")
        #expect(try policy.check(Self.url("https://a.corp.example/k")).named)
        #expect(throws: OutboundHostPolicy.Refusal.self) { try policy.check(Self.url("https://corp.example/k")) }
        #expect(try policy.check(Self.url("https://keys.example:8443/k")).named)
        #expect(throws: OutboundHostPolicy.Refusal.self) { try policy.check(Self.url("https://keys.example/k")) }
        #expect(throws: OutboundHostPolicy.Refusal.self) { try policy.check(Self.url("https://elsewhere.example/k")) }
        // A named host may be private; http only on a named loopback host, written as named.
        let named = try policy.check(Self.url("https://a.corp.example/k"))
        try policy.check(addresses: [[10, 1, 2, 3]], for: named)
        let loopback = try policy.check(Self.url("http://127.0.0.1:9000/k"))
        try policy.check(addresses: [[127, 0, 0, 1]], for: loopback)
        #expect(throws: OutboundHostPolicy.Refusal.self) { try policy.check(Self.url("http://localhost:9000/k")) }
    }

    @Test(arguments: [
        ("0.0.0.0", true), ("10.1.1.1", true), ("100.64.0.1", true), ("127.0.0.1", true), ("169.254.169.254", true), ("172.16.0.1", true),
        ("172.31.255.255", true), ("192.168.1.1", true), ("198.18.0.1", true), ("224.0.0.1", true), ("192.0.0.8", true),
        ("172.32.0.1", false), ("8.8.8.8", false), ("100.128.0.1", false),
    ])
    func ipv4RangesAreClassified(_ address: String, _ isInternal: Bool) {
        let bytes = address.split(separator: ".").map { UInt8($0)! }
        #expect(OutboundHostPolicy.isInternal(bytes) == isInternal)
    }

    @Test func ipv6RangesAreClassifiedWithTheMappedIPv4Ones() {
        var loopback = [UInt8](repeating: 0, count: 16)
        loopback[15] = 1
        #expect(OutboundHostPolicy.isInternal(loopback))
        #expect(OutboundHostPolicy.isInternal([0xFE, 0x80] + [UInt8](repeating: 0, count: 14)))
        #expect(OutboundHostPolicy.isInternal([0xFD, 0x12] + [UInt8](repeating: 0, count: 14)))
        #expect(OutboundHostPolicy.isInternal([UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 169, 254, 169, 254]))
        #expect(!OutboundHostPolicy.isInternal([UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 8, 8, 8, 8]))
        #expect(!OutboundHostPolicy.isInternal([0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 1, count: 12)))
        #expect(OutboundHostPolicy.isInternal([1, 2, 3]))
    }

    @Test(arguments: ["", "*", "*.", "a b", "host:0", "host:99999", "exa*mple.com", "host:x", "::1", "[::1", "[not-v6]", "a_b.example", "*.[::1]"])
    func aBadPatternIsRefused(_ text: String) {
        #expect(throws: OutboundHostPolicy.Refusal.self) { try OutboundHostPolicy.Pattern(text) }
    }
}
