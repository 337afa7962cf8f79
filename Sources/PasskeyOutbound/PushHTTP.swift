internal import AsyncHTTPClient
internal import Foundation
internal import NIOCore
internal import NIOHTTP1

/// The providers' one round trip over async-http-client, with a deadline and a bounded body:
/// whatever a provider (or something posing as one) answers, at most `maximumBody` bytes are
/// read and nothing in the answer is trusted to be well formed.
enum PushHTTP {
    /// A provider's answer is an empty body or a small JSON object; more is refused.
    static let maximumBody = 64 * 1024

    struct Response: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]
    }

    static func send(_ request: HTTPClientRequest, client: HTTPClient, timeout: TimeInterval) async throws -> Response {
        let response = try await client.execute(request, timeout: .milliseconds(milliseconds(timeout)))
        let buffer = try await response.body.collect(upTo: maximumBody)
        return Response(status: Int(response.status.code), headers: response.headers, body: Array(buffer.readableBytesView))
    }

    /// A timeout in 0.1…300 s (a non-finite one counts as 10 s), in milliseconds.
    static func milliseconds(_ timeout: TimeInterval) -> Int64 {
        let seconds = timeout.isFinite ? min(max(timeout, 0.1), 300) : 10
        return Int64(seconds * 1000)
    }

    /// The body as a JSON object, nil for anything else (garbage, an array, nothing).
    static func jsonObject(_ body: [UInt8]) -> [String: Any]? {
        guard !body.isEmpty else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    /// A JSON request body from an `Encodable` value, keys sorted (stable for tests and logs).
    static func jsonBody(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// An http or https URL with a host, without a trailing slash (paths are appended to it);
    /// nil for anything else.
    static func baseURL(_ text: String) -> String? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return isHTTPURL(trimmed) ? trimmed : nil
    }

    /// Whether `text` is an http or https URL with a host.
    static func isHTTPURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = url.host, !host.isEmpty
        else { return false }
        return true
    }

    /// A short text for a transport failure (no response at all).
    static func describe(_ error: any Error) -> String {
        "request failed: \(error)"
    }
}
