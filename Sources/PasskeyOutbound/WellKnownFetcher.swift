public import Foundation
public import PasskeyAssociation
internal import AsyncHTTPClient
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
internal import NIOSSL

/// One GET of a well-known file over async-http-client, the way Apple's and Google's fetchers
/// ask: redirects are not followed (a 3xx comes back as itself), no cookies, a timeout for the
/// whole exchange, and no more than `maximumBytes` of the body read.
public struct WellKnownFetcher: WellKnownFetching {
    public var timeout: TimeInterval
    /// Bytes read at most; more marks the document truncated (every file checked here has a
    /// limit far below this).
    public var maximumBytes: Int
    public var userAgent: String

    public init(timeout: TimeInterval = 10, maximumBytes: Int = 1 << 20, userAgent: String = "passkey-server association check") {
        self.timeout = timeout
        self.maximumBytes = maximumBytes
        self.userAgent = userAgent
    }

    public func fetch(_ url: URL) async throws(WellKnownFetchFailure) -> FetchedDocument {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .milliseconds(Int64(timeout * 1000)), read: .milliseconds(Int64(timeout * 1000)))
        configuration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .shared(HTTPClient.defaultEventLoopGroup), configuration: configuration)
        let result = await Self.get(url, client: client, timeout: timeout, maximumBytes: maximumBytes, userAgent: userAgent)
        try? await client.shutdown()
        return try result.get()
    }

    private static func get(_ url: URL, client: HTTPClient, timeout: TimeInterval, maximumBytes: Int, userAgent: String) async
        -> Result<FetchedDocument, WellKnownFetchFailure>
    {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: userAgent)
        let deadline = NIODeadline.now() + .milliseconds(Int64(timeout * 1000))
        do {
            let response = try await client.execute(request, deadline: deadline)
            var body: [UInt8] = []
            var truncated = false
            for try await chunk in response.body {
                let room = maximumBytes - body.count
                if chunk.readableBytes > room {
                    body += chunk.readableBytesView.prefix(room)
                    truncated = true
                    break
                }
                body += chunk.readableBytesView
            }
            var headers: [String: String] = [:]
            for header in response.headers where headers[header.name.lowercased()] == nil {
                headers[header.name.lowercased()] = header.value
            }
            return .success(FetchedDocument(url: url, status: Int(response.status.code), headers: headers, body: body, truncated: truncated))
        } catch {
            return .failure(WellKnownFetchFailure(describe(error)))
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout: return "timed out"
            case .remoteConnectionClosed: return "connection lost"
            default: return "\(error)"
            }
        }
        if error is NIOConnectionError { return "connection refused" }
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED { return "connection refused" }
        if error is NIOSSLError || error is BoringSSLError { return "TLS failed: \(error)" }
        if error is SocketAddressError { return "host not found" }
        if error is CancellationError { return "cancelled" }
        return "\(error)"
    }
}
