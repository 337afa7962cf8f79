public import Foundation
public import PasskeyPush
internal import AsyncHTTPClient
internal import NIOCore
internal import NIOHTTP1

/// The simulator's requests to the server, over async-http-client.
extension DeviceSimulator {
    /// POSTs JSON to `server` + `path`.
    public static func post(server: String, path: String, body: [UInt8], timeout: TimeInterval = 30) async throws -> Reply {
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        guard base.hasPrefix("http://") || base.hasPrefix("https://") else {
            throw Failure(description: "the server must be an http(s) URL, not \(server)")
        }
        var request = HTTPClientRequest(url: base + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(Int64(max(1, min(timeout, 300)))))
        let buffer = try await response.body.collect(upTo: 1 << 20)
        return Reply(status: Int(response.status.code), body: Array(buffer.readableBytesView))
    }
}
