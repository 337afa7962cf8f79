public import PasskeyPush
public import AsyncHTTPClient
public import Foundation
internal import NIOCore
internal import PasskeyJSON
internal import PasskeyJOSE
internal import NIOHTTP1
internal import PasskeyCrypto

/// `--push-provider fcm`: Firebase Cloud Messaging's HTTP v1 API. Each push is
/// `POST {base}/v1/projects/{project}/messages:send` with `Authorization: Bearer <access token>`
/// and `{"message": {"token", "data", "android": {"priority": "high"}, "apns": …}}`.
///
/// The access token comes from the service account by the OAuth 2.0 JWT bearer grant
/// (RFC 7523; Google's "Using OAuth 2.0 for server to server applications"): an RS256 assertion
/// POSTed to the account's `token_uri`. It is reused until a minute before it expires.
///
/// Answers: 200 delivered; `UNREGISTERED` in the error details (404, or 400) means the device is
/// gone; 401 drops the access token, mints another and tries once more; anything else failed.
public final class FCMPushProvider: PushProvider, Sendable {
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The assertion's lifetime; Google accepts at most an hour.
    static let assertionLifetime: Int64 = 3600

    private let serviceAccount: ServiceAccount
    private let privateKey: PrivateKey
    private let sendURL: String
    private let tokenURI: String
    private let timeout: TimeInterval
    private let httpClient: HTTPClient
    private let now: @Sendable () -> Date
    private let tokens: FCMAccessTokens

    public init(
        serviceAccount: ServiceAccount, baseURL: String = "https://fcm.googleapis.com", timeout: TimeInterval = 10,
        httpClient: HTTPClient = .shared, now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        let privateKey: PrivateKey
        do {
            privateKey = try PrivateKey(pem: serviceAccount.privateKeyPEM)
        } catch {
            throw PushProviderError("the service account's private_key does not load: \(error)")
        }
        guard case .rsa = privateKey.publicKey.kind else {
            throw PushProviderError("the service account's private_key is not an RSA key")
        }
        guard let base = PushHTTP.baseURL(baseURL) else {
            throw PushProviderError("the FCM URL must be an http or https URL, not \(baseURL)")
        }
        // Posted to exactly as written: it is also the assertion's `aud`.
        let tokenURI = serviceAccount.tokenURI
        guard PushHTTP.isHTTPURL(tokenURI) else {
            throw PushProviderError("the service account's token_uri must be an http or https URL")
        }
        self.serviceAccount = serviceAccount
        self.privateKey = privateKey
        sendURL = base + "/v1/projects/" + serviceAccount.projectID + "/messages:send"
        self.tokenURI = tokenURI
        self.timeout = timeout
        self.httpClient = httpClient
        self.now = now
        tokens = FCMAccessTokens { [serviceAccount, privateKey, tokenURI, httpClient, timeout, now] in
            try await Self.mint(
                serviceAccount: serviceAccount, privateKey: privateKey, tokenURI: tokenURI, client: httpClient, timeout: timeout, now: now)
        }
    }

    public var name: String { "fcm" }

    /// The OAuth assertion: an RS256 JWT (`kid` = `private_key_id` when the account has one) with
    /// claims `iss` client e-mail, `scope` firebase.messaging, `aud` the token URI, `iat` and
    /// `exp` an hour later.
    public static func assertion(serviceAccount: ServiceAccount, issuedAt: Date) throws -> String {
        try assertion(serviceAccount: serviceAccount, privateKey: try PrivateKey(pem: serviceAccount.privateKeyPEM), issuedAt: issuedAt)
    }

    static func assertion(serviceAccount: ServiceAccount, privateKey: PrivateKey, issuedAt: Date) throws -> String {
        let iat = try PushJWT.numericDate(issuedAt)
        var header: [String: JSONValue] = ["typ": .string("JWT")]
        if let keyID = serviceAccount.privateKeyID { header["kid"] = .string(keyID) }
        let claims: [String: JSONValue] = [
            "iss": .string(serviceAccount.clientEmail), "scope": .string(scope), "aud": .string(serviceAccount.tokenURI),
            "iat": .integer(iat), "exp": .integer(iat + assertionLifetime),
        ]
        return try PushJWT.sign(header: header, claims: claims, key: privateKey, algorithm: .rs256)
    }

    public func send(_ message: PushMessage) async -> DeliveryResult {
        let body: [UInt8]
        do {
            body = try PushHTTP.jsonBody(Envelope(message))
        } catch {
            return .failed("payload: \(error)")
        }
        do {
            let token = try await tokens.token(now: now())
            switch try await post(body, accessToken: token) {
            case .answered(let result):
                return result
            case .unauthorized:
                await tokens.discard(token)
                let fresh = try await tokens.token(now: now())
                switch try await post(body, accessToken: fresh) {
                case .answered(let result): return result
                case .unauthorized: return .failed("status 401 (after a new access token)")
                }
            }
        } catch {
            return .failed(PushHTTP.describe(error))
        }
    }

    private enum Outcome {
        case answered(DeliveryResult)
        case unauthorized
    }

    private func post(_ body: [UInt8], accessToken: String) async throws -> Outcome {
        var request = HTTPClientRequest(url: sendURL)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer " + accessToken)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await PushHTTP.send(request, client: httpClient, timeout: timeout)
        if response.status == 200 { return .answered(.delivered) }
        if response.status == 401 { return .unauthorized }
        // {"error": {"code", "message", "status", "details": [{"@type", "errorCode"}, …]}}
        let error = PushHTTP.jsonObject(response.body)?["error"] as? [String: Any]
        let details = error?["details"] as? [Any] ?? []
        let errorCodes = details.compactMap { ($0 as? [String: Any])?["errorCode"] as? String }
        if errorCodes.contains("UNREGISTERED"), response.status == 404 || response.status == 400 {
            return .answered(.deviceGone)
        }
        let reason = errorCodes.first ?? error?["status"] as? String
        return .answered(.failed("status \(response.status)" + (reason.map { " \($0.prefix(100))" } ?? "")))
    }

    /// The JWT bearer grant at `tokenURI`; the answer is `{"access_token", "expires_in",
    /// "token_type"}`. `expires_in` is taken in 0…86400 s (an hour when missing).
    private static func mint(
        serviceAccount: ServiceAccount, privateKey: PrivateKey, tokenURI: String, client: HTTPClient, timeout: TimeInterval,
        now: @Sendable () -> Date
    ) async throws -> FCMAccessTokens.Minted {
        let issuedAt = now()
        let assertion = try assertion(serviceAccount: serviceAccount, privateKey: privateKey, issuedAt: issuedAt)
        var request = HTTPClientRequest(url: tokenURI)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        // Both values are URL-safe already (a fixed URN; base64url and dots).
        let form = "grant_type=" + "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer" + "&assertion=" + assertion
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await PushHTTP.send(request, client: client, timeout: timeout)
        let object = PushHTTP.jsonObject(response.body)
        guard response.status == 200 else {
            let reason = (object?["error"] as? String).map { " (\($0.prefix(100)))" } ?? ""
            throw PushProviderError("the token endpoint answered \(response.status)\(reason)")
        }
        guard let token = object?["access_token"] as? String, !token.isEmpty, token.utf8.count <= 4096,
              token.utf8.allSatisfy({ (0x21...0x7e).contains($0) })
        else {
            throw PushProviderError("the token endpoint answered no usable access_token")
        }
        if let type = object?["token_type"], (type as? String)?.lowercased() != "bearer" {
            throw PushProviderError("the token endpoint answered a token that is not a bearer token")
        }
        let expiresIn: Double
        switch object?["expires_in"] {
        case nil: expiresIn = 3600
        case let number as NSNumber where number.doubleValue.isFinite: expiresIn = min(max(number.doubleValue, 0), 86400)
        default: throw PushProviderError("the token endpoint answered an expires_in that is not a number")
        }
        return FCMAccessTokens.Minted(token: token, expiresAt: issuedAt.addingTimeInterval(expiresIn))
    }

    /// `{"message": {"token", "data", "android": {"priority": "high"}, "apns": {"payload":
    /// {"aps": {"alert": {"title", "body"}}}}}}`: Android gets a high-priority data message,
    /// iOS devices registered through FCM an alert.
    private struct Envelope: Encodable {
        struct Message: Encodable {
            let token: String
            let data: [String: String]
            let android: Android
            let apns: APNs
        }
        struct Android: Encodable { let priority: String }
        struct APNs: Encodable { let payload: Payload }
        struct Payload: Encodable { let aps: APS }
        struct APS: Encodable { let alert: Alert }
        struct Alert: Encodable {
            let title: String
            let body: String
        }

        let message: Message

        init(_ push: PushMessage) {
            message = Message(
                token: push.deviceToken, data: push.data, android: Android(priority: "high"),
                apns: APNs(payload: Payload(aps: APS(alert: Alert(title: push.alertTitle, body: push.alertBody)))))
        }
    }
}
