public import PasskeyMfB
public import AsyncHTTPClient
public import Foundation
internal import NIOCore
internal import NIOHTTP1

/// `--mfb-gateway-url`: Apple's Messages for Business gateway over async-http-client (HTTP/2
/// when the gateway offers it). One POST per call; the status is all the server reads of the
/// answer, and a transport failure is nil (the caller decides whether to try again).
public struct MfBGatewayHTTP: MfBGatewaySender {
    private let url: String
    private let httpClient: HTTPClient
    private let timeout: TimeInterval

    public init(url: String, httpClient: HTTPClient = .shared, timeout: TimeInterval = 10) {
        self.url = url
        self.httpClient = httpClient
        self.timeout = timeout
    }

    public func post(headers: [(name: String, value: String)], body: [UInt8]) async -> Int? {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            return try await PushHTTP.send(request, client: httpClient, timeout: timeout).status
        } catch {
            return nil
        }
    }
}
