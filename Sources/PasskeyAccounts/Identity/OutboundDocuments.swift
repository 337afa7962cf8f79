public import Foundation
public import PasskeyAssociation

/// The outbound client as the OpenID provider uses it: a host's addresses, and one GET with
/// the caps given (no redirects followed, no cookies). The composition root gives the real one.
public protocol OutboundDocuments: Sendable {
    func addresses(of host: String) async throws -> [[UInt8]]
    func get(_ url: URL, maximumBytes: Int, timeout: TimeInterval) async throws -> FetchedDocument
}
