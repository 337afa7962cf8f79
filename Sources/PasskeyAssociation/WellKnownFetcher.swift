public import Foundation
#if canImport(FoundationNetworking)
internal import FoundationNetworking
#endif
internal import Synchronization

/// What one GET of a well-known file answered, exactly as received: redirects are not followed
/// (Apple's and Google's fetchers do not follow them either), so a 3xx comes back as itself.
public struct FetchedDocument: Sendable {
    /// The URL that was requested.
    public let url: URL
    public let status: Int
    /// Header names in lower case.
    public let headers: [String: String]
    /// The body, cut at `WellKnownFetcher.maximumBytes` (then `truncated` is true).
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

/// Fetches a well-known file once, with redirects refused, a timeout, and a cap on the bytes read.
public struct WellKnownFetcher: Sendable {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

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

    public func fetch(_ url: URL) async throws(Failure) -> FetchedDocument {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        let delegate = FetchDelegate(maximumBytes: maximumBytes)
        // The delegate (not a completion handler) receives the task's events: only then does
        // URLSession ask it about redirects instead of following them.
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "GET"
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        let outcome = await withCheckedContinuation { continuation in
            delegate.start(session.dataTask(with: request), continuation: continuation)
        }
        switch outcome {
        case .success(let (response, body, truncated)):
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                headers["\(name)".lowercased()] = "\(value)"
            }
            return FetchedDocument(url: url, status: response.statusCode, headers: headers, body: body, truncated: truncated)
        case .failure(let failure):
            throw failure
        }
    }
}

/// Collects one data task's answer. Refuses every redirect, stops reading past the cap.
private final class FetchDelegate: NSObject, URLSessionDataDelegate, Sendable {
    typealias Outcome = Result<(HTTPURLResponse, [UInt8], Bool), WellKnownFetcher.Failure>

    private struct State {
        var body: [UInt8] = []
        var truncated = false
        var continuation: CheckedContinuation<Outcome, Never>?
    }

    private let maximumBytes: Int
    private let state = Mutex(State())

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<Outcome, Never>) {
        state.withLock { $0.continuation = continuation }
        task.resume()
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)   // report the 3xx as it is
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflow = state.withLock { state -> Bool in
            let room = maximumBytes + 1 - state.body.count
            state.body += data.prefix(max(0, room))
            if state.body.count > maximumBytes {
                state.body.removeLast(state.body.count - maximumBytes)
                state.truncated = true
            }
            return state.truncated
        }
        if overflow { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, body, truncated) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.body, state.truncated)
        }
        guard let continuation else { return }
        if let response = task.response as? HTTPURLResponse, error == nil || truncated {
            continuation.resume(returning: .success((response, body, truncated)))
        } else if let error {
            continuation.resume(returning: .failure(.init(description: Self.describe(error))))
        } else {
            continuation.resume(returning: .failure(.init(description: "no HTTP response")))
        }
    }

    static func describe(_ error: any Error) -> String {
        let error = error as NSError
        switch (error.domain, error.code) {
        case (NSURLErrorDomain, NSURLErrorTimedOut): return "timed out"
        case (NSURLErrorDomain, NSURLErrorCannotConnectToHost): return "connection refused"
        case (NSURLErrorDomain, NSURLErrorCannotFindHost), (NSURLErrorDomain, NSURLErrorDNSLookupFailed): return "host not found"
        case (NSURLErrorDomain, NSURLErrorServerCertificateUntrusted), (NSURLErrorDomain, NSURLErrorServerCertificateHasBadDate),
             (NSURLErrorDomain, NSURLErrorServerCertificateHasUnknownRoot), (NSURLErrorDomain, NSURLErrorServerCertificateNotYetValid),
             (NSURLErrorDomain, NSURLErrorSecureConnectionFailed):
            return "TLS failed: \(error.localizedDescription)"
        default: return error.localizedDescription
        }
    }
}
