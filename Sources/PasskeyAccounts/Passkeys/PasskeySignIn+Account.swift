internal import PasskeyJSON
public import Foundation
public import PasskeyCore
public import PasskeyStorage
internal import PasskeyCrypto
internal import Synchronization
public import Logging
public import PasskeyTelemetry

/// The signed-in account: its sessions, its passkeys and its audit trail.
extension PasskeySignIn {
    // MARK: Audit events

    /// An event of this account, with the client the current request came from.
    func event(_ userHandle: [UInt8], _ type: String, at: Date, _ details: [String: String] = [:]) -> AuditEvent {
        let client = RequestClient.current
        return AuditEvent(userHandle: userHandle, type: type, at: at, ip: client?.address, userAgent: client?.userAgent, details: details)
    }

    /// `GET /me/events`: the signed-in account's own events, newest first, `limit` (1–100,
    /// default 20) at a time, before the cursor of the previous page.
    public func events(_ session: SignedInUser, limit rawLimit: String?, before rawBefore: String?) async throws -> EventsResponse {
        var limit = 20
        if let rawLimit {
            guard let value = Int(rawLimit), (1...100).contains(value) else { throw APIError.invalidRequest("limit must be 1 to 100") }
            limit = value
        }
        var before: Int64?
        if let rawBefore {
            guard let value = Int64(rawBefore), value > 0 else { throw APIError.invalidRequest("before must be a cursor from next_before") }
            before = value
        }
        // One more than asked tells whether there is a next page.
        let found = try await store.events(userHandle: session.user.handle, before: before, limit: limit + 1)
        let page = Array(found.prefix(limit))
        return EventsResponse(
            events: page.map {
                .init(id: String($0.id), type: $0.type, at: Self.timestamp($0.at), ip: $0.ip, userAgent: $0.userAgent, details: $0.details)
            },
            nextBefore: found.count > limit ? page.last.map { String($0.id) } : nil)
    }

    // MARK: Sessions

    /// A new session: 32 random bytes for the client; only their SHA-256 is stored.
    func newSession(
        userHandle: [UInt8], credentialID: [UInt8]?, via: String? = nil, userVerified: Bool? = nil
    ) -> (token: String, record: SessionRecord) {
        let token = SecureRandom.bytes(32)
        let created = now()
        let client = RequestClient.current
        let record = SessionRecord(
            tokenHash: Digest.sha256.hash(token), userHandle: userHandle, createdAt: created,
            expiresAt: created.addingTimeInterval(configuration.sessionTTL), credentialID: credentialID, via: via,
            userVerified: userVerified, ip: client?.address, userAgent: client?.userAgent, lastSeenAt: created)
        return (Base64URL.encode(token), record)
    }

    /// The signed-in user for a session token, or nil when the token is unknown or expired.
    public func signedInUser(token: String?) async throws -> SignedInUser? {
        guard let token, let bytes = Base64URL.decodeStrict(token), bytes.count == 32 else { return nil }
        return try await signedInUser(tokenHash: Digest.sha256.hash(bytes))
    }

    /// The live session with this token hash and its account, unless disabled (the session
    /// token's and the forward token's lookup).
    func signedInUser(tokenHash hash: [UInt8]) async throws -> SignedInUser? {
        let at = now()
        guard let (session, user) = try await store.signedIn(tokenHash: hash, now: at), !user.disabled else { return nil }
        noteSeen(session, at: at)
        return SignedInUser(user: user, tokenHash: hash, session: session)
    }

    /// `last_seen_at` to the minute without a write per request (docs/contracts/accounts.md): a session whose
    /// stored time is a minute old or more is written once, in the background, whatever number
    /// of its requests arrive meanwhile.
    func noteSeen(_ session: SessionRecord, at: Date) {
        guard at.timeIntervalSince(session.lastSeenAt ?? session.createdAt) >= 60,
              sessionsBeingTouched.withLock({ $0.insert(session.tokenHash).inserted })
        else { return }
        Task {
            defer { _ = sessionsBeingTouched.withLock { $0.remove(session.tokenHash) } }
            do { try await store.touchSession(tokenHash: session.tokenHash, at: at) } catch {
                logger.warning("could not note a session's last use", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Ends this session, or with `everywhere` every session of the account.
    public func logout(_ session: SignedInUser?, everywhere: Bool = false) async throws {
        guard let session else { return }
        if everywhere {
            _ = try await AccountSessionEnding(passkeys: self).ending(userHandle: session.user.handle) {
                try await store.deleteSessions(
                    userHandle: session.user.handle, event: event(session.user.handle, "session_ended", at: now(), ["everywhere": "true"]))
            }
        } else {
            try await store.deleteSession(
                tokenHash: session.tokenHash, event: event(session.user.handle, "session_ended", at: now(), ["everywhere": "false"]))
            sessionEnds.publish(EndedSessions(userHandle: session.user.handle, tokenHashes: [session.tokenHash]))
        }
    }

    public func me(_ session: SignedInUser) async throws -> MeResponse {
        let credentials = try await store.credentials(userHandle: session.user.handle)
        var me = MeResponse(
            userName: session.user.name, displayName: session.user.displayName,
            userId: Base64URL.encode(session.user.handle), rpId: rp.id,
            credentials: credentials.map { c in
                MeResponse.Credential(
                    credentialId: Base64URL.encode(c.id), name: c.name, createdAt: Self.timestamp(c.createdAt),
                    lastUsedAt: c.lastUsedAt.map(Self.timestamp), signCount: c.signCount,
                    backupEligible: c.backupEligible, backupState: c.backupState, transports: c.transports,
                    aaguid: UUIDString.format(c.aaguid), possiblyCloned: c.possiblyCloned,
                    attestationFormat: c.attestationFormat, attestationType: c.attestationType,
                    attestationTrusted: c.attestationTrusted, authenticatorName: c.authenticatorName,
                    discoverable: c.discoverable, prfEnabled: c.prfEnabled)
            })
        me.groups = try await store.groups(userHandle: session.user.handle).map(\.name)
        if configuration.recoveryCodes { me.recoveryCodesLeft = try await store.recoveryCodeCount(userHandle: session.user.handle) }
        me.recovery = session.isRecovery
        if !session.isRecovery { me.waitingRecoveries = try await waitingRecoveries(session.user.handle) }
        return me
    }

    /// `PATCH /me`: the signed-in user's display name, checked as registration checks it.
    public func updateDisplayName(_ session: SignedInUser, displayName rawDisplayName: String?) async throws {
        guard let rawDisplayName else { throw APIError.invalidRequest("display_name is required.") }
        let displayName = try UserName.displayName(rawDisplayName, default: try UserName(session.user.name))
        let changed = event(session.user.handle, "display_name_changed", at: now(), ["display_name": displayName])
        guard try await store.updateDisplayName(userHandle: session.user.handle, displayName: displayName, event: changed) else {
            throw APIError.unauthorized
        }
    }

    /// Renames one of the signed-in user's passkeys.
    public func renameCredential(_ session: SignedInUser, id: String, name rawName: String?) async throws {
        guard let id = Base64URL.decode(id) else { throw APIError.invalidRequest("The credential id is not base64url.") }
        guard let rawName else { throw APIError.invalidRequest("name is required.") }
        let label = rawName.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard !label.isEmpty else { throw APIError.invalidRequest("name must not be empty.") }
        try UserName.checkLabel(label, field: "name")
        let renamed = event(session.user.handle, "credential_renamed", at: now(), ["credential": Base64URL.encode(id), "name": label])
        guard try await store.renameCredential(id: id, userHandle: session.user.handle, name: label, event: renamed) else {
            throw APIError.notFound
        }
    }

    /// Deletes one of the signed-in user's passkeys, and the sessions it opened.
    public func deleteCredential(_ session: SignedInUser, id: String) async throws {
        try await requireRecentAuthentication(session)
        guard let id = Base64URL.decode(id) else { throw APIError.invalidRequest("The credential id is not base64url.") }
        let deleted = event(session.user.handle, "credential_deleted", at: now(), ["credential": Base64URL.encode(id)])
        let ended = try await store.sessions(userHandle: session.user.handle, now: now()).filter { $0.credentialID == id }.map(\.tokenHash)
        guard try await store.deleteCredential(id: id, userHandle: session.user.handle, event: deleted) else { throw APIError.notFound }
        sessionEnds.publish(EndedSessions(userHandle: session.user.handle, tokenHashes: ended))
    }
}
