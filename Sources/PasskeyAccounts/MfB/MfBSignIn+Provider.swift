internal import PasskeyJSON
internal import Foundation
internal import PasskeyMfB
internal import PasskeyStorage
internal import PasskeyCore
internal import PasskeyCrypto
internal import Logging

/// The OAuth provider's part of a Messages for Business sign-in: the device's authorize and
/// token calls, answered through the server's OpenID provider.
extension MfBSignIn {
    // MARK: The OAuth provider's part

    /// The Messages for Business client's scopes: what its messages may ask for (never
    /// `offline_access`: it gets no refresh tokens).
    public static let clientScopes = ["openid", "profile", "email", "groups", "passkey"]

    /// Registers the Messages for Business client with the OpenID provider, as the flags
    /// describe it (docs/contracts/mfb.md: the business's OAuth provider is this server's, and its client is
    /// one registered client). Runs at start-up, before the server listens.
    public func registerClient() async throws {
        do {
            _ = try await ClientRegistry(store: store).registerMessagesForBusiness(
                id: clientID, secret: clientSecret, redirectURIs: redirectURIs, scopes: Self.clientScopes, now: context.now())
        } catch let failure as ClientRegistry.Failure {
            throw ServerStartupError(message: "--mfb-client-id: \(failure.description)")
        }
    }

    /// The key audit at the provider's authorization endpoint, for a request of the Messages
    /// for Business client from a signed-in user: the key must be a pending request's (and the
    /// device's `userHandle` the one bound to it), or no code is issued (`mfb_key_mismatch`,
    /// with an event on the user's account). On success the code is bound to that request, so
    /// that it, or the access token it is exchanged for, answers that request and no other.
    func bindCode(
        _ code: String, parameters: AuthorizationRequest.MfBParameters, userHandle: [UInt8], clientID: String, redirectURI: String,
        expiresAt: Date
    ) async throws {
        let request = try await audit(key: parameters.responseEncryptionKey, deviceUser: parameters.userHandle ?? "", eventUser: userHandle)
        let grant = MfBGrantRecord(
            hash: Digest.sha256.hash(Array(code.utf8)), kind: .code, requestID: request.id, userHandle: userHandle, clientID: clientID,
            redirectURI: redirectURI, expiresAt: expiresAt)
        guard try await store.insertMfBGrant(grant, now: context.now()) else { throw Self.keyMismatch }
    }

    /// The provider's token endpoint exchanged a code of the Messages for Business client: the
    /// access token takes the code's place as what may answer its request (the legacy message,
    /// whose device returns the access token). A code whose request was answered or expired
    /// meanwhile binds nothing.
    func bindAccessToken(_ accessToken: String, code: String, clientID: String, redirectURI: String, at: Date) async throws {
        _ = try await store.exchangeMfBCode(
            hash: Digest.sha256.hash(Array(code.utf8)), clientID: clientID, redirectURI: redirectURI, now: at,
            accessTokenHash: Digest.sha256.hash(Array(accessToken.utf8)),
            accessTokenExpiresAt: at.addingTimeInterval(context.configuration.accessTokenTTL))
    }

    /// A code that answered its request (the iOS 16 message) is spent at the provider too: it
    /// can no longer be exchanged for tokens.
    func spendProviderCode(_ plaintext: [UInt8]) async throws {
        guard let bytes = Base64URL.decodeStrict(String(decoding: plaintext, as: UTF8.self)), bytes.count == 32,
              let grant = try await store.grant(codeHash: Digest.sha256.hash(bytes)), grant.clientID == clientID
        else { return }
        _ = try await store.revokeGrant(id: grant.id, event: nil)
    }

    /// A third-party provider's credential for `POST /mfb/key-audits`, in constant time.
    public func checkAuditToken(_ presented: String?) throws {
        guard let auditTokenHash, let presented, constantTimeEquals(Digest.sha256.hash(Array(presented.utf8)), auditTokenHash) else {
            throw APIError.unauthorized
        }
    }

    /// `POST /mfb/key-audits`: seed 001's audit call, for a business whose authentication
    /// provider is a third party. The provider posts the `responseEncryptionKey` and
    /// `userHandle` the device brought to its authorization endpoint; this server answers
    /// whether a pending request of its own has that key (binding the user the first time), so
    /// that the provider fails the device's request at once when the key was swapped.
    public func providerAudit(body: [UInt8]) async throws -> MfBKeyAuditAnswer {
        struct Audit: Decodable {
            let responseEncryptionKey: String
            let userHandle: String
        }
        let audit = try JSONBody.decode(Audit.self, body)
        let request = try await self.audit(key: audit.responseEncryptionKey, deviceUser: audit.userHandle, eventUser: [])
        return MfBKeyAuditAnswer(valid: true, requestIdentifier: request.id)
    }

    /// The key is a pending, unexpired request's (found by its hash, then compared in constant
    /// time), and the device's `userHandle` the one bound to it. Anything else is
    /// `mfb_key_mismatch` with an audit event (on `eventUser`'s account; none for a provider).
    func audit(key: String?, deviceUser: String, eventUser: [UInt8]) async throws -> MfBRequestRecord {
        let now = context.now()
        var found: MfBRequestRecord?
        if let text = key, let point = MfBKeyAudit.point(fromParameter: text),
           let request = try await store.mfbRequest(pointHash: Digest.sha256.hash(point)),
           MfBKeyAudit.matches(presented: point, requested: request.publicPoint),
           request.status == "pending", now < request.expiresAt,
           !deviceUser.isEmpty, deviceUser.utf8.count <= 256,
           !deviceUser.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            found = request
        }
        let mismatch = context.event(eventUser, "mfb_key_mismatch", at: now, ["request": found?.id ?? ""])
        guard try await store.auditMfBDevice(requestID: found?.id, deviceUserHandle: deviceUser, now: now, mismatch: mismatch),
              let request = found
        else {
            context.logger.warning("Messages for Business key audit failed", metadata: ["request": "\(found?.id ?? "none")"])
            throw Self.keyMismatch
        }
        return request
    }

    static let keyMismatch = APIError(
        code: "mfb_key_mismatch",
        message: "responseEncryptionKey and userHandle are not those of a pending request made here; no code is issued.")
}
