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
        let changed = context.event(session.user.handle, "display_name_changed", at: now(), ["display_name": displayName])
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
        let renamed = context.event(session.user.handle, "credential_renamed", at: now(), ["credential": Base64URL.encode(id), "name": label])
        guard try await store.renameCredential(id: id, userHandle: session.user.handle, name: label, event: renamed) else {
            throw APIError.notFound
        }
    }

    /// Deletes one of the signed-in user's passkeys, and the sessions it opened.
    public func deleteCredential(_ session: SignedInUser, id: String) async throws {
        try await sessions.requireRecentAuthentication(session)
        guard let id = Base64URL.decode(id) else { throw APIError.invalidRequest("The credential id is not base64url.") }
        let deleted = context.event(session.user.handle, "credential_deleted", at: now(), ["credential": Base64URL.encode(id)])
        let ended = try await store.sessions(userHandle: session.user.handle, now: now()).filter { $0.credentialID == id }.map(\.tokenHash)
        guard try await store.deleteCredential(id: id, userHandle: session.user.handle, event: deleted) else { throw APIError.notFound }
        sessions.sessionEnds.publish(EndedSessions(userHandle: session.user.handle, tokenHashes: ended))
    }
}
