internal import PasskeyJSON
internal import Foundation
internal import PasskeyApple
internal import PasskeyStorage
internal import PasskeyCore
internal import PasskeyTelemetry
internal import Logging

/// Apple's server-to-server notifications, and the developer's key (the client secret).
extension AppleSignIn {
    // MARK: Notifications

    /// `POST /siwa/notifications`: Apple's server-to-server events, verified like an identity
    /// token; each `jti` is applied once.
    public func notification(payload: String) async throws {
        let now = context.now()
        let notification = try await verifiedNotification(payload, now: now)
        guard notification.jti.utf8.count <= 255, !notification.jti.unicodeScalars.contains(where: { $0.value < 0x20 }),
              notification.subject.utf8.count <= 255, !notification.subject.unicodeScalars.contains(where: { $0.value < 0x20 })
        else {
            throw APIError(.invalidToken("jti or sub holds control characters or is too long."))
        }
        let link = try await store.appleLink(issuer: notification.issuer, subject: notification.subject)
        let change: AppleLinkChange
        var event: AuditEvent?
        switch notification.type {
        case "consent-revoked", "account-delete":
            change = .unlink
            if let link {
                event = AuditEvent(
                    userHandle: link.userHandle, type: "apple_unlinked", at: now, ip: nil, userAgent: nil, details: ["reason": notification.type])
            }
        case "email-disabled": change = .emailForwarding(false)
        case "email-enabled": change = .emailForwarding(true)
        default: change = .none
        }
        let applied = try await store.applyAppleNotification(
            jti: notification.jti, now: now, issuer: notification.issuer, subject: notification.subject,
            userHandle: link?.userHandle, change: change, event: event)
        logger.info("siwa notification", metadata: ["type": "\(LogText.escaped(notification.type))", "applied": "\(applied)"])
    }

    private func verifiedNotification(_ payload: String, now: Date) async throws -> AppleNotification {
        do {
            return try await verifier.verifyNotification(payload, now: now)
        } catch {
            logger.info("siwa notification refused", metadata: ["code": "\(error.code)", "reason": "\(LogText.escaped(error.message))"])
            throw APIError(error)
        }
    }

    // MARK: The developer's key

    /// The client secret for Apple's token and revoke endpoints, or nil without a key.
    func clientSecret(for clientID: String) -> String? {
        guard let developerKey, let teamID = configuration.appleTeamID, let keyID = configuration.appleKeyID else { return nil }
        return try? AppleClientSecret.make(teamID: teamID, keyID: keyID, clientID: clientID, privateKey: developerKey, now: context.now())
    }

    /// Exchanges the authorization code and keeps the refresh token; failures are logged, the
    /// sign-in stands.
    func exchange(code: String, audience: String, issuer: String, subject: String, redirectURI: String?) async {
        guard let secret = clientSecret(for: audience) else { return }
        do {
            let refreshToken = try await endpoints.exchangeCode(
                url: configuration.appleTokenURL, clientID: audience, clientSecret: secret, code: code, redirectURI: redirectURI)
            if let refreshToken {
                try await store.setAppleRefreshToken(issuer: issuer, subject: subject, refreshToken: refreshToken)
            }
        } catch {
            logger.warning("Apple code exchange failed", metadata: ["error": "\(error)"])
        }
    }

    /// Revokes a refresh token at Apple; failures are logged (the link is gone either way).
    /// True when Apple took it.
    @discardableResult
    func revoke(_ refreshToken: String) async -> Bool {
        for clientID in configuration.appleClientIDs {
            guard let secret = clientSecret(for: clientID) else { return false }
            do {
                try await endpoints.revoke(
                    url: configuration.appleRevokeURL, clientID: clientID, clientSecret: secret, refreshToken: refreshToken)
                return true
            } catch {
                logger.warning("Apple token revocation failed", metadata: ["client_id": "\(clientID)", "error": "\(error)"])
            }
        }
        return false
    }

    /// A deleted account's Apple token (App Store Review Guideline 5.1.1(v)): revoked in the
    /// background, and again after each of the back-channel retry waits while Apple cannot be
    /// reached; returns at once.
    public func revokeInBackground(_ refreshToken: String) {
        let delays = context.configuration.logoutRetryDelays
        Task.detached { [self] in
            for delay in [0] + delays {
                if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
                if await revoke(refreshToken) { return }
            }
            logger.error("Apple token of a deleted account could not be revoked; giving up")
        }
    }

    /// `GET /me`'s `apple`.
    package func meApple(_ userHandle: [UInt8]) async throws -> MeResponse.Apple? {
        guard let link = try await store.appleLink(userHandle: userHandle) else { return nil }
        return MeResponse.Apple(sub: link.subject, email: link.email, isPrivateEmail: link.isPrivateEmail)
    }
}
