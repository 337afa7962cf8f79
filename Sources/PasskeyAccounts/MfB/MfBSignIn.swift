internal import PasskeyJSON
internal import PasskeyHTTPParsing
public import Foundation
public import PasskeyMfB
public import PasskeyStorage
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyTelemetry
internal import Logging

/// A message the gateway did not take (502 `mfb_gateway_error`): its last answer, and seed 001's
/// meaning of it. The request is kept as `failed` with the same details.
public struct MfBGatewayFailure: Error, Encodable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey {
        case error, message, requestIdentifier, gatewayStatus = "gateway_status"
    }

    public let error = "mfb_gateway_error"
    public let message: String
    public let requestIdentifier: String
    /// Nil when the gateway never answered.
    public let gatewayStatus: Int?
}

/// Messages for Business sign-in (docs/contracts/mfb.md), free of HTTP: the business's requests with their
/// P-384 keys, the public-key audit, and the decryption of the device's reply. Its OAuth
/// provider is the server's OpenID provider: the client registered from the flags, whose
/// authorization step runs the key audit here and binds the code it issues to the request.
public final class MfBSignIn: Sendable {
    let context: UseCaseContext
    let sessions: Sessions
    let store: any MfBStore & AccountStore & SessionStore & OpenIDStore & ServerStateStore
    let clientID: String
    let clientSecret: String
    /// SHA-256 of the api token, for comparisons in constant time.
    let apiTokenHash: [UInt8]
    /// SHA-256 of `--mfb-audit-token`: a third-party authentication provider's credential for
    /// the key audit (`POST /mfb/key-audits`); nil: no provider may call it.
    let auditTokenHash: [UInt8]?
    let redirectURIs: [String]
    let requestTTL: TimeInterval
    /// `--mfb-message`: the iOS 16 message (default) or the legacy one.
    let messageKind: MfBAuthenticateMessage.Kind
    /// Apple's gateway, when the server sends the messages itself (`--mfb-gateway-url`).
    let gateway: (any MfBGatewaySender)?
    let businessID: String?
    let mspID: String?
    let mspSecret: [UInt8]?
    /// How long `create` waits before each retry of a message the gateway may take later.
    let retryDelays: [TimeInterval]

    public init(
        context: UseCaseContext, sessions: Sessions, store: any MfBStore & AccountStore & SessionStore & OpenIDStore & ServerStateStore, gateway: (any MfBGatewaySender)? = nil,
        retryDelays: [TimeInterval] = MfBGateway.retryDelays
    ) throws {
        let c = context.configuration
        guard let clientID = c.mfbClientID else {
            throw ServerStartupError(message: "Messages for Business needs --mfb-client-id")
        }
        guard let secret = c.mfbClientSecret, let token = c.mfbAPIToken, !c.mfbRedirectURIs.isEmpty else {
            throw ServerStartupError(
                message: "--mfb-client-id needs --mfb-client-secret, --mfb-api-token and at least one --mfb-redirect-uri")
        }
        self.context = context
        self.sessions = sessions
        self.store = store
        self.clientID = clientID
        self.clientSecret = secret
        self.apiTokenHash = Digest.sha256.hash(Array(token.utf8))
        self.auditTokenHash = c.mfbAuditToken.map { Digest.sha256.hash(Array($0.utf8)) }
        self.redirectURIs = c.mfbRedirectURIs
        self.requestTTL = c.mfbRequestTTL
        guard let kind = MfBAuthenticateMessage.Kind(rawValue: c.mfbMessage) else {
            throw ServerStartupError(message: "--mfb-message must be ios16 or legacy")
        }
        self.messageKind = kind
        self.gateway = gateway
        self.retryDelays = retryDelays
        if gateway != nil {
            guard let businessID = c.mfbBusinessID, let mspID = c.mfbMSPID, let secretText = c.mfbMSPSecret,
                  let secret = Data(base64Encoded: secretText), !secret.isEmpty
            else {
                throw ServerStartupError(message: "--mfb-gateway-url needs --mfb-business-id, --mfb-msp-id and --mfb-msp-secret (base64)")
            }
            self.businessID = businessID
            self.mspID = mspID
            self.mspSecret = [UInt8](secret)
        } else {
            businessID = nil
            mspID = nil
            mspSecret = nil
        }
    }

    // MARK: The business's calls

    /// Every business call carries the api token; compared in constant time.
    public func checkAPIToken(_ presented: String?) throws {
        guard let presented, constantTimeEquals(Digest.sha256.hash(Array(presented.utf8)), apiTokenHash) else {
            throw APIError.unauthorized
        }
    }

    struct CreateBody: Decodable {
        var scope: [String]?
        var state: String?
        var title: String?
        /// With the gateway: the customer's opaque ID, capabilities and device agent, as their
        /// incoming message gave them.
        var destinationId: String?
        var capabilities: [String]?
        var deviceAgent: String?
        var images: [MfBAuthenticateMessage.Image]?
        var receivedMessage: MfBAuthenticateMessage.Bubble?
        var replyMessage: MfBAuthenticateMessage.Bubble?
        /// Delegation: a key pair the MSP made (standard base64 of the 48-byte P-384 scalar), and
        /// the request identifier it chose.
        var privateKey: String?
        var requestIdentifier: String?

        enum CodingKeys: String, CodingKey {
            case scope, state, title, capabilities, images
            case destinationId = "destination_id", deviceAgent = "device_agent", receivedMessage = "received_message"
            case replyMessage = "reply_message", privateKey = "private_key", requestIdentifier = "request_identifier"
        }
    }

    /// `POST /mfb/requests`: a new request with a fresh key pair (or the MSP's), and the message
    /// to send; with `--mfb-gateway-url` the server sends it through Apple's gateway before it
    /// answers.
    public func create(body: [UInt8]) async throws -> MfBRequestCreated {
        let request = JSONBody.isBlank(body) ? CreateBody() : try JSONBody.decode(CreateBody.self, body)
        let scope = request.scope ?? ["profile"]
        guard scope.count <= 16, scope.allSatisfy({ Self.isScopeToken($0) }) else {
            throw APIError.invalidRequest("scope must be at most 16 OAuth scope tokens (printable ASCII, no space, quote or backslash).")
        }
        let state = request.state ?? Base64URL.encode(SecureRandom.bytes(16))
        try Self.checkText(state, "state", limit: 512)
        let images = try Self.checkImages(request.images ?? [])
        let received = try Self.checkBubble(
            request.receivedMessage ?? MfBAuthenticateMessage.Bubble(title: request.title ?? "Sign In"), "received_message", images: images)
        let reply = try Self.checkBubble(
            request.replyMessage ?? MfBAuthenticateMessage.Bubble(title: "You Signed In"), "reply_message", images: images)
        let routing = try checkRouting(request)
        let (key, id) = try Self.keyAndIdentifier(request)

        let point = key.publicPoint
        let now = context.now()
        let record = MfBRequestRecord(
            id: id, privateKey: key.scalar, publicPoint: point, pointHash: Digest.sha256.hash(point),
            createdAt: now, expiresAt: now.addingTimeInterval(requestTTL))
        // An MSP's identifier or key used twice is its mistake, answered as such (409).
        if request.requestIdentifier != nil || request.privateKey != nil {
            let taken = try await store.mfbRequest(id: id)
            let keyTaken = try await store.mfbRequest(pointHash: record.pointHash)
            if taken != nil || keyTaken != nil {
                throw APIError(code: "conflict", message: "A request with this request_identifier or key exists already.")
            }
        }
        try await store.insertMfBRequest(record)
        let message = MfBAuthenticateMessage(
            requestIdentifier: record.id, publicPoint: point, scope: scope, state: state,
            clientSecret: messageKind == .legacy ? clientSecret : nil, received: received, reply: reply, images: images)
        var created = MfBRequestCreated(
            requestIdentifier: record.id, responseEncryptionKey: message.interactiveData.data.authenticate.oauth2.responseEncryptionKey,
            expiresAt: PasskeySignIn.timestamp(record.expiresAt), message: message)
        if let routing {
            created.gatewayMessageId = try await send(message, routing: routing, requestID: record.id)
            created.status = "sent"
        }
        return created
    }

    /// The gateway's routing of a request, checked: with the gateway `destination_id` is
    /// required; a `capabilities` list without `auth` is `mfb_not_capable` (the device could not
    /// show the message), with or without the gateway. Nil without the gateway.
    func checkRouting(_ request: CreateBody) throws -> MfBGateway.Routing? {
        if let capabilities = request.capabilities {
            guard capabilities.count <= 64, capabilities.allSatisfy({ Self.isHeaderText($0, limit: 64) }) else {
                throw APIError.invalidRequest("capabilities must be at most 64 short names.")
            }
            guard MfBGateway.supportsAuthentication(capabilities) else {
                throw APIError(
                    code: "mfb_not_capable",
                    message: "The customer's device does not announce the auth capability (iOS 12 or macOS 10.14 and later); nothing was sent.")
            }
        }
        guard gateway != nil, let businessID else { return nil }
        guard let destination = request.destinationId, Self.isHeaderText(destination, limit: 512) else {
            throw APIError.invalidRequest("destination_id (the customer's opaque ID from their message) is required to send through the gateway.")
        }
        if let agent = request.deviceAgent, !Self.isHeaderText(agent, limit: 256) {
            throw APIError.invalidRequest("device_agent must be printable ASCII of at most 256 bytes.")
        }
        return MfBGateway.Routing(
            messageID: UUID().uuidString, sourceID: businessID, destinationID: destination, capabilities: request.capabilities,
            deviceAgent: request.deviceAgent)
    }

    /// The request's key pair and identifier: made here, or the MSP's (`private_key`, the P-384
    /// scalar in standard base64, and `request_identifier`, a UUID) when it generated them.
    static func keyAndIdentifier(_ request: CreateBody) throws -> (ECPrivateKey, String) {
        var id = UUID().uuidString
        if let given = request.requestIdentifier {
            guard let uuid = UUID(uuidString: given) else { throw APIError.invalidRequest("request_identifier must be a UUID.") }
            id = uuid.uuidString
        }
        guard let text = request.privateKey else { return (try ECPrivateKey.generate(.p384), id) }
        guard text.utf8.count <= 128, let scalar = Data(base64Encoded: text), scalar.count == 48,
              let key = try? ECPrivateKey(curve: .p384, scalar: [UInt8](scalar))
        else {
            throw APIError.invalidRequest("private_key must be standard base64 of a 48-byte P-384 private scalar.")
        }
        return (key, id)
    }

    /// Sends the message to Apple's gateway with seed 001's headers; a 500 or no answer is tried
    /// again after each of `retryDelays`. On a 200 the request keeps the message id and is
    /// `sent`; otherwise it is `failed` with the gateway's answer and its key is deleted, and the
    /// business gets 502 `mfb_gateway_error`.
    func send(_ message: MfBAuthenticateMessage, routing: MfBGateway.Routing, requestID: String) async throws -> String {
        guard let gateway, let mspID, let mspSecret else { throw APIError.internalError }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = [UInt8](try encoder.encode(message))
        var status: Int?
        for attempt in 0...retryDelays.count {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(Int(retryDelays[attempt - 1] * 1000))) }
            // A fresh JWT each try: `iat` is now.
            let authorization = MfBGateway.authorization(mspID: mspID, secret: mspSecret, issuedAt: context.now())
            status = await gateway.post(headers: MfBGateway.headers(routing, authorization: authorization, mspAgent: Self.mspAgent), body: body)
            if status == 200 || !MfBGateway.isRetryable(status: status) { break }
        }
        let now = context.now()
        if status == 200 {
            try await store.recordMfBSend(
                id: requestID, messageID: routing.messageID, gatewayStatus: 200, failure: nil,
                event: context.event([], "mfb_sent", at: now, ["request": requestID, "message": routing.messageID]))
            return routing.messageID
        }
        let meaning = status.map(MfBGateway.meaning(ofStatus:)) ?? "The gateway did not answer."
        let failure = MfBReply.DeviceError(code: status, domain: "gateway", message: meaning)
        try await store.recordMfBSend(
            id: requestID, messageID: routing.messageID, gatewayStatus: status,
            failure: String(decoding: try encoder.encode([failure]), as: UTF8.self),
            event: context.event([], "mfb_gateway_failed", at: now, ["request": requestID, "status": status.map(String.init) ?? "none"]))
        context.logger.warning("Messages for Business gateway refused a message", metadata: [
            "request": "\(requestID)", "status": "\(status.map(String.init) ?? "none")",
        ])
        throw MfBGatewayFailure(message: meaning, requestIdentifier: requestID, gatewayStatus: status)
    }

    /// `msp-agent`: this server, by name.
    static let mspAgent = "passkey-server/1"

    /// Printable ASCII without spaces at the ends (it goes into a header), 1 to `limit` bytes.
    static func isHeaderText(_ text: String, limit: Int) -> Bool {
        (1...limit).contains(text.utf8.count) && text.utf8.allSatisfy { (0x20...0x7e).contains($0) }
            && text.first != " " && text.last != " "
    }

    /// At most 8 images, each with a 1-64 byte identifier (unique) and base64 data.
    static func checkImages(_ images: [MfBAuthenticateMessage.Image]) throws -> [MfBAuthenticateMessage.Image] {
        guard images.count <= 8 else { throw APIError.invalidRequest("images: at most 8.") }
        var seen = Set<String>()
        for image in images {
            try checkText(image.identifier, "images[].identifier", limit: 64)
            guard seen.insert(image.identifier).inserted else { throw APIError.invalidRequest("images: identifier \(image.identifier) twice.") }
            guard !image.data.isEmpty, Data(base64Encoded: image.data) != nil else {
                throw APIError.invalidRequest("images[].data must be standard base64.")
            }
        }
        return images
    }

    /// A bubble: a title, optionally a subtitle, a style (`icon`, `small`, `large`) and the
    /// identifier of one of `images`.
    static func checkBubble(
        _ bubble: MfBAuthenticateMessage.Bubble, _ field: String, images: [MfBAuthenticateMessage.Image]
    ) throws -> MfBAuthenticateMessage.Bubble {
        try checkText(bubble.title, field + ".title", limit: 128)
        if let subtitle = bubble.subtitle, !subtitle.isEmpty { try checkText(subtitle, field + ".subtitle", limit: 256) }
        if let style = bubble.style, !["icon", "small", "large"].contains(style) {
            throw APIError.invalidRequest("\(field).style must be icon, small or large.")
        }
        if let identifier = bubble.imageIdentifier, !images.contains(where: { $0.identifier == identifier }) {
            throw APIError.invalidRequest("\(field).imageIdentifier names no image of images.")
        }
        return bubble
    }

    /// `GET /mfb/requests/{id}`.
    public func status(id: String) async throws -> MfBRequestStatus {
        guard id.utf8.count <= 64, let request = try await store.mfbRequest(id: id) else { throw APIError.notFound }
        var status = MfBRequestStatus(requestIdentifier: request.id, status: request.status)
        status.gatewayMessageId = request.gatewayMessageID
        status.gatewayStatus = request.gatewayStatus
        switch request.status {
        case "authenticated":
            if let handle = request.userHandle {
                status.userName = try await store.user(handle: handle)?.name
                status.sub = OpenIDProvider.subject(handle)
            }
        case "failed":
            status.errors = request.errors.flatMap { try? JSONDecoder().decode([MfBReply.DeviceError].self, from: Data($0.utf8)) } ?? []
        default:
            if context.now() >= request.expiresAt {
                status.status = "expired"
            } else if request.gatewayMessageID != nil {
                status.status = "sent"
            }
        }
        return status
    }

    /// `POST /mfb/responses`: the device's reply. Counted as the `mfb` ceremony.
    public func respond(body: [UInt8]) async throws -> MfBReplyAnswer {
        do {
            let answer = try await reply(body: body)
            if answer.status == "authenticated" {
                context.metrics.ceremony("mfb", .ok)
            } else {
                context.metrics.ceremony("mfb", .refused, error: "device_failed")
            }
            return answer
        } catch {
            context.metrics.ceremony("mfb", .refused, error: APIError.code(for: error))
            throw error
        }
    }

    private func reply(body: [UInt8]) async throws -> MfBReplyAnswer {
        let reply: MfBReply
        do {
            reply = try MfBReply.parse(body)
        } catch {
            throw APIError(error)
        }
        let now = context.now()
        switch reply.outcome {
        case .failed(let errors):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let text = String(decoding: try encoder.encode(errors), as: UTF8.self)
            // The seed's names of the device's errors, in the audit trail too.
            let names = errors.map { $0.name ?? "code \($0.code.map(String.init) ?? "?")" }.joined(separator: ", ")
            let event = context.event([], "mfb_failed", at: now, ["request": reply.requestIdentifier, "errors": names])
            try Self.check(try await store.failMfBRequest(id: reply.requestIdentifier, errors: text, now: now, event: event))
            return MfBReplyAnswer(requestIdentifier: reply.requestIdentifier, status: "failed", errors: errors)
        case .authenticated(let token):
            let plaintext = try await decrypt(token, requestID: reply.requestIdentifier, now: now)
            let event = context.event([], "sign_in", at: now, ["method": "mfb", "request": reply.requestIdentifier])
            let outcome = try await store.completeMfBRequest(
                id: reply.requestIdentifier, grantHash: Digest.sha256.hash(plaintext), now: now, signedIn: event)
            guard case .authenticated(let userName, let userHandle) = outcome else {
                try Self.check(outcome)
                throw APIError.internalError
            }
            // An authorization code (the iOS 16 message) has done its work: spent at the provider too.
            try await spendProviderCode(plaintext)
            // The account's subject, as the provider's tokens name it: the business can match the
            // sign-in to an ID token of the same person.
            return MfBReplyAnswer(
                requestIdentifier: reply.requestIdentifier, status: "authenticated", userName: userName,
                sub: OpenIDProvider.subject(userHandle))
        }
    }

    /// The token decrypted with the request's key: 404 for an unknown or expired request, 409
    /// for an answered one, `mfb_decrypt_failed` for anything the key does not open.
    func decrypt(_ token: String, requestID: String, now: Date) async throws -> [UInt8] {
        guard let request = try await store.mfbRequest(id: requestID) else { throw Self.unknownRequest }
        guard request.status == "pending" else { throw Self.alreadyAnswered }
        guard now < request.expiresAt, let scalar = request.privateKey else { throw Self.unknownRequest }
        guard token.utf8.count <= MfBToken.maximumLength * 2, let bytes = Data(base64Encoded: token) else {
            throw APIError(MfBError.decryptFailed)
        }
        do {
            let key = try ECPrivateKey(curve: .p384, scalar: scalar)
            return try MfBToken.decrypt(token: [UInt8](bytes), privateKey: key)
        } catch {
            throw APIError(MfBError.decryptFailed)
        }
    }

    /// A reply's outcome other than success, as the contract answers it.
    static func check(_ outcome: MfBReplyOutcome) throws {
        switch outcome {
        case .authenticated, .failed: return
        case .notFound: throw unknownRequest
        case .alreadyAnswered: throw alreadyAnswered
        case .grantUnknown:
            throw APIError(
                code: "mfb_token_unknown",
                message: "The decrypted token is no access token or authorization code issued for this request.")
        }
    }

    static let unknownRequest = APIError(code: "not_found", message: "No request has this requestIdentifier, or it expired.")
    static let alreadyAnswered = APIError(code: "already_answered", message: "The request was answered already.")

    // MARK: Helpers

    /// RFC 6749 scope-token: %x21 / %x23-5B / %x5D-7E.
    static func isScopeToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    static func checkText(_ text: String, _ field: String, limit: Int) throws {
        guard !text.isEmpty, text.utf8.count <= limit,
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw APIError.invalidRequest("\(field) must be 1 to \(limit) bytes without control characters.")
        }
    }
}
