public import Foundation
public import PasskeyAssociation
internal import PasskeyHTTPParsing

/// The outbound client as the OpenID provider uses it: a host's addresses, and one GET with
/// the caps given (no redirects followed, no cookies). The composition root gives the real one.
public protocol OutboundDocuments: Sendable {
    func addresses(of host: String) async throws -> [[UInt8]]
    func get(_ url: URL, maximumBytes: Int, timeout: TimeInterval) async throws -> FetchedDocument
}

extension OutboundDocuments {
    /// GET `url` only where `policy` allows: the URL is checked, then the addresses its host
    /// resolves to, before anything is fetched. The answer when it is a whole 200; a reason
    /// naming `what` otherwise.
    func fetchAllowed(_ url: URL, policy: OutboundHostPolicy, maximumBytes: Int, timeout: TimeInterval, what: String) async -> Result<FetchedDocument, OutboundRefusal> {
        let permit: OutboundHostPolicy.Permit
        do { permit = try policy.check(url) } catch { return .failure(OutboundRefusal(description: error.description)) }
        let found: [[UInt8]]
        do { found = try await addresses(of: permit.host) } catch { return .failure(OutboundRefusal(description: "\(permit.host.prefix(64)) was not resolved")) }
        do { try policy.check(addresses: found, for: permit) } catch { return .failure(OutboundRefusal(description: error.description)) }
        let document: FetchedDocument
        do { document = try await get(url, maximumBytes: maximumBytes, timeout: timeout) } catch {
            return .failure(OutboundRefusal(description: "\(what) was not fetched: \(error)"))
        }
        guard document.status == 200 else { return .failure(OutboundRefusal(description: "\(what)'s URL answered \(document.status)")) }
        guard !document.truncated else { return .failure(OutboundRefusal(description: "\(what) is over \(maximumBytes) bytes")) }
        return .success(document)
    }
}

/// Why a document was not fetched.
public struct OutboundRefusal: Error, Sendable, CustomStringConvertible {
    public let description: String
}
