internal import PasskeyJSON
internal import PasskeyHTTPParsing
public import Foundation
public import PasskeyMfB
public import PasskeyStorage
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyTelemetry
internal import Logging

/// Messages for Business sign-in (mfb.md), free of HTTP: the business's requests with their
/// P-384 keys, the OAuth authorization and token endpoints whose sign-in is the passkey page,
/// the public-key audit, and the decryption of the device's reply.
public final class MfBSignIn: Sendable {
    let passkeys: PasskeySignIn
    let clientID: String
    let clientSecret: String
    /// SHA-256 of the client secret and of the api token, for comparisons in constant time.
    let clientSecretHash: [UInt8]
    let apiTokenHash: [UInt8]
    let redirectURIs: [String]
    let requestTTL: TimeInterval
    /// An authorization code lives 60 s (mfb.md).
    static let codeTTL: TimeInterval = 60

    var store: any PasskeyStore { passkeys.store }

    public init(passkeys: PasskeySignIn) throws {
        let c = passkeys.configuration
        guard let clientID = c.mfbClientID else {
            throw ServerStartupError(message: "Messages for Business needs --mfb-client-id")
        }
        guard let secret = c.mfbClientSecret, let token = c.mfbAPIToken, !c.mfbRedirectURIs.isEmpty else {
            throw ServerStartupError(
                message: "--mfb-client-id needs --mfb-client-secret, --mfb-api-token and at least one --mfb-redirect-uri")
        }
        self.passkeys = passkeys
        self.clientID = clientID
        self.clientSecret = secret
        self.clientSecretHash = Digest.sha256.hash(Array(secret.utf8))
        self.apiTokenHash = Digest.sha256.hash(Array(token.utf8))
        self.redirectURIs = c.mfbRedirectURIs
        self.requestTTL = c.mfbRequestTTL
    }

    // MARK: The business's calls

    /// Every business call carries the api token; compared in constant time.
    public func checkAPIToken(_ presented: String?) throws {
        guard let presented, constantTimeEquals(Digest.sha256.hash(Array(presented.utf8)), apiTokenHash) else {
            throw APIError.unauthorized
        }
    }

    struct CreateBody: Decodable {
        let scope: [String]?
        let state: String?
        let title: String?
    }

    /// `POST /mfb/requests`: a new request with a fresh key pair, and the message to send.
    public func create(body: [UInt8]) async throws -> MfBRequestCreated {
        let request = JSONBody.isBlank(body) ? CreateBody(scope: nil, state: nil, title: nil) : try JSONBody.decode(CreateBody.self, body)
        let scope = request.scope ?? ["profile"]
        guard scope.count <= 16, scope.allSatisfy({ Self.isScopeToken($0) }) else {
            throw APIError.invalidRequest("scope must be at most 16 OAuth scope tokens (printable ASCII, no space, quote or backslash).")
        }
        let state = request.state ?? Base64URL.encode(SecureRandom.bytes(16))
        try Self.checkText(state, "state", limit: 512)
        let title = request.title ?? "Sign In"
        try Self.checkText(title, "title", limit: 128)

        let key = try ECPrivateKey.generate(.p384)
        let point = key.publicPoint
        let now = passkeys.now()
        let record = MfBRequestRecord(
            id: UUID().uuidString, privateKey: key.scalar, publicPoint: point, pointHash: Digest.sha256.hash(point),
            createdAt: now, expiresAt: now.addingTimeInterval(requestTTL))
        try await store.insertMfBRequest(record)
        let message = MfBAuthenticateMessage(
            requestIdentifier: record.id, publicPoint: point, scope: scope, state: state, clientSecret: clientSecret, title: title)
        return MfBRequestCreated(
            requestIdentifier: record.id, responseEncryptionKey: message.interactiveData.data.authenticate.oauth2.responseEncryptionKey,
            expiresAt: PasskeySignIn.timestamp(record.expiresAt), message: message)
    }

    /// `GET /mfb/requests/{id}`.
    public func status(id: String) async throws -> MfBRequestStatus {
        guard id.utf8.count <= 64, let request = try await store.mfbRequest(id: id) else { throw APIError.notFound }
        var status = MfBRequestStatus(requestIdentifier: request.id, status: request.status)
        switch request.status {
        case "authenticated":
            if let handle = request.userHandle { status.userName = try await store.user(handle: handle)?.name }
        case "failed":
            status.errors = request.errors.flatMap { try? JSONDecoder().decode([MfBReply.DeviceError].self, from: Data($0.utf8)) } ?? []
        default:
            if passkeys.now() >= request.expiresAt { status.status = "expired" }
        }
        return status
    }

    /// `POST /mfb/responses`: the device's reply. Counted as the `mfb` ceremony.
    public func respond(body: [UInt8]) async throws -> MfBReplyAnswer {
        do {
            let answer = try await reply(body: body)
            if answer.status == "authenticated" {
                passkeys.metrics.ceremony("mfb", .ok)
            } else {
                passkeys.metrics.ceremony("mfb", .refused, error: "device_failed")
            }
            return answer
        } catch {
            passkeys.metrics.ceremony("mfb", .refused, error: APIError.code(for: error))
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
        let now = passkeys.now()
        switch reply.outcome {
        case .failed(let errors):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let text = String(decoding: try encoder.encode(errors), as: UTF8.self)
            try Self.check(try await store.failMfBRequest(id: reply.requestIdentifier, errors: text, now: now))
            return MfBReplyAnswer(requestIdentifier: reply.requestIdentifier, status: "failed", errors: errors)
        case .authenticated(let token):
            let plaintext = try await decrypt(token, requestID: reply.requestIdentifier, now: now)
            let event = passkeys.event([], "sign_in", at: now, ["method": "mfb", "request": reply.requestIdentifier])
            let outcome = try await store.completeMfBRequest(
                id: reply.requestIdentifier, grantHash: Digest.sha256.hash(plaintext), now: now, signedIn: event)
            guard case .authenticated(let userName) = outcome else {
                try Self.check(outcome)
                throw APIError.internalError
            }
            return MfBReplyAnswer(requestIdentifier: reply.requestIdentifier, status: "authenticated", userName: userName)
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

    // MARK: The OAuth provider

    /// Where the authorization endpoint sends the browser.
    public enum Authorization: Sendable, Equatable {
        /// To the sign-in page, which comes back to `returnPath` once signed in.
        case signIn(returnPath: String)
        /// Back to the client: `redirect_uri` with the code (or an OAuth error) and the state.
        case redirect(String)
    }

    /// `GET|POST /mfb/authorize`. Order: client and redirect URI (never redirected to when
    /// wrong), the response type, the session, then the key audit.
    public func authorize(_ parameters: [String: String], session: SignedInUser?) async throws -> Authorization {
        let redirectURI = try checkClient(parameters)
        let state = parameters["state"]
        guard parameters["response_type"] == "code" else {
            return .redirect(Self.appending(["error": "unsupported_response_type", "state": state], to: redirectURI))
        }
        guard let session else {
            return .signIn(returnPath: "/mfb/authorize?" + Self.sortedForm(parameters))
        }
        let request = try await auditKey(parameters, session: session)
        let code = Base64URL.encode(SecureRandom.bytes(32))
        let grant = MfBGrantRecord(
            hash: Digest.sha256.hash(Array(code.utf8)), kind: .code, requestID: request.id, userHandle: session.user.handle,
            clientID: clientID, redirectURI: redirectURI, expiresAt: passkeys.now().addingTimeInterval(Self.codeTTL))
        guard try await store.insertMfBGrant(grant, now: passkeys.now()) else { throw Self.keyMismatch }
        return .redirect(Self.appending(["code": code, "state": state], to: redirectURI))
    }

    /// `client_id` must be ours and `redirect_uri` one configured (exactly; omitted only when
    /// one is configured): the redirect URI to use.
    func checkClient(_ parameters: [String: String]) throws -> String {
        guard let presented = parameters["client_id"], constantTimeEquals(Array(presented.utf8), Array(clientID.utf8)) else {
            throw APIError.invalidRequest("client_id is not this server's Messages for Business client.")
        }
        return try redirectURI(parameters["redirect_uri"])
    }

    /// The presented `redirect_uri` when configured, or the only configured one when omitted.
    func redirectURI(_ presented: String?) throws -> String {
        if let redirect = presented {
            guard redirectURIs.contains(redirect) else {
                throw APIError.invalidRequest("redirect_uri is not one of the configured redirect URIs.")
            }
            return redirect
        }
        guard redirectURIs.count == 1, let only = redirectURIs.first else {
            throw APIError.invalidRequest("redirect_uri is required when more than one is configured.")
        }
        return only
    }

    /// "Validate the Public Key": the key is a pending, unexpired request's (found by its hash,
    /// then compared in constant time), and the device's `userHandle` the one bound to it.
    /// Anything else is `mfb_key_mismatch` with an audit event on the signed-in account.
    func auditKey(_ parameters: [String: String], session: SignedInUser) async throws -> MfBRequestRecord {
        let now = passkeys.now()
        let deviceUser = parameters["userHandle"] ?? ""
        var found: MfBRequestRecord?
        if let text = parameters["responseEncryptionKey"], let point = MfBKeyAudit.point(fromParameter: text),
           let request = try await store.mfbRequest(pointHash: Digest.sha256.hash(point)),
           MfBKeyAudit.matches(presented: point, requested: request.publicPoint),
           request.status == "pending", now < request.expiresAt,
           !deviceUser.isEmpty, deviceUser.utf8.count <= 256,
           !deviceUser.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            found = request
        }
        let mismatch = passkeys.event(session.user.handle, "mfb_key_mismatch", at: now, ["request": found?.id ?? ""])
        guard try await store.auditMfBDevice(requestID: found?.id, deviceUserHandle: deviceUser, now: now, mismatch: mismatch),
              let request = found
        else {
            passkeys.logger.warning("Messages for Business key audit failed", metadata: ["request": "\(found?.id ?? "none")"])
            throw Self.keyMismatch
        }
        return request
    }

    static let keyMismatch = APIError(
        code: "mfb_key_mismatch",
        message: "responseEncryptionKey and userHandle are not those of a pending request made here; no code is issued.")

    /// `POST /mfb/token` (RFC 6749 §4.1.3): the code for an access token bound to the same
    /// request. Client authentication by `client_secret` in the form or HTTP Basic.
    public func token(_ parameters: [String: String], basic: (id: String, secret: String)?) async throws -> MfBTokenResponse {
        let presentedID = basic?.id ?? parameters["client_id"]
        let presentedSecret = basic?.secret ?? parameters["client_secret"]
        guard let presentedID, let presentedSecret,
              constantTimeEquals(Array(presentedID.utf8), Array(clientID.utf8)),
              constantTimeEquals(Digest.sha256.hash(Array(presentedSecret.utf8)), clientSecretHash)
        else {
            throw OAuthError.invalidClient("Client authentication failed.", basic: true)
        }
        guard let grantType = parameters["grant_type"] else { throw OAuthError("invalid_request", "grant_type is required.") }
        guard grantType == "authorization_code" else {
            throw OAuthError("unsupported_grant_type", "Only authorization_code is supported.")
        }
        guard let code = parameters["code"] else { throw OAuthError("invalid_request", "code is required.") }
        let redirectURI = try? redirectURI(parameters["redirect_uri"])
        let now = passkeys.now()
        let accessToken = Base64URL.encode(SecureRandom.bytes(32))
        guard let redirectURI, code.utf8.count <= 128,
              try await store.exchangeMfBCode(
                hash: Digest.sha256.hash(Array(code.utf8)), clientID: clientID, redirectURI: redirectURI, now: now,
                accessTokenHash: Digest.sha256.hash(Array(accessToken.utf8)), accessTokenExpiresAt: now.addingTimeInterval(requestTTL))
        else {
            throw OAuthError("invalid_grant", "The code is unknown, spent, expired, or issued to another redirect_uri.")
        }
        return MfBTokenResponse(accessToken: accessToken, tokenType: "Bearer", expiresIn: Int(requestTTL))
    }

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

    /// The parameters given a value, in the order of their names.
    static func sortedPairs(_ parameters: [String: String?]) -> [(name: String, value: String)] {
        parameters.compactMapValues { $0 }.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    /// `application/x-www-form-urlencoded`, keys sorted.
    static func sortedForm(_ parameters: [String: String]) -> String {
        FormURLEncoded.encode(sortedPairs(parameters.mapValues { $0 }))
    }

    /// The redirect URI with the answer's parameters, in the order of their names, added to
    /// its query.
    static func appending(_ parameters: [String: String?], to uri: String) -> String {
        FormURLEncoded.appending(sortedPairs(parameters), to: uri)
    }
}

public struct MfBRequestCreated: Encodable, Sendable {

    enum CodingKeys: String, CodingKey {

        case requestIdentifier, responseEncryptionKey, expiresAt = "expires_at", message

    }

    public let requestIdentifier: String
    public let responseEncryptionKey: String
    public let expiresAt: String
    public let message: MfBAuthenticateMessage
}

public struct MfBRequestStatus: Encodable, Sendable {

    enum CodingKeys: String, CodingKey {

        case requestIdentifier, status, userName = "user_name", errors

    }

    public let requestIdentifier: String
    public var status: String
    public var userName: String?
    public var errors: [MfBReply.DeviceError]?
}

public struct MfBReplyAnswer: Encodable, Sendable {

    enum CodingKeys: String, CodingKey {

        case requestIdentifier, status, userName = "user_name", errors

    }

    public let requestIdentifier: String
    public let status: String
    public var userName: String?
    public var errors: [MfBReply.DeviceError]?
}

public struct MfBTokenResponse: Encodable, Sendable {

    enum CodingKeys: String, CodingKey {

        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in"

    }

    public let accessToken: String
    public let tokenType: String
    public let expiresIn: Int
}
