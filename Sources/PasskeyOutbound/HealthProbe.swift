public import Foundation
internal import AsyncHTTPClient
internal import NIOCore
internal import NIOHTTP1

/// One GET of a health endpoint: its status, the body read no further than a few KiB.
public enum HealthProbe {
    public static func status(url: String, timeout: TimeInterval) async throws -> Int {
        let request = HTTPClientRequest(url: url)
        let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
        _ = try? await response.body.collect(upTo: 16 * 1024)
        return Int(response.status.code)
    }
}
