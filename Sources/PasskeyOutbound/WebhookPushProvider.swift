public import PasskeyPush
public import AsyncHTTPClient
public import Foundation
internal import NIOCore
internal import NIOHTTP1

/// `--push-provider webhook`: each push is POSTed as JSON to a URL (an own gateway, and tests).
/// Body `{"deviceId", "deviceToken", "apnsEnvironment", "data": {…}}` (the environment tells a
/// gateway that forwards to APNs which host the token belongs to); any 2xx is delivered, 410 means the device is
/// gone, anything else (or no answer) failed.
public struct WebhookPushProvider: PushProvider {
    private let url: String
    private let httpClient: HTTPClient
    private let timeout: TimeInterval

    public init(url: String, httpClient: HTTPClient = .shared, timeout: TimeInterval = 10) {
        self.url = url
        self.httpClient = httpClient
        self.timeout = timeout
    }

    public var name: String { "webhook" }

    public func send(_ message: PushMessage) async -> DeliveryResult {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        do {
            request.body = .bytes(ByteBuffer(bytes: try PushHTTP.jsonBody(Body(message))))
            let response = try await PushHTTP.send(request, client: httpClient, timeout: timeout)
            switch response.status {
            case 200..<300: return .delivered
            case 410: return .deviceGone
            default: return .failed("status \(response.status)")
            }
        } catch {
            return .failed(PushHTTP.describe(error))
        }
    }

    private struct Body: Encodable {
        let deviceId: String
        let deviceToken: String
        let apnsEnvironment: String
        let data: [String: String]

        init(_ message: PushMessage) {
            deviceId = message.deviceID
            deviceToken = message.deviceToken
            apnsEnvironment = message.apnsEnvironment.rawValue
            data = message.data
        }
    }
}
