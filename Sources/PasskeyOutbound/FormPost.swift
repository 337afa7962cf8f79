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
        guard let parsed = URL(string: url), let scheme = parsed.scheme, ["https", "http"].contains(scheme) else {
            throw Failure(description: "\(url.prefix(128)) is not an http(s) URL")
        }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormURLEncoded.encode(form.map { (name: $0.0, value: $0.1) })))
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
        guard let parsed = URL(string: url), let scheme = parsed.scheme, ["https", "http"].contains(scheme) else {
            throw FormPost.Failure(description: "\(url.prefix(128)) is not an http(s) URL")
        }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Authorization", value: "Bearer " + bearer)
        request.body = .bytes(ByteBuffer(bytes: JSONValue.object(json.mapValues(JSONValue.string)).encoded()))
        let milliseconds = Int64(min(max(timeout, 0.1), 300) * 1000)
        let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(milliseconds))
        _ = try? await response.body.collect(upTo: FormPost.maximumBody)
        return Int(response.status.code)
    }
}
