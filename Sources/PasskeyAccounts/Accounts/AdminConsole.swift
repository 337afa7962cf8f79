public import Foundation
public import PasskeyJSON
public import PasskeyStorage
internal import PasskeyCrypto
internal import PasskeyHTTPParsing
internal import Logging
internal import PasskeyCore

/// The admin API's operations (docs/contracts/accounts.md, "Administration"): who may call it (a member of the
/// admin group with a fresh step-up, or an admin token), and what it does to accounts, events and
/// OpenID clients. Every change is an audit event naming the admin. Answers are JSON values the
/// HTTP layer writes unchanged.
public struct AdminConsole: Sendable {
    let context: UseCaseContext
    let sessions: Sessions
    let store: any AdminStore & AccountStore & SessionStore & GroupStore & AuditStore & OpenIDStore & ClientRegistrationStore & AppleStore & PushStore
        & RecoveryStore
    let openID: OpenIDProvider
    let apple: AppleSignIn?
    let push: PushSignIn


    public init(
        context: UseCaseContext, sessions: Sessions,
        store: any AdminStore & AccountStore & SessionStore & GroupStore & AuditStore & OpenIDStore & ClientRegistrationStore & AppleStore & PushStore
            & RecoveryStore,
        openID: OpenIDProvider, apple: AppleSignIn?, push: PushSignIn
    ) {
        self.context = context
        self.sessions = sessions
        self.store = store
        self.openID = openID
        self.apple = apple
        self.push = push
    }

    /// Who is acting: `token:NAME` for an admin token, `user:NAME` for an admin's session.
    public struct Admin: Sendable, Equatable {
        public let name: String
    }

    // MARK: Who may call it

    /// An admin token's stored hash; nil for text that is not one (AdminTokenText).
    public static func tokenHash(_ token: String) -> [UInt8]? {
        AdminTokenText.secret(token).map(tokenHash(secret:))
    }

    static func tokenHash(secret: [UInt8]) -> [UInt8] { Digest.sha256.hash(Array("admin-token:".utf8) + secret) }

    /// A new admin token (256 random bits) and its record; the token is shown once.
    public static func newToken(name: String, now: Date) -> (token: String, record: AdminTokenRecord) {
        let bytes = SecureRandom.bytes(32)
        return (AdminTokenText.text(bytes), AdminTokenRecord(name: name, tokenHash: tokenHash(secret: bytes), createdAt: now))
    }

    /// Decides who is calling: `bearer` (the `Authorization: Bearer` value) when it is an admin
    /// token, else `session` (from the bearer or the cookie). An admin token is refused when the
    /// request also carries the session of a user who is not an admin; a session must be of a
    /// member of `--admin-group` with a step-up within `--reauth-window`.
    public func authorize(bearer: String?, session: SignedInUser?) async throws -> Admin {
        if let bearer, let hash = Self.tokenHash(bearer) {
            guard let token = try await store.adminToken(tokenHash: hash), constantTimeEquals(token.tokenHash, hash) else {
                throw APIError.unauthorized
            }
            if let session, try await !isAdmin(session.user) {
                throw APIError.forbidden("An admin token is not accepted beside the session of a user who is not an admin.")
            }
            return Admin(name: "token:" + token.name)
        }
        guard let session else { throw APIError.unauthorized }
        guard try await isAdmin(session.user) else { throw APIError.forbidden("Only members of the admin group may do this.") }
        try await sessions.requireRecentAuthentication(session)
        return Admin(name: "user:" + session.user.name)
    }

    func isAdmin(_ user: UserRecord) async throws -> Bool {
        guard let key = try? UserName(context.configuration.adminGroup).key else { return false }
        return try await store.groups(userHandle: user.handle).contains { $0.key == key }
    }

    // MARK: Accounts

    /// `GET users?query=&group=&limit=&cursor=`: accounts in the order of their name keys, those
    /// whose name starts with `query` (without case).
    public func users(query: String?, group: String?, limit rawLimit: String?, cursor rawCursor: String?) async throws -> JSONValue {
        let limit = try Self.limit(rawLimit)
        let queryKey = try query.flatMap { $0.isEmpty ? nil : try Self.name($0, "query").key }
        let groupKey = try group.flatMap { $0.isEmpty ? nil : try Self.name($0, "group").key }
        var after: String?
        if let rawCursor, !rawCursor.isEmpty {
            guard let cursor = PageCursor(text: rawCursor) else { throw APIError.invalidRequest("cursor is not one this server gave.") }
            after = cursor.position
        }
        let found = try await store.users(nameKeyPrefix: queryKey, groupKey: groupKey, afterNameKey: after, limit: limit + 1)
        let page = found.prefix(limit)
        let next = found.count > limit ? page.last.flatMap { PageCursor(position: $0.nameKey)?.text } : nil
        return .object(["users": .array(page.map(Self.summary)), "next_cursor": next.map(JSONValue.string) ?? .null])
    }

    /// `GET users/{sub}`: the account with its passkeys, sessions, groups, Apple ID, push
    /// devices, recovery codes left and recent events.
    public func user(sub: String) async throws -> JSONValue {
        let user = try await resolve(sub)
        var object = Self.summaryMembers(user)
        let credentials = try await store.credentials(userHandle: user.handle)
        object["credentials"] = .array(credentials.map { c in
            .object([
                "credential_id": .string(Base64URL.encode(c.id)), "name": .string(c.name), "created_at": .string(PasskeySignIn.timestamp(c.createdAt)),
                "last_used_at": c.lastUsedAt.map { .string(PasskeySignIn.timestamp($0)) } ?? .null,
                "authenticator_name": c.authenticatorName.map(JSONValue.string) ?? .null, "backup_state": .bool(c.backupState),
                "possibly_cloned": .bool(c.possiblyCloned),
            ])
        })
        object["sessions"] = try Self.encoded(try await sessions.sessionViews(userHandle: user.handle, current: nil))
        object["groups"] = .array(try await store.groups(userHandle: user.handle).map { .string($0.name) })
        object["apple"] = try Self.encoded(try await apple?.meApple(user.handle))
        object["push_devices"] = try Self.encoded(try await push.meDevices(user.handle))
        object["recovery_codes_left"] = .integer(Int64(try await store.recoveryCodeCount(userHandle: user.handle)))
        object["events"] = .array(try await store.events(userHandle: user.handle, before: nil, limit: 20).map(Self.event))
        return .object(object)
    }

    /// `PATCH users/{sub}` `{"display_name", "disabled", "groups"}`: each member given is set;
    /// everything is checked before anything is written. Answers the account as `user(sub:)`.
    public func update(sub: String, body: [String: JSONValue], by admin: Admin) async throws -> JSONValue {
        let user = try await resolve(sub)
        if let unknown = JSONFields.firstUnknownMember(of: body, known: ["display_name", "disabled", "groups"]) {
            throw APIError.invalidRequest("\(unknown.prefix(32)) is not a member this endpoint takes.")
        }
        var displayName: String?
        if let value = body["display_name"] {
            guard case .string(let text) = value else { throw APIError.invalidRequest("display_name must be a string.") }
            displayName = try UserName.displayName(text, default: try UserName(user.name))
        }
        var disabled: Bool?
        if let value = body["disabled"] {
            guard case .bool(let flag) = value else { throw APIError.invalidRequest("disabled must be true or false.") }
            disabled = flag
        }
        var groups: [UserName]?
        if let value = body["groups"] { groups = try Self.groupNames(value) }
        let at = context.now()
        if let displayName, displayName != user.displayName {
            _ = try await store.updateDisplayName(
                userHandle: user.handle, displayName: displayName,
                event: Self.adminEvent(user.handle, "display_name_changed", at, admin, ["display_name": displayName]))
        }
        if let groups {
            // The memberships with the keys they were stored under.
            let current = try await store.groups(userHandle: user.handle)
            let wanted = Set(groups.map(\.key))
            for membership in current where !wanted.contains(membership.key) {
                _ = try await store.removeFromGroup(
                    userHandle: user.handle, nameKey: membership.key,
                    event: Self.adminEvent(user.handle, "group_left", at, admin, ["group": membership.name]))
            }
            let currentKeys = Set(current.map(\.key))
            for group in groups where !currentKeys.contains(group.key) {
                _ = try await store.addToGroup(
                    userHandle: user.handle, name: group.value, nameKey: group.key,
                    event: Self.adminEvent(user.handle, "group_joined", at, admin, ["group": group.value]))
            }
        }
        if let disabled, disabled != user.disabled {
            // Disabling ends every session and revokes every grant in its write.
            _ = try await AccountSessionEnding(context: context, sessions: sessions, store: store).ending(userHandle: user.handle) {
                try await store.setUserDisabled(
                    handle: user.handle, disabled: disabled,
                    event: Self.adminEvent(user.handle, disabled ? "account_disabled" : "account_enabled", at, admin, [:]))
            }
        }
        return try await self.user(sub: sub)
    }

    /// `DELETE users/{sub}`: as `DELETE /me` (its Apple token revoked, its applications told).
    public func delete(sub: String, by admin: Admin) async throws {
        let user = try await resolve(sub)
        guard try await AccountDeletion(context: context, sessions: sessions, store: store, openID: openID, apple: apple).erase(
            user.handle, event: Self.adminEvent(user.handle, "account_deleted", context.now(), admin, ["sub": sub]))
            != nil
        else { throw APIError.notFound }
    }

    /// `DELETE users/{sub}/sessions`: ends every session and revokes its OpenID grants.
    public func endSessions(sub: String, by admin: Admin) async throws -> JSONValue {
        let user = try await resolve(sub)
        let ended = try await AccountSessionEnding(context: context, sessions: sessions, store: store).ending(userHandle: user.handle) {
            try await store.revokeAccess(
                userHandle: user.handle, event: Self.adminEvent(user.handle, "session_ended", context.now(), admin, ["everywhere": "true"]))
        }
        return .object(["status": .string("ok"), "ended": .integer(Int64(ended.count))])
    }

    /// `DELETE users/{sub}/credentials/{id}`: deletes one passkey (its sessions end with it).
    public func deleteCredential(sub: String, id: String, by admin: Admin) async throws {
        let user = try await resolve(sub)
        guard let credentialID = Base64URL.decodeStrict(id), !credentialID.isEmpty else { throw APIError.notFound }
        guard try await store.deleteCredential(
            id: credentialID, userHandle: user.handle,
            event: Self.adminEvent(user.handle, "credential_deleted", context.now(), admin, ["credential": id]))
        else { throw APIError.notFound }
    }

    /// `POST users/{sub}/invite`: a reset link for the account. `POST users`: an invitation to
    /// a new name, joining `groups` when used. Both answer `{"url", "expires_at"}`.
    public func invite(
        sub: String?, userName: String?, displayName: String? = nil, groups: JSONValue?, ttl: TimeInterval = 86400, by admin: Admin
    ) async throws -> JSONValue {
        let at = context.now()
        let link: (token: String, record: InvitationRecord)
        if let sub {
            let user = try await resolve(sub)
            guard groups == nil else { throw APIError.invalidRequest("A reset link takes no groups; PATCH the account instead.") }
            link = try await AccountAdministration.keepLink(
                store: store, for: user, name: user.name, nameKey: user.nameKey, groups: [], ttl: ttl, by: admin.name, now: at,
                event: Self.adminEvent(user.handle, "reset_link_created", at, admin, [:]))
        } else {
            guard let userName else { throw APIError.invalidRequest("user_name is required.") }
            let name = try UserName(userName)
            // Checked as registration checks it; the new account's display name unless its registration gives one.
            let display = try displayName.map { try UserName.displayName($0, default: name) }
            let joining = try groups.map(Self.groupNames) ?? []
            guard try await store.user(nameKey: name.key) == nil else { throw APIError.userExists }
            link = try await AccountAdministration.keepLink(
                store: store, for: nil, name: name.value, nameKey: name.key, groups: joining.map { InvitationGroup(name: $0.value, nameKey: $0.key) },
                displayName: display, ttl: ttl,
                by: admin.name, now: at, event: nil)
        }
        let origin = context.rp.pageOrigin
        return .object([
            "url": .string(origin + "/?invite=" + link.token), "user_name": .string(link.record.userName),
            "reset": .bool(sub != nil), "expires_at": .string(PasskeySignIn.timestamp(link.record.expiresAt)),
        ])
    }

    // MARK: Events

    /// `GET events?user=&type=&since=&cursor=&limit=`: events oldest first; `type` filters the
    /// page read, so a page may hold fewer than `limit` while `next_cursor` goes on.
    public func events(user sub: String?, type: String?, since rawSince: String?, cursor rawCursor: String?, limit rawLimit: String?)
        async throws -> JSONValue
    {
        let limit = try Self.limit(rawLimit)
        let handle = try sub.flatMap { $0.isEmpty ? nil : try Self.handle($0) }
        var since: Date?
        if let rawSince, !rawSince.isEmpty {
            guard let date = ISO8601DateFormatter().date(from: rawSince) else {
                throw APIError.invalidRequest("since must be a time such as 2026-01-31T12:00:00Z.")
            }
            since = date
        }
        var after: Int64?
        if let rawCursor, !rawCursor.isEmpty {
            guard let cursor = PageCursor(text: rawCursor), let id = Int64(cursor.position), id >= 0 else {
                throw APIError.invalidRequest("cursor is not one this server gave.")
            }
            after = id
        }
        let read = try await store.events(userHandle: handle, since: since, after: after, limit: limit)
        let shown = read.filter { type == nil || type == "" || $0.type == type }
        let next = read.count == limit ? read.last.flatMap { PageCursor(position: String($0.id))?.text } : nil
        return .object(["events": .array(shown.map(Self.event)), "next_cursor": next.map(JSONValue.string) ?? .null])
    }

    /// `GET events/checkpoints`: the audit chain's signed checkpoints.
    public func checkpoints() async throws -> JSONValue {
        try await AuditTrail(store: store, signingKeys: openID.keys).list()
    }

    // MARK: OpenID clients

    /// `GET clients`.
    public func clients() async throws -> JSONValue {
        .object(["clients": .array(try await ClientRegistry(store: store).list().map { ClientRegistry.json($0, secret: nil) })])
    }

    /// `POST clients`: the members of `passkey-server clients add`, as JSON; answers the client
    /// with its secret (shown once) for a confidential one.
    public func addClient(_ body: [String: JSONValue], by admin: Admin) async throws -> JSONValue {
        let registration = try ClientRegistry.registration(json: body)
        do {
            let (client, secret) = try await ClientRegistry(store: store).add(registration, now: context.now(), by: admin.name)
            return ClientRegistry.json(client, secret: secret)
        } catch let failure as ClientRegistry.Failure {
            throw APIError.invalidRequest(failure.description)
        }
    }

    /// `PATCH clients/{id}`: introspection, token exchange, client credentials and audiences
    /// given or taken; the client as it now is.
    public func grantClient(_ id: String, _ body: [String: JSONValue], by admin: Admin) async throws -> JSONValue {
        let grants = try ClientRegistry.grants(json: body)
        let registry = ClientRegistry(store: store)
        guard try await store.client(id: id) != nil else { throw APIError.notFound }
        do {
            return ClientRegistry.json(try await registry.grant(id, grants, now: context.now(), by: admin.name), secret: nil)
        } catch let failure as ClientRegistry.Failure {
            throw APIError.invalidRequest(failure.description)
        }
    }

    /// `POST clients/{id}/approve`: an open registration stops waiting; the client as it now is.
    public func approveClient(_ id: String, by admin: Admin) async throws -> JSONValue {
        do {
            return ClientRegistry.json(try await RegistrationAdministration(store: store).approve(id, by: admin.name, now: context.now()), secret: nil)
        } catch is ClientRegistry.Failure {
            throw APIError.notFound
        }
    }

    /// `POST registration-tokens`: an initial access token for one registration (RFC 7591 §3),
    /// shown once; `expires_in` seconds (default a day, at most 30 days).
    public func makeRegistrationToken(_ body: [String: JSONValue], by admin: Admin) async throws -> JSONValue {
        if let unknown = JSONFields.firstUnknownMember(of: body, known: ["expires_in"]) {
            throw APIError.invalidRequest("\(unknown.prefix(32)) is not a member of a registration token request.")
        }
        var lifetime = RegistrationAdministration.defaultLifetime
        if let value = body["expires_in"] {
            guard case .integer(let seconds) = value, RegistrationAdministration.lifetimes.contains(Int(clamping: seconds)) else {
                throw APIError.invalidRequest("expires_in must be a whole number of seconds from \(RegistrationAdministration.lifetimes.lowerBound) to \(RegistrationAdministration.lifetimes.upperBound).")
            }
            lifetime = TimeInterval(seconds)
        }
        let made = try await RegistrationAdministration(store: store).makeInitialToken(by: admin.name, lifetime: lifetime, now: context.now())
        return .object(["token": .string(made.token), "expires_at": .string(ISO8601DateFormatter().string(from: made.expiresAt))])
    }

    /// `DELETE clients/{id}`.
    public func removeClient(_ id: String, by admin: Admin) async throws {
        guard try await store.deleteClient(id: id, event: Self.adminEvent([], "client_removed", context.now(), admin, ["client_id": id])) else {
            throw APIError.notFound
        }
    }

    /// `GET groups`: every group with its member count.
    public func groups() async throws -> JSONValue {
        .object(["groups": .array(try await store.groupSizes().map { .object(["name": .string($0.name), "members": .integer(Int64($0.members))]) })])
    }

    // MARK: Helpers

    func resolve(_ sub: String) async throws -> UserRecord {
        guard let user = try await store.user(handle: try Self.handle(sub)) else { throw APIError.notFound }
        return user
    }

    /// A `sub` is the base64url of the 32-byte user handle; anything else names no account.
    static func handle(_ sub: String) throws -> [UInt8] {
        guard let handle = Base64URL.decodeStrict(sub), handle.count == 32 else { throw APIError.notFound }
        return handle
    }

    static func limit(_ raw: String?) throws -> Int {
        guard let raw, !raw.isEmpty else { return 50 }
        guard let value = Int(raw), (1...500).contains(value) else { throw APIError.invalidRequest("limit must be 1 to 500.") }
        return value
    }

    static func name(_ text: String, _ what: String) throws -> UserName {
        do { return try UserName(text) } catch { throw APIError.invalidRequest("\(what): \(error.message)") }
    }

    /// A JSON array of group names, each checked as names are; repeats are dropped.
    static func groupNames(_ value: JSONValue) throws -> [UserName] {
        guard case .array(let items) = value, items.count <= 100 else { throw APIError.invalidRequest("groups must be an array of at most 100 names.") }
        var names: [UserName] = []
        for item in items {
            guard case .string(let text) = item else { throw APIError.invalidRequest("groups must hold strings.") }
            let name = try UserName.group(text, field: "a group name")
            if !names.contains(where: { $0.key == name.key }) { names.append(name) }
        }
        return names
    }

    /// An account as the lists show it (the admin API, `users list`), and the start of one
    /// account's whole picture.
    static func summary(_ user: UserRecord) -> JSONValue { .object(summaryMembers(user)) }

    static func summaryMembers(_ user: UserRecord) -> [String: JSONValue] {
        [
            "sub": .string(Base64URL.encode(user.handle)), "user_name": .string(user.name), "display_name": .string(user.displayName),
            "created_at": .string(PasskeySignIn.timestamp(user.createdAt)), "disabled": .bool(user.disabled),
        ]
    }

    static func event(_ e: AuditEvent) -> JSONValue {
        .object([
            "id": .integer(e.id), "sub": .string(Base64URL.encode(e.userHandle)), "type": .string(e.type),
            "at": .string(PasskeySignIn.timestamp(e.at)), "ip": e.ip.map(JSONValue.string) ?? .null,
            "user_agent": e.userAgent.map(JSONValue.string) ?? .null,
            "details": .object(e.details.mapValues(JSONValue.string)),
        ])
    }

    static func adminEvent(_ handle: [UInt8], _ type: String, _ at: Date, _ admin: Admin, _ details: [String: String]) -> AuditEvent {
        let client = RequestClient.current
        var details = details
        details["by"] = admin.name
        return AuditEvent(userHandle: handle, type: type, at: at, ip: client?.address, userAgent: client?.userAgent, details: details)
    }

    static func encoded(_ value: some Encodable) throws -> JSONValue {
        let data = try JSONEncoder().encode(value)
        return try JSONValue(parsing: Array(data))
    }
}
