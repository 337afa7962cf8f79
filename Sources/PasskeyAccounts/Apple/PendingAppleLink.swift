internal import PasskeyJSON
internal import Foundation
internal import PasskeyApple
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyStorage

/// A Sign in with Apple link waiting for its account's owner to confirm it on the page: what
/// the web flow's callback verified, sealed under the server secret (HMAC-SHA-256) into the
/// short-lived `siwa_link` cookie, so nothing is stored before the confirmation. The identity
/// token and the nonce are spent only when it is confirmed, in the same write as the link, so a
/// pending link is confirmed once.
struct PendingAppleLink: Codable, Equatable {
    var issuer: String
    var subject: String
    var audience: String
    var email: String?
    var emailVerified: Bool
    var isPrivateEmail: Bool
    /// base64url, as are the next three.
    var userHandle: String
    var tokenHash: String
    var tokenExpiresAt: Int64
    var nonce: String
    var authorizationCode: String?
    var redirectURI: String?
    /// Milliseconds since 1970.
    var expiresAt: Int64

    /// Throws `StoreError` for a time out of the storable range (as every store does).
    init(claims: IdentityClaims, userHandle: [UInt8], token: SpentToken, nonce: [UInt8], request: AppleSignIn.SignInRequest, expiresAt: Date) throws {
        issuer = claims.issuer
        subject = claims.subject
        audience = claims.audience
        email = claims.email
        emailVerified = claims.emailVerified
        isPrivateEmail = claims.isPrivateEmail
        self.userHandle = Base64URL.encode(userHandle)
        tokenHash = Base64URL.encode(token.hash)
        tokenExpiresAt = try token.expiresAt.storeMilliseconds()
        self.nonce = Base64URL.encode(nonce)
        authorizationCode = request.authorizationCode
        redirectURI = request.redirectURI
        self.expiresAt = try expiresAt.storeMilliseconds()
    }

    static let label = Array("siwa-link".utf8)

    /// `PAYLOAD.MAC`, both base64url: cookie-safe.
    func sealed(secret: [UInt8]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = Base64URL.encode(Array((try? encoder.encode(self)) ?? Data()))
        return payload + "." + Base64URL.encode(HMAC.sha256(key: secret, data: Self.label + Array(payload.utf8)))
    }

    /// The pending link, when `sealed` was made here, is intact and has not expired.
    static func open(_ sealed: String, secret: [UInt8], now: Date) -> PendingAppleLink? {
        let parts = sealed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, sealed.utf8.count <= 4096, let mac = Base64URL.decodeStrict(String(parts[1])) else { return nil }
        let expected = HMAC.sha256(key: secret, data: label + Array(parts[0].utf8))
        guard constantTimeEquals(expected, mac), let payload = Base64URL.decodeStrict(String(parts[0])),
              let pending = try? JSONDecoder().decode(PendingAppleLink.self, from: Data(payload)),
              Date(storeMilliseconds: pending.expiresAt) > now
        else { return nil }
        return pending
    }

    /// The link it makes, created `now`.
    func link(at now: Date) -> AppleLinkRecord? {
        guard let handle = Base64URL.decodeStrict(userHandle) else { return nil }
        return AppleLinkRecord(
            issuer: issuer, subject: subject, userHandle: handle, email: email, emailVerified: emailVerified,
            isPrivateEmail: isPrivateEmail, createdAt: now)
    }
}

extension AppleSignIn {
    static let noPendingLink = APIError(
        code: "no_pending_link", message: "No Apple ID is waiting to be linked to this account, or the wait expired; link it again.")

    /// `POST /siwa/link/confirm`: links the Apple ID the web flow's callback verified to the
    /// signed-in account, once its owner confirmed it on the page. The identity token and the
    /// nonce are spent in the same write as the link.
    public func confirmLink(_ sealed: String?, session: SignedInUser) async throws {
        try await sessions.requireRecentAuthentication(session)
        let now = context.now()
        guard let sealed, let pending = PendingAppleLink.open(sealed, secret: context.serverSecret, now: now),
              let link = pending.link(at: now), constantTimeEquals(link.userHandle, session.user.handle),
              let tokenHash = Base64URL.decodeStrict(pending.tokenHash), let nonce = Base64URL.decodeStrict(pending.nonce)
        else { throw Self.noPendingLink }
        let token = SpentToken(hash: tokenHash, expiresAt: Date(storeMilliseconds: pending.tokenExpiresAt))
        let outcome = try await store.completeAppleSignIn(
            token: token, nonce: nonce, now: now, newUser: nil, newLink: link, session: nil,
            events: [context.event(link.userHandle, "apple_linked", at: now, ["sub": link.subject])])
        switch outcome {
        case .signedIn:
            if let code = pending.authorizationCode {
                await exchange(code: code, audience: pending.audience, issuer: link.issuer, subject: link.subject, redirectURI: pending.redirectURI)
            }
        case .tokenSpent:
            throw APIError.tokenReplayed
        case .nonceGone:
            throw APIError(.nonceMismatch("The nonce of this link is spent or has expired; link it again."))
        case .accountLinked:
            throw APIError(code: "apple_already_linked", message: "This account is linked to another Apple ID; unlink it first.")
        case .appleIDLinked, .userExists:
            throw APIError(code: "apple_id_linked", message: "This Apple ID is linked to another account.")
        }
    }
}
