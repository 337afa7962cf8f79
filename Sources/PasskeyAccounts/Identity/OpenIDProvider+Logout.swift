public import Foundation
internal import Logging
internal import PasskeyCrypto
internal import PasskeyHTTPParsing
internal import PasskeyJOSE
public import PasskeyJSON
public import PasskeyStorage

/// Where back-channel logout tokens are posted (OpenID Connect Back-Channel Logout 1.0 §2.5):
/// the composition root gives the provider one over the outbound HTTP module.
public protocol BackChannelLogoutDelivery: Sendable {
    /// POSTs `logout_token=…` as a form to `url`; throws unless the client answered 200 or 204.
    func deliver(logoutToken: String, to url: String) async throws
}

/// RP-Initiated Logout 1.0 and Back-Channel Logout 1.0 (docs/contracts/identity.md, "Revocation,
/// introspection, logout").
extension OpenIDProvider {
    /// What `/oauth/logout` answers.
    public enum LogoutOutcome: Sendable, Equatable {
        /// Signed out (or was not signed in): to the client's registered post-logout URI.
        case redirect(String)
        /// Signed out (or was not signed in), with nowhere registered to go: our own page says so.
        case signedOut
        /// The request does not name the current session: the user is asked first. The page
        /// posts `parameters` back with `confirm` set to `confirmation`.
        case confirm(clientName: String?, parameters: [AuthorizationResponse.Parameter], confirmation: String)
        /// A malformed request (400, shown).
        case refused(error: String, description: String)
    }

    /// `GET`/`POST /oauth/logout`. `confirmation` is what the confirmation page posted back
    /// (`confirm`), which must name the current session.
    public func logout(_ parameters: [(name: String, value: String)], session: SignedInUser?, confirmation: String?) async throws -> LogoutOutcome {
        var values: [String: String] = [:]
        for (name, value) in parameters where values.updateValue(value, forKey: name) != nil {
            return .refused(error: "invalid_request", description: "\(name.prefix(32)) is given more than once")
        }
        var hint: [String: JSONValue]?
        if let text = values["id_token_hint"] {
            guard let claims = try await checkIDTokenHint(text) else {
                return .refused(error: "invalid_request", description: "id_token_hint is not an ID token this server issued")
            }
            hint = claims
        }
        let hintedClient = hint?["aud"]?.stringValue
        if let named = values["client_id"], let hintedClient, named != hintedClient {
            return .refused(error: "invalid_request", description: "client_id is not the audience of id_token_hint")
        }
        let clientID = values["client_id"] ?? hintedClient
        let client = try await clientID.asyncMap { try await store.client(id: $0) } ?? nil
        var target: String?
        if let uri = values["post_logout_redirect_uri"], let client, RedirectURI.match(uri, in: client.postLogoutRedirectURIs) != nil {
            target = values["state"].map { FormURLEncoded.appending([("state", $0)], to: uri) } ?? uri
        }
        func done() -> LogoutOutcome { target.map(LogoutOutcome.redirect) ?? .signedOut }
        guard let session else { return done() }

        let current = Self.sessionID(session.tokenHash)
        let named = hint?["sid"]?.stringValue == current && hint?["sub"]?.stringValue == Self.subject(session.user.handle)
        if !named {
            guard let confirmation, constantTimeEquals(Array(confirmation.utf8), Array(current.utf8)) else {
                let kept = parameters.filter { $0.name != "confirm" }.map { AuthorizationResponse.Parameter(name: $0.name, value: $0.value) }
                return .confirm(clientName: client.map { $0.name ?? $0.id }, parameters: kept, confirmation: current)
            }
        }
        try await sessions.logout(session)
        return done()
    }

    /// An ID token this provider signed (any published key, even expired: a hint may be old),
    /// with this issuer; its claims, or nil.
    func checkIDTokenHint(_ token: String) async throws -> [String: JSONValue]? {
        guard let jws = try? JWS(compact: token), let algorithm = try? jws.checkAlgorithm(Self.tokenPolicy), let kid = jws.keyID,
              let key = try await keys.key(id: kid, algorithm: algorithm, now: now()),
              (try? jws.verify(with: key.privateKey.publicKey, policy: Self.tokenPolicy)) != nil,
              let claims = try? jws.claims(), (try? JWTClaims.checkIssuer(claims, expected: issuer)) != nil
        else { return nil }
        return claims
    }

    // MARK: Back-channel logout

    /// Sessions ended: their grants without `offline_access` are revoked, and every client with
    /// a back-channel logout URI that holds tokens of them is sent a logout token, in the
    /// background, retried with back-off; a failing client never holds anything up.
    func sessionsEnded(_ ended: EndedSessions) async {
        do {
            let at = now()
            let grants = try await store.grants(userHandle: ended.userHandle).filter { ended.tokenHashes.contains($0.sessionHash) }
            for grant in grants where !grant.offline && !grant.revoked { _ = try await store.revokeGrant(id: grant.id, event: nil) }
            await send(LogoutNotice.notices(grants, userHandle: ended.userHandle, at: at), at: at)
        } catch {
            context.logger.error("back-channel logout could not be prepared", metadata: ["error": "\(error)"])
        }
    }

    /// A deleted account's standing grants (read in the deleting transaction, now gone): each
    /// client gets a logout token per session it held tokens of, in the background.
    public func accountDeleted(userHandle: [UInt8], grants: [GrantRecord]) async {
        let at = now()
        await send(LogoutNotice.notices(grants.filter { !$0.revoked }, userHandle: userHandle, at: at), at: at)
    }

    /// Sends the back-channel logouts another process queued (the command line's disable,
    /// revoke-sessions and delete), at most `limit` of them; how many were taken. Each is taken
    /// by one instance; a client gone since, or without a back-channel URI, is skipped.
    public func sendQueuedLogouts(limit: Int = 100) async throws -> Int {
        let notices = try await store.takeLogoutNotices(limit: limit)
        await send(notices, at: now())
        return notices.count
    }

    /// Starts each notice's logout token on its way: a client gone since is skipped, and one
    /// that cannot be prepared is logged without holding up the others.
    func send(_ notices: [LogoutNotice], at: Date) async {
        for notice in notices {
            do {
                guard let client = try await store.client(id: notice.clientID) else { continue }
                try await sendLogout(client: client, userHandle: notice.userHandle, sid: notice.sid, at: at)
            } catch {
                context.logger.error("a back-channel logout could not be prepared", metadata: ["client": "\(notice.clientID)", "error": "\(error)"])
            }
        }
    }

    /// Starts sending `client` a logout token for the session `sid`, in a task of its own, when
    /// it has a back-channel logout URI; returns at once.
    func sendLogout(client: ClientRecord, userHandle: [UInt8], sid: String, at: Date) async throws {
        guard let uri = client.backchannelLogoutURI, backChannel != nil else { return }
        let token = try await logoutToken(client: client, userHandle: userHandle, sid: sid, at: at)
        Task.detached { [self] in await self.deliver(token, to: uri, client: client.id, userHandle: userHandle) }
    }

    func deliver(_ token: String, to uri: String, client: String, userHandle: [UInt8]) async {
        guard let delivery = backChannel,
              let lastError = await retrying("back-channel logout", client: client, { try await delivery.deliver(logoutToken: token, to: uri) })
        else { return }
        context.logger.warning("back-channel logout failed", metadata: ["client": "\(client)", "error": "\(lastError)"])
        try? await store.insertEvent(context.event(userHandle, "backchannel_logout_failed", at: now(), ["client": client]))
    }

    /// `send` at once, then after each of `logoutRetryDelays` until it does not throw, each
    /// failure logged as `what` not delivered; nil once delivered, else the last error.
    func retrying(_ what: String, client: String, _ send: () async throws -> Void) async -> String? {
        var lastError = ""
        for (attempt, delay) in ([0] + logoutRetryDelays).enumerated() {
            if delay > 0 { try? await Task.sleep(for: .milliseconds(Int(delay * 1000))) }
            do {
                try await send()
                return nil
            } catch {
                lastError = "\(error)"
                context.logger.info("\(what) not delivered", metadata: ["client": "\(client)", "attempt": "\(attempt + 1)", "error": "\(lastError)"])
            }
        }
        return lastError
    }

    /// A logout token (Back-Channel Logout 1.0 §2.4): `typ: logout+jwt`, `iss`, `aud`, `iat`,
    /// `exp` (2 minutes), `jti`, `sub`, `sid`, the back-channel logout event, never a `nonce`.
    func logoutToken(client: ClientRecord, userHandle: [UInt8], sid: String, at: Date) async throws -> String {
        let algorithm = JWSAlgorithm(rawValue: client.idTokenAlgorithm) ?? .rs256
        let key = try await keys.signer(algorithm, now: at)
        let claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(client.id), "iat": Self.seconds(at), "exp": Self.seconds(at.addingTimeInterval(120)),
            "jti": .string(Base64URL.encode(SecureRandom.bytes(16))), "sub": .string(Self.subject(userHandle)), "sid": .string(sid),
            "events": .object(["http://schemas.openid.net/event/backchannel-logout": .object([:])]),
        ]
        return try JWS.sign(header: ["typ": .string("logout+jwt"), "kid": .string(key.record.keyID)], claims: claims, key: key.privateKey, algorithm: algorithm)
    }
}

extension LogoutNotice {
    /// One notice per client and session among `grants` whose code was redeemed (so that the
    /// client holds tokens of that session).
    static func notices(_ grants: [GrantRecord], userHandle: [UInt8], at: Date) -> [LogoutNotice] {
        var seen = Set<String>()
        return grants.filter(\.codeSpent).compactMap { grant in
            let sid = Sessions.sessionID(grant.sessionHash)
            guard seen.insert(grant.clientID + " " + sid).inserted else { return nil }
            return LogoutNotice(clientID: grant.clientID, userHandle: userHandle, sid: sid, createdAt: at)
        }
    }
}
