public import Foundation
internal import AsyncHTTPClient
internal import NIOCore
internal import NIOHTTP1
internal import PasskeyHTTPParsing
internal import PasskeyJSON

/// A form POSTed to another service (a relying party's back-channel logout URI): the status it
/// answered, its body never read past a few KiB. Any status is returned; the caller judges.
public enum FormPost {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    static let maximumBody = 16 * 1024

    public static func send(url: String, form: [(String, String)], timeout: TimeInterval) async throws -> Int {
        try await post(
            url: url, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: ByteBuffer(string: FormURLEncoded.encode(form.map { (name: $0.0, value: $0.1) })), timeout: timeout)
    }

    /// POSTs `body` with `headers` to an http(s) `url`: the status, the body read no further
    /// than `maximumBody`.
    static func post(url: String, headers: [(String, String)], body: ByteBuffer, timeout: TimeInterval) async throws -> Int {
        guard let parsed = URL(string: url), let scheme = parsed.scheme, ["https", "http"].contains(scheme) else {
            throw Failure(description: "\(url.prefix(128)) is not an http(s) URL")
        }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(body)
        let milliseconds = Int64(min(max(timeout, 0.1), 300) * 1000)
        let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(milliseconds))
        _ = try? await response.body.collect(upTo: maximumBody)
        return Int(response.status.code)
    }
}

/// A JSON object POSTed to another service with a Bearer token (a CIBA ping client's
/// notification endpoint): the status it answered, its body never read past a few KiB.
public enum JSONPost {
    public static func send(url: String, json: [String: String], bearer: String, timeout: TimeInterval) async throws -> Int {
        try await FormPost.post(
            url: url, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer " + bearer)],
            body: ByteBuffer(bytes: JSONValue.object(json.mapValues(JSONValue.string)).encoded()), timeout: timeout)
    }
}
