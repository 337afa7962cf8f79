public import Foundation
internal import PasskeyCrypto
public import PasskeyJSON
public import PasskeyStorage

/// What an operator does to one account (docs/contracts/accounts.md, "Administration"): disable it (it then
/// signs in by no method, and its sessions and tokens end), enable it again, end its sessions,
/// and look at it. Every change is an event on the account naming who made it.
public struct AccountAdministration: Sendable {
    public typealias Failure = GroupMembership.Failure

    let store: any AccountStore & GroupStore & SessionStore & OpenIDStore & AdminStore

    public init(store: any AccountStore & GroupStore & SessionStore & OpenIDStore & AdminStore) {
        self.store = store
    }

    /// Disables the account; false when it was disabled already. Its sessions and OpenID
    /// grants end in the same write.
    public func disable(userName: String, by actor: String, now: Date) async throws -> Bool {
        let user = try await resolve(userName)
        return try await queueingLogouts(user.handle, now: now) {
            try await store.setUserDisabled(
                handle: user.handle, disabled: true, event: Self.event(user, "account_disabled", now, ["by": actor]))
        }
    }

    /// Enables a disabled account; false when it was not disabled.
    public func enable(userName: String, by actor: String, now: Date) async throws -> Bool {
        let user = try await resolve(userName)
        return try await store.setUserDisabled(
            handle: user.handle, disabled: false, event: Self.event(user, "account_enabled", now, ["by": actor]))
    }

    /// Ends every session of the account and revokes its OpenID grants; how many sessions ended.
    public func revokeSessions(userName: String, by actor: String, now: Date) async throws -> Int {
        let user = try await resolve(userName)
        let ended = try await queueingLogouts(user.handle, now: now) {
            try await store.revokeAccess(
                userHandle: user.handle, event: Self.event(user, "session_ended", now, ["everywhere": "true", "by": actor]))
        }
        return ended.count
    }

    /// Runs `write`, which revokes every grant of the account, and queues a back-channel logout
    /// for each client and session that held tokens of a grant standing before it: this process
    /// sends none, a serving instance sends them (`OpenIDProvider.sendQueuedLogouts`).
    func queueingLogouts<Result>(_ userHandle: [UInt8], now: Date, _ write: () async throws -> Result) async throws -> Result {
        let standing = try await store.grants(userHandle: userHandle).filter { !$0.revoked }
        let result = try await write()
        try await store.queueLogoutNotices(LogoutNotice.notices(standing, userHandle: userHandle, at: now))
        return result
    }

    /// The account as an operator sees it: name, `sub`, whether disabled, passkeys, open
    /// sessions, groups.
    public func show(userName: String, now: Date) async throws -> JSONValue {
        let user = try await resolve(userName)
        let passkeys = try await store.credentials(userHandle: user.handle)
        let sessions = try await store.sessions(userHandle: user.handle, now: now)
        let groups = try await store.groups(userHandle: user.handle).map(\.name)
        var object = AdminConsole.summaryMembers(user)
        object.merge([
            "passkeys": .array(passkeys.map { credential in
                .object([
                    "id": .string(Base64URL.encode(credential.id)), "name": .string(credential.name),
                    "created_at": .string(PasskeySignIn.timestamp(credential.createdAt)),
                    "last_used_at": credential.lastUsedAt.map { .string(PasskeySignIn.timestamp($0)) } ?? .null,
                ])
            }),
            "sessions": .integer(Int64(sessions.count)),
            "groups": .array(groups.map(JSONValue.string)),
        ]) { _, added in added }
        return .object(object)
    }

    /// Accounts whose name starts with `query` (compared as names are, without case), members of
    /// `group` when given, in the order of their names: one JSON object each.
    public func list(query: String?, group: String?, limit: Int = 1000) async throws -> [JSONValue] {
        let queryKey: String?
        if let query, !query.isEmpty {
            do { queryKey = try UserName(query).key } catch { throw Failure(description: "the query: \(error.message)") }
        } else {
            queryKey = nil
        }
        var groupKey: String?
        if let group {
            do { groupKey = try UserName(group).key } catch { throw Failure(description: "the group name: \(error.message)") }
        }
        return try await store.users(nameKeyPrefix: queryKey, groupKey: groupKey, afterNameKey: nil, limit: limit).map(AdminConsole.summary)
    }

    /// Deletes the account and everything of it, as `DELETE /me` does (the events stay, without
    /// names). Answers the Apple refresh token the caller should revoke at Apple, if any.
    public func delete(userName: String, by actor: String, now: Date) async throws -> DeletedAccount {
        let user = try await resolve(userName)
        guard let deleted = try await store.deleteAccount(
            handle: user.handle, event: Self.event(user, "account_deleted", now, ["by": actor, "sub": Base64URL.encode(user.handle)]))
        else { throw Failure(description: "no account is named \(user.name)") }
        // Its grants were read in the deleting write: their clients are told by a serving instance.
        try await store.queueLogoutNotices(LogoutNotice.notices(deleted.grants.filter { !$0.revoked }, userHandle: user.handle, at: now))
        return deleted
    }

    /// Makes an invitation (for a new name: it creates the account when used) or a reset link
    /// (for an existing account: it registers one more passkey and ends the other sessions),
    /// valid for `ttl`; answers the link `<origin>/?invite=<token>`. The token (256 random
    /// bits) is shown once; only its hash is kept.
    public func invite(
        userName: String, ttl: TimeInterval, origin: String, groups: [String] = [], by actor: String, now: Date
    ) async throws -> String {
        let name: UserName
        do { name = try UserName(userName) } catch { throw Failure(description: "the user name: \(error.message)") }
        guard ttl >= 60, ttl <= 30 * 86400 else { throw Failure(description: "--ttl must be between 1 minute and 30 days") }
        var joining: [InvitationGroup] = []
        for group in groups {
            let groupName: UserName
            do { groupName = try UserName.group(group, field: "the group name \(group)") } catch { throw Failure(description: error.message) }
            if !joining.contains(where: { $0.nameKey == groupName.key }) { joining.append(InvitationGroup(name: groupName.value, nameKey: groupName.key)) }
        }
        let existing = try await store.user(nameKey: name.key)
        if existing != nil, !joining.isEmpty {
            throw Failure(description: "\(name.value) has an account already: a reset link takes no --group (use users add-to-group)")
        }
        let (token, _) = try await Self.keepLink(
            store: store, for: existing, name: name.value, nameKey: name.key, groups: joining, ttl: ttl, by: actor, now: now,
            event: existing.map { Self.event($0, "reset_link_created", now, ["by": actor]) })
        return origin + "/?invite=" + token
    }

    /// How long the first admin's setup link lives.
    public static let setupLinkLifetime: TimeInterval = 3600

    /// While `adminGroup` has no member: a new one-time setup link's token (`/setup?token=`), an
    /// invitation whose registrant names the account and joins `adminGroup`; valid an hour, one
    /// use, only its hash kept (the server logs the link; the audit trail records its use). Nil once the group has a member. Each start makes a new one;
    /// every one of them dies when the group gets a member (the registration checks).
    public func firstAdminLink(adminGroup: String, now: Date) async throws -> String? {
        let group: UserName
        do { group = try UserName.group(adminGroup, field: "--admin-group") } catch { throw Failure(description: error.message) }
        guard try await store.users(nameKeyPrefix: nil, groupKey: group.key, afterNameKey: nil, limit: 1).isEmpty else { return nil }
        // No audit event: a server restarted until someone sets it up would write one each time;
        // the registration through the link is recorded as any other.
        let (token, _) = try await Self.keepLink(
            store: store, for: nil, name: InvitationRecord.chosenByRegistrant, nameKey: InvitationRecord.chosenByRegistrant,
            groups: [InvitationGroup(name: group.value, nameKey: group.key)], ttl: Self.setupLinkLifetime, by: "first run", now: now,
            event: nil)
        return token
    }

    /// Makes and keeps a one-time link: a reset of `existing`, or an invitation to the new
    /// `name` that joins `groups` when used. The token (256 random bits, base64url) is shown
    /// once; only its hash is kept. Shared by the command line and the admin API.
    static func keepLink(
        store: any AccountStore & GroupStore & SessionStore & OpenIDStore & AdminStore, for existing: UserRecord?, name: String, nameKey: String, groups: [InvitationGroup], displayName: String? = nil,
        ttl: TimeInterval, by actor: String, now: Date, event: AuditEvent?
    ) async throws -> (token: String, record: InvitationRecord) {
        let token = SecureRandom.bytes(32)
        let record = InvitationRecord(
            tokenHash: PasskeySignIn.invitationHash(token), userName: existing?.name ?? name, nameKey: existing?.nameKey ?? nameKey,
            userHandle: existing?.handle, createdBy: actor, createdAt: now, expiresAt: now.addingTimeInterval(ttl), groups: groups,
            displayName: existing == nil ? displayName : nil)
        try await store.insertInvitation(record, event: event)
        return (Base64URL.encode(token), record)
    }

    /// `admin-tokens create --name NAME`: a new admin token for `/admin/api/`, shown once.
    public func createAdminToken(name: String, now: Date) async throws -> String {
        guard !name.isEmpty, name.count <= 64, name.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control }) else {
            throw Failure(description: "--name must be 1 to 64 characters without control characters")
        }
        let (token, record) = AdminConsole.newToken(name: name, now: now)
        let event = AuditEvent(userHandle: [], type: "admin_token_created", at: now, ip: nil, userAgent: nil, details: ["name": name, "by": "command line"])
        guard try await store.insertAdminToken(record, event: event) else { throw Failure(description: "an admin token is named \(name) already") }
        return token
    }

    /// `admin-tokens revoke NAME`; false when there is none of that name.
    public func revokeAdminToken(name: String, now: Date) async throws -> Bool {
        let event = AuditEvent(userHandle: [], type: "admin_token_revoked", at: now, ip: nil, userAgent: nil, details: ["name": name, "by": "command line"])
        return try await store.deleteAdminToken(name: name, event: event)
    }

    /// `90s`, `10m`, `24h`, `7d`: a duration as the command line takes it; nil when it is not one.
    public static func duration(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let amount = Int(text.dropLast()), amount > 0, amount <= 10_000_000 else { return nil }
        switch unit {
        case "s": return TimeInterval(amount)
        case "m": return TimeInterval(amount) * 60
        case "h": return TimeInterval(amount) * 3600
        case "d": return TimeInterval(amount) * 86400
        default: return nil
        }
    }

    func resolve(_ userName: String) async throws -> UserRecord {
        let name: UserName
        do { name = try UserName(userName) } catch { throw Failure(description: "the user name: \(error.message)") }
        guard let user = try await store.user(nameKey: name.key) else { throw Failure(description: "no account is named \(name.value)") }
        return user
    }

    static func event(_ user: UserRecord, _ type: String, _ at: Date, _ details: [String: String]) -> AuditEvent {
        AuditEvent(userHandle: user.handle, type: type, at: at, ip: nil, userAgent: nil, details: details)
    }
}
