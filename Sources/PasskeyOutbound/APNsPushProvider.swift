public import PasskeyPush
public import AsyncHTTPClient
public import Foundation
public import PasskeyCrypto
internal import NIOCore
internal import PasskeyJSON
internal import PasskeyJOSE
internal import NIOHTTP1

/// `--push-provider apns`: Apple's HTTP/2 provider API with token-based authentication
/// ("Sending notification requests to APNs"). Each push is `POST /3/device/<device token>` with
/// an ES256 provider token as `authorization: bearer …`, the app's bundle ID as `apns-topic`, an
/// `alert` push at priority 10, and a JSON payload whose `aps` dictionary carries the alert; the
/// seed's data keys ride beside it at the top level.
///
/// Each push goes to the host of the device's environment (`baseURL` for production,
/// `sandboxURL` for the sandbox), so a development build's token is never sent to production.
///
/// Answers: 200 delivered; 410 (`Unregistered`) and 400 `BadDeviceToken` from the device's own
/// environment mean the device is gone; 403 `ExpiredProviderToken`/`InvalidProviderToken` make a new provider token and the
/// push is tried once more; anything else failed.
///
/// With `httpClient: nil` the provider makes its own client (HTTP/2 negotiated by ALPN, system
/// trust roots) and `shutdown()` must be called before the provider goes away.
public final class APNsPushProvider: PushProvider, Sendable {
    /// APNs refuses a payload larger than this (`PayloadTooLarge`) for an alert push.
    public static let maximumPayload = 4096

    private let privateKey: PrivateKey
    private let keyID: String
    private let teamID: String
    private let topic: String
    private let baseURL: String
    private let sandboxURL: String
    private let expiration: TimeInterval
    private let timeout: TimeInterval
    private let httpClient: HTTPClient
    private let ownsClient: Bool
    private let now: @Sendable () -> Date
    private let tokens: APNsProviderTokens

    /// - Parameters:
    ///   - privateKey: the team's `.p8` token-signing key (P-256).
    ///   - expiration: seconds after the send at which APNs may drop an undelivered push
    ///     (`apns-expiration`); the authentication request it announces is over by then.
    ///   - timeout: the deadline of one request.
    public init(
        privateKey: PrivateKey, keyID: String, teamID: String, topic: String, baseURL: String = "https://api.push.apple.com",
        sandboxURL: String = "https://api.sandbox.push.apple.com", expiration: TimeInterval = 120, timeout: TimeInterval = 10, httpClient: HTTPClient? = nil,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        guard privateKey.publicKey.kind == .ec(.p256) else {
            throw PushProviderError("the APNs key must be a P-256 key, not \(privateKey.publicKey.kind)")
        }
        for (label, value) in [("key ID", keyID), ("team ID", teamID), ("topic", topic)] where !Self.isHeaderValue(value) {
            throw PushProviderError("the APNs \(label) must be non-empty printable ASCII")
        }
        guard let base = PushHTTP.baseURL(baseURL) else {
            throw PushProviderError("the APNs URL must be an http or https URL, not \(baseURL)")
        }
        guard let sandbox = PushHTTP.baseURL(sandboxURL) else {
            throw PushProviderError("the APNs sandbox URL must be an http or https URL, not \(sandboxURL)")
        }
        guard expiration.isFinite, expiration >= 0, expiration <= 30 * 24 * 3600 else {
            throw PushProviderError("the APNs expiration must be 0…30 days, not \(expiration)")
        }
        // The token is made once here, so a key that cannot sign fails at start-up, not at the
        // first push.
        _ = try Self.providerToken(privateKey: privateKey, keyID: keyID, teamID: teamID, issuedAt: now())
        self.privateKey = privateKey
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.baseURL = base
        self.sandboxURL = sandbox
        self.expiration = expiration
        self.timeout = timeout
        self.now = now
        if let httpClient {
            self.httpClient = httpClient
            ownsClient = false
        } else {
            var configuration = HTTPClient.Configuration()
            configuration.httpVersion = .automatic
            self.httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            ownsClient = true
        }
        tokens = APNsProviderTokens { [privateKey, keyID, teamID] issuedAt in
            try Self.providerToken(privateKey: privateKey, keyID: keyID, teamID: teamID, issuedAt: issuedAt)
        }
    }

    public var name: String { "apns" }

    /// The provider token: an ES256 JWT with header `{"alg":"ES256","kid":keyID}` and claims
    /// `{"iss": teamID, "iat": issuedAt}` (whole seconds).
    public static func providerToken(privateKey: PrivateKey, keyID: String, teamID: String, issuedAt: Date) throws -> String {
        try PushJWT.sign(
            header: ["kid": .string(keyID)], claims: ["iss": .string(teamID), "iat": .integer(try PushJWT.numericDate(issuedAt))],
            key: privateKey, algorithm: .es256)
    }

    public func send(_ message: PushMessage) async -> DeliveryResult {
        guard DeviceToken.isAPNs(message.deviceToken) else {
            return .failed("the device token is not an APNs token (hex, 32 to 100 bytes)")
        }
        let payload: [UInt8]
        do {
            payload = try Self.payload(message)
        } catch {
            return .failed("payload: \(error)")
        }
        guard payload.count <= Self.maximumPayload else {
            return .failed("payload of \(payload.count) bytes exceeds APNs' \(Self.maximumPayload)")
        }
        do {
            let token = try await tokens.token(now: now())
            switch try await post(payload, to: message, providerToken: token) {
            case .answered(let result):
                return result
            case .providerTokenRefused:
                await tokens.discard(token)
                let fresh = try await tokens.token(now: now())
                switch try await post(payload, to: message, providerToken: fresh) {
                case .answered(let result): return result
                case .providerTokenRefused(let reason): return .failed("status 403 \(reason) (after a new provider token)")
                }
            }
        } catch {
            return .failed(PushHTTP.describe(error))
        }
    }

    /// Shuts down the client the provider made itself; a client passed in stays the caller's.
    public func shutdown() async {
        if ownsClient { try? await httpClient.shutdown() }
    }

    private enum Outcome {
        case answered(DeliveryResult)
        /// 403 `ExpiredProviderToken` or `InvalidProviderToken`, with that reason.
        case providerTokenRefused(String)
    }

    private func post(_ payload: [UInt8], to message: PushMessage, providerToken: String) async throws -> Outcome {
        let host = message.apnsEnvironment == .sandbox ? sandboxURL : baseURL
        var request = HTTPClientRequest(url: host + "/3/device/" + message.deviceToken)
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer " + providerToken)
        request.headers.add(name: "apns-topic", value: topic)
        request.headers.add(name: "apns-push-type", value: "alert")
        request.headers.add(name: "apns-priority", value: "10")
        let expiresAt = now().timeIntervalSince1970 + expiration
        if expiresAt.isFinite, expiresAt >= 0, expiresAt <= PushJWT.latestNumericDate {
            request.headers.add(name: "apns-expiration", value: String(Int64(expiresAt.rounded(.down))))
        }
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: payload))
        let response = try await PushHTTP.send(request, client: httpClient, timeout: timeout)
        // The error body is `{"reason": "…"}` (and `timestamp` with 410); anything else has no reason.
        let reason = (PushHTTP.jsonObject(response.body)?["reason"] as? String).map { String($0.prefix(100)) }
        switch (response.status, reason) {
        case (200, _): return .answered(.delivered)
        case (410, _): return .answered(.deviceGone)
        case (400, "BadDeviceToken"?): return .answered(.deviceGone)
        case (403, "ExpiredProviderToken"?), (403, "InvalidProviderToken"?): return .providerTokenRefused(reason ?? "")
        default: return .answered(.failed("status \(response.status)" + (reason.map { " \($0)" } ?? "")))
        }
    }

    /// `{"aps": {"alert": {"title", "body"}, "sound": "default", "mutable-content": 1}}` with the
    /// data keys beside `aps` (a data key named `aps` is dropped: it cannot replace the alert).
    static func payload(_ message: PushMessage) throws -> [UInt8] {
        var object: [String: Any] = [:]
        for (key, value) in message.data where key != "aps" { object[key] = value }
        object["aps"] = [
            "alert": ["title": message.alertTitle, "body": message.alertBody],
            "sound": "default",
            "mutable-content": 1,
        ] as [String: Any]
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    /// A value that can go into a header unchanged: printable ASCII, no spaces at the ends.
    private static func isHeaderValue(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 200 && value.utf8.allSatisfy { (0x21...0x7e).contains($0) }
    }
}
