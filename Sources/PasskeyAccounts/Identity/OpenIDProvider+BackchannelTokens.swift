public import Foundation
internal import PasskeyCrypto
internal import PasskeyJSON
internal import Logging
public import PasskeyStorage

/// CIBA's answers: the token endpoint's poll, the ping to a ping client, and the signed-in
/// page's list and decision (docs/contracts/identity.md, "Approval on the phone").
extension OpenIDProvider {
    // MARK: Token endpoint

    /// `grant_type=urn:openid:params:grant-type:ciba` (CIBA §10–11): `authorization_pending`
    /// while the user has not answered, `slow_down` for a poll sooner than the interval (which
    /// then grows by 5 s), `access_denied`, `expired_token`, then the tokens once; after that
    /// `invalid_grant`. An `auth_req_id` of another client is `invalid_grant`, and changes
    /// nothing of the request.
    func redeemBackchannel(_ values: [String: String], client: ClientRecord, jkt: String?) async throws -> TokenAnswer {
        guard client.cibaMode != nil else { throw OAuthError("unauthorized_client", "this client is not registered for backchannel authentication") }
        guard let id = values["auth_req_id"] else { throw OAuthError.invalidRequest("auth_req_id is missing") }
        guard let hash = Self.authReqHash(id), let request = try await store.backchannelRequest(idHash: hash), request.clientID == client.id else {
            throw OAuthError.invalidGrant("auth_req_id is not one this server issued to this client")
        }
        let at = now()
        guard !request.redeemed else { throw OAuthError.invalidGrant("the tokens of this auth_req_id were issued already") }
        guard request.expiresAt > at else { throw OAuthError("expired_token", "the request expired before the user answered; ask again") }
        switch request.status {
        case "pending":
            if let last = request.lastPolledAt, at.timeIntervalSince(last) < TimeInterval(request.interval) {
                try await store.recordBackchannelPoll(idHash: hash, at: at, interval: request.interval + Self.slowDownStep)
                throw OAuthError("slow_down", "polling faster than the interval; wait \(request.interval + Self.slowDownStep) s between polls")
            }
            try await store.recordBackchannelPoll(idHash: hash, at: at, interval: request.interval)
            throw OAuthError("authorization_pending", "the user has not answered yet")
        case "approved":
            return try await issueBackchannelTokens(request, hash: hash, client: client, jkt: jkt, at: at)
        default:
            throw OAuthError("access_denied", "the user denied the request")
        }
    }

    /// An approved request's tokens: the account and the client's policy checked now, then a
    /// session of its own (no one holds its token: it is the grant's `sid`, and signing out
    /// everywhere, disabling or a recovery ends it and the grant) and the grant, stored with the
    /// request's redemption in one write, then spent as a code is.
    func issueBackchannelTokens(_ request: BackchannelRequestRecord, hash: [UInt8], client: ClientRecord, jkt: String?, at: Date) async throws -> TokenAnswer {
        guard let user = try await store.user(handle: request.userHandle), !user.disabled else {
            throw OAuthError("access_denied", "the account is disabled")
        }
        let credential = try await request.approvedCredentialID.asyncMap { try await store.credential(id: $0) } ?? nil
        let acr = Self.acr(credential)
        let asked = (request.acrValues ?? "").split(separator: " ").map(String.init) + (client.requiredACR.map { [$0] } ?? [])
        if let required = AuthorizationRequest.strictestClass(asked), !Self.satisfies(acr, required: required) {
            throw OAuthError("access_denied", "the approval was not made with a passkey of class \(required); approve on the page after confirming with one")
        }
        try await checkPolicy(client, userHandle: user.handle, acr: acr)
        var (_, session) = sessions.newSession(
            userHandle: user.handle, credentialID: credential?.id, via: credential == nil ? "ciba:" + (request.deviceID ?? "") : nil, userVerified: true)
        session.verifiedAt = credential == nil ? nil : at
        // A phone's approval: its key (synced with the phone's backups or not, the server cannot
        // tell), its owner's presence, and the binding message read on it.
        let amr = credential.map { Self.amr(session, credential: $0) } ?? ["swk", "user", "mfa"]
        let grant = GrantRecord(
            id: Base64URL.encode(SecureRandom.bytes(16)), clientID: client.id, userHandle: user.handle, sessionHash: session.tokenHash,
            offline: request.scopes.contains("offline_access"), scopes: request.scopes, nonce: nil, authTime: at, amr: amr, acr: acr,
            credentialID: credential?.id, codeHash: Digest.sha256.hash(SecureRandom.bytes(32)), codeChallenge: "", redirectURI: "",
            codeExpiresAt: at.addingTimeInterval(Self.codeTTL), createdAt: at, expiresAt: at.addingTimeInterval(Self.codeTTL))
        guard try await store.redeemBackchannel(
            idHash: hash, session: session, grant: grant, event: context.event(user.handle, "sign_in", at: at, ["method": "ciba", "client": client.id]))
        else { throw OAuthError.invalidGrant("the tokens of this auth_req_id were issued already") }
        let refresh = try await spendStart(grant, client: client, grantType: "ciba", reuse: "oauth_code_reuse", jkt: jkt, at: at)
        return try await tokenResponse(grant, client: client, scopes: grant.scopes, refreshToken: refresh, at: at, includeNonce: false, jkt: jkt)
    }

    // MARK: Ping

    /// A ping client's notification once its request was answered: `{"auth_req_id"}` with its
    /// `client_notification_token`, retried in the background with the back-channel logout's
    /// delays; a client that never answers holds nothing up, and is logged after the last try.
    func notifyBackchannel(pushID: String) async {
        guard let delivery = backchannelNotifications,
              let request = try? await store.backchannelRequest(pushID: pushID), let token = request.notificationToken,
              let client = try? await store.client(id: request.clientID), client.cibaMode == "ping", let endpoint = client.notificationEndpoint
        else { return }
        let id = authReqID(pushID: pushID)
        guard let lastError = await retrying("CIBA ping", client: client.id, { try await delivery.notify(authReqID: id, token: token, to: endpoint) })
        else { return }
        context.logger.warning("CIBA ping failed", metadata: ["client": "\(client.id)", "error": "\(lastError)"])
        try? await store.insertEvent(context.event(request.userHandle, "ciba_notification_failed", at: now(), ["client": client.id]))
    }

    // MARK: The page

    /// `GET /me/approvals`: the signed-in user's pending requests.
    public func approvals(session: SignedInUser?) async throws -> ApprovalsAnswer {
        guard let session else { throw APIError.unauthorized }
        var approvals: [ApprovalsAnswer.Approval] = []
        for request in try await store.pendingBackchannel(userHandle: session.user.handle, now: now()) {
            let client = try await store.client(id: request.clientID)
            approvals.append(ApprovalsAnswer.Approval(
                id: request.pushID, clientName: client.map { $0.name ?? $0.id } ?? request.clientID, bindingMessage: request.bindingMessage,
                ip: request.ip, expiresAt: PasskeySignIn.timestamp(request.expiresAt)))
        }
        return ApprovalsAnswer(approvals: approvals)
    }

    /// `POST /me/approvals/{id}`: `approve` (after a step-up: the passkey that stands for the
    /// session is the approval's, its class the tokens' `acr`) or `deny`, of a pending request
    /// of this user; `not_found` for any other id.
    public func decideApproval(id: String, decision: String, session: SignedInUser?) async throws {
        guard let session, let record = session.session else { throw APIError.unauthorized }
        guard decision == "approve" || decision == "deny" else { throw APIError.invalidRequest("decision must be approve or deny.") }
        let approve = decision == "approve"
        if approve { try await sessions.requireRecentAuthentication(session) }
        let at = now()
        guard id.utf8.count <= 64, try await store.answerBackchannel(
            pushID: id, userHandle: session.user.handle, approve: approve, credentialID: approve ? record.credentialID : nil, now: at,
            event: context.event(session.user.handle, approve ? "ciba_approved" : "ciba_denied", at: at, ["request": id, "by": "page"]))
        else { throw APIError.notFound }
        Task { await self.notifyBackchannel(pushID: id) }
    }
}
