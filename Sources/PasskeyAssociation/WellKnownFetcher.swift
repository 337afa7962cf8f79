public import Foundation

/// What one GET of a well-known file answered, exactly as received: redirects are not followed
/// (Apple's and Google's fetchers do not follow them either), so a 3xx comes back as itself.
public struct FetchedDocument: Sendable {
    /// The URL that was requested.
    public let url: URL
    public let status: Int
    /// Header names in lower case.
    public let headers: [String: String]
    /// The body, cut at the fetcher's cap (then `truncated` is true).
    public let body: [UInt8]
    public let truncated: Bool

    public init(url: URL, status: Int, headers: [String: String], body: [UInt8], truncated: Bool = false) {
        self.url = url
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
        self.truncated = truncated
    }

    public var contentType: String? { headers["content-type"] }
    public var location: String? { headers["location"] }
}

/// Fetches a well-known file once, with redirects refused, a timeout, and a cap on the bytes
/// read. The checkers are given one; the command line's goes over the network (PasskeyOutbound).
public protocol WellKnownFetching: Sendable {
    func fetch(_ url: URL) async throws(WellKnownFetchFailure) -> FetchedDocument
}

/// Why a fetch got no HTTP answer: "timed out", "connection refused", "host not found", "TLS
/// failed: …".
public struct WellKnownFetchFailure: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
