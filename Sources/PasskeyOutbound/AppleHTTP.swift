public import Foundation
public import PasskeyApple
internal import AsyncHTTPClient
internal import NIOCore
internal import NIOHTTP1
internal import PasskeyHTTPParsing

/// Apple's endpoints over the network (async-http-client): the key set, and the token and
/// revoke endpoints of the developer's key. `file://` URLs read a local file instead (offline
/// use, tests).
public struct AppleHTTP: AppleEndpoints {
    public init() {}

    public func fetchKeys(url: String) async throws -> FetchedKeys {
        try await Self.fetchKeys(url: url, timeout: 10)
    }

    public func exchangeCode(url: String, clientID: String, clientSecret: String, code: String, redirectURI: String?) async throws -> String? {
        try await Self.exchangeCode(url: url, clientID: clientID, clientSecret: clientSecret, code: code, redirectURI: redirectURI, timeout: 10)
    }

    public func revoke(url: String, clientID: String, clientSecret: String, refreshToken: String) async throws {
        try await Self.revoke(url: url, clientID: clientID, clientSecret: clientSecret, refreshToken: refreshToken, timeout: 10)
    }

    /// The largest body read from Apple: a key set or a token response is a few KiB.
    static let maximumBody = 64 * 1024

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Fetches the key set at `url` (https, http, or file), with its Cache-Control header.
    public static func fetchKeys(url: String, timeout: TimeInterval) async throws -> FetchedKeys {
        if let path = filePath(url) {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Failure(description: "cannot read \(path)")
            }
            guard data.count <= maximumBody else { throw Failure(description: "\(path) is larger than \(maximumBody) bytes") }
            return FetchedKeys(body: [UInt8](data), cacheControl: nil)
        }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let (status, headers, body) = try await send(request, timeout: timeout)
        guard status == 200 else { throw Failure(description: "\(url) answered \(status)") }
        return FetchedKeys(body: body, cacheControl: headers.first(name: "Cache-Control"))
    }

    /// The refresh token (and the fields Apple sends with it) for an authorization code
    /// (`grant_type=authorization_code`).
    public static func exchangeCode(
        url: String, clientID: String, clientSecret: String, code: String, redirectURI: String?, timeout: TimeInterval
    ) async throws -> String? {
        var form = [("client_id", clientID), ("client_secret", clientSecret), ("code", code), ("grant_type", "authorization_code")]
        if let redirectURI { form.append(("redirect_uri", redirectURI)) }
        let body = try await postForm(url: url, form: form, timeout: timeout)
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw Failure(description: "\(url) did not answer a JSON object")
        }
        return object["refresh_token"] as? String
    }

    /// Revokes a refresh token (`token_type_hint=refresh_token`).
    public static func revoke(url: String, clientID: String, clientSecret: String, refreshToken: String, timeout: TimeInterval) async throws {
        _ = try await postForm(
            url: url,
            form: [("client_id", clientID), ("client_secret", clientSecret), ("token", refreshToken), ("token_type_hint", "refresh_token")],
            timeout: timeout)
    }

    private static func postForm(url: String, form: [(String, String)], timeout: TimeInterval) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: FormURLEncoded.encode(form.map { (name: $0.0, value: $0.1) })))
        let (status, _, body) = try await send(request, timeout: timeout)
        guard status == 200 else {
            let reason = (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["error"] as? String
            throw Failure(description: "\(url) answered \(status)\(reason.map { " (\($0))" } ?? "")")
        }
        return body
    }

    private static func send(_ request: HTTPClientRequest, timeout: TimeInterval) async throws -> (Int, HTTPHeaders, [UInt8]) {
        let milliseconds = Int64(min(max(timeout, 0.1), 300) * 1000)
        let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(milliseconds))
        let buffer = try await response.body.collect(upTo: maximumBody)
        return (Int(response.status.code), response.headers, Array(buffer.readableBytesView))
    }

    /// The path of a `file://` URL, nil for anything else.
    static func filePath(_ url: String) -> String? {
        guard url.hasPrefix("file://"), let parsed = URL(string: url), parsed.isFileURL else { return nil }
        return parsed.path
    }
}
