public import Foundation
internal import PasskeyCrypto
internal import PasskeyJSON
public import PasskeyStorage

/// The sessions the user can see and end (docs/contracts/accounts.md, "Sessions the user can see").
extension Sessions {
    /// A session's public name: derived from its token hash (so nothing new is stored, and the
    /// token cannot be recovered from it); the OpenID `sid` of the tokens it gave.
    static func sessionID(_ tokenHash: [UInt8]) -> String {
        Base64URL.encode(Array(Digest.sha256.hash(Array("sid".utf8) + tokenHash).prefix(16)))
    }

    /// How a session was opened: `passkey`, `apple`, `push` or `mfb`.
    static func method(_ session: SessionRecord) -> String {
        if session.credentialID != nil { return "passkey" }
        switch session.via {
        case "apple"?: return "apple"
        case let via? where via.hasPrefix("push:"): return "push"
        case let via? where via.hasPrefix("ciba:"): return "ciba"
        case let via?: return via
        case nil: return "passkey"
        }
    }

    /// The grants of the account that still stand: not revoked, their code spent, and either
    /// bound to a session that is still open or `offline_access` with a refresh token not yet
    /// expired.
    func standingGrants(userHandle: [UInt8], open: [SessionRecord]? = nil) async throws -> [GrantRecord] {
        let at = now()
        var sessions = open ?? []
        if open == nil { sessions = try await store.sessions(userHandle: userHandle, now: at) }
        let openHashes = Set(sessions.map(\.tokenHash))
        return try await store.grants(userHandle: userHandle).filter { grant in
            guard !grant.revoked, grant.codeSpent else { return false }
            if grant.offline { return (grant.refreshExpiresAt ?? grant.expiresAt) > at }
            return openHashes.contains(grant.sessionHash)
        }
    }

    /// `GET /me/sessions`: the account's open sessions, newest first; `current` is the one
    /// asking; `clients` the OpenID clients holding tokens from it.
    public func sessionList(_ signedIn: SignedInUser) async throws -> [SessionView] {
        try await sessionViews(userHandle: signedIn.user.handle, current: signedIn.tokenHash)
    }

    /// The account's open sessions as `GET /me/sessions` and the admin API list them.
    func sessionViews(userHandle: [UInt8], current: [UInt8]?) async throws -> [SessionView] {
        let sessions = try await store.sessions(userHandle: userHandle, now: now())
        let grants = try await standingGrants(userHandle: userHandle, open: sessions)
        return sessions.map { session in
            var clients: [String] = []
            for grant in grants where grant.sessionHash == session.tokenHash && !clients.contains(grant.clientID) {
                clients.append(grant.clientID)
            }
            return SessionView(
                id: Self.sessionID(session.tokenHash), createdAt: PasskeySignIn.timestamp(session.createdAt),
                lastSeenAt: PasskeySignIn.timestamp(session.lastSeenAt ?? session.createdAt), authTime: PasskeySignIn.timestamp(session.verifiedAt ?? session.createdAt),
                method: Self.method(session), credentialId: session.credentialID.map(Base64URL.encode), ip: session.ip,
                userAgent: session.userAgent, current: session.tokenHash == current, clients: clients)
        }
    }

    /// `DELETE /me/sessions/{id}`: ends one of the account's sessions (its tokens with it, and
    /// back-channel logouts); false when no open session of the account has that id.
    public func endSession(id: String, of signedIn: SignedInUser) async throws -> Bool {
        let at = now()
        guard let session = try await store.sessions(userHandle: signedIn.user.handle, now: at).first(where: { Self.sessionID($0.tokenHash) == id })
        else { return false }
        try await store.deleteSession(
            tokenHash: session.tokenHash,
            event: context.event(signedIn.user.handle, "session_ended", at: at, ["everywhere": "false", "by": "account", "session": id]))
        sessionEnds.publish(EndedSessions(userHandle: signedIn.user.handle, tokenHashes: [session.tokenHash]))
        return true
    }
}

/// One session as `GET /me/sessions` lists it.
public struct SessionView: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey {
        case id, createdAt = "created_at", lastSeenAt = "last_seen_at", authTime = "auth_time", method, credentialId = "credential_id", ip
        case userAgent = "user_agent", current, clients
    }

    public let id: String
    public let createdAt: String
    public let lastSeenAt: String
    public let authTime: String
    public let method: String
    public let credentialId: String?
    public let ip: String?
    public let userAgent: String?
    public let current: Bool
    public let clients: [String]
}
