public import PasskeyStorage
public import Foundation
internal import NIOCore
internal import PostgresNIO

/// What operators do to accounts (docs/contracts/accounts.md, "Administration").
extension PostgresPasskeyStore {
    public func setUserDisabled(handle: [UInt8], disabled: Bool, event: AuditEvent?) async throws -> Bool {
        let user = ByteBuffer(bytes: handle)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let changed = try await Self.count(
                db.query(
                    "UPDATE users SET disabled = \(disabled) WHERE handle = \(user) AND disabled = \(!disabled) RETURNING 1",
                    logger: Self.quiet)) == 1
            guard changed else { return false }
            if disabled { _ = try await Self.revokeAccess(db, userHandle: user) }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func revokeAccess(userHandle: [UInt8], event: AuditEvent?) async throws -> [[UInt8]] {
        let user = ByteBuffer(bytes: userHandle)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let ended = try await Self.revokeAccess(db, userHandle: user)
            try await Self.insert(db, eventRow)
            return ended
        }
    }

    static func revokeAccess(_ db: PostgresConnection, userHandle: ByteBuffer) async throws -> [[UInt8]] {
        let ended = try await all(
            db.query("DELETE FROM sessions WHERE user_handle = \(userHandle) RETURNING token_hash", logger: quiet)
        ) { row in
            var c = Cursor(row)
            return try c.bytes()
        }
        try await db.query("UPDATE oauth_grants SET revoked = true WHERE user_handle = \(userHandle) AND NOT revoked", logger: quiet)
        return ended
    }
}

extension PostgresPasskeyStore {
    public func deleteAccount(handle: [UInt8], event: AuditEvent?) async throws -> DeletedAccount? {
        let user = ByteBuffer(bytes: handle)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            guard try await Self.count(db.query("SELECT 1 FROM users WHERE handle = \(user) FOR UPDATE", logger: Self.quiet)) == 1 else {
                return nil
            }
            let credentials = try await Self.all(
                db.query("SELECT id FROM credentials WHERE user_handle = \(user) ORDER BY created_at, id", logger: Self.quiet)
            ) { row in
                var c = Cursor(row)
                return try c.bytes()
            }
            let appleToken = try await Self.first(
                db.query("SELECT refresh_token FROM apple_links WHERE user_handle = \(user)", logger: Self.quiet)
            ) { try $0[0].decode(String?.self) } ?? nil
            let grants = try await Self.all(
                db.query("SELECT \(unescaped: GrantRow.columns) FROM oauth_grants WHERE user_handle = \(user)", logger: Self.quiet),
                GrantRow.record)
            try await db.query("DELETE FROM ceremonies WHERE user_handle = \(user)", logger: Self.quiet)
            // Everything else of the account goes by its foreign keys' cascade.
            try await db.query("DELETE FROM users WHERE handle = \(user)", logger: Self.quiet)
            // The events stay, under the opaque handle, without the names they carried.
            try await db.query(
                """
                UPDATE events
                SET details = ((details::jsonb - 'name')
                    || jsonb_build_object('name_sha256', encode(sha256(convert_to(details::jsonb ->> 'name', 'UTF8')), 'hex')))::text
                WHERE user_handle = \(user) AND details::jsonb ? 'name'
                """, logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return DeletedAccount(credentialIDs: credentials, appleRefreshToken: appleToken, grants: grants)
        }
    }
}

extension PostgresPasskeyStore {
    public func users(nameKeyPrefix: String?, groupKey: String?, afterNameKey: String?, limit: Int) async throws -> [UserRecord] {
        let columns = UserRow.selectColumns.split(separator: ",").map { "u." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
        let limit = Int64(max(0, limit))
        let upper = nameKeyPrefix.map { $0 + "\u{10FFFF}" }
        return try await withConnection { db in
            // A range of users_by_name_key_c (byte order, whatever the database's collation), not
            // LIKE: a name's % and _ are letters here, not patterns, and a million accounts are
            // not scanned.
            try await Self.all(
                db.query(
                    """
                    SELECT \(unescaped: columns) FROM users AS u
                    WHERE (\(nameKeyPrefix)::text IS NULL
                           OR (u.name_key COLLATE "C" >= \(nameKeyPrefix)::text COLLATE "C" AND u.name_key COLLATE "C" < \(upper)::text COLLATE "C"))
                      AND (\(groupKey)::text IS NULL OR EXISTS (
                          SELECT 1 FROM group_members AS g WHERE g.user_handle = u.handle AND g.name_key = \(groupKey)::text))
                      AND (\(afterNameKey)::text IS NULL OR u.name_key COLLATE "C" > \(afterNameKey)::text COLLATE "C")
                    ORDER BY u.name_key COLLATE "C" LIMIT \(limit)
                    """, logger: Self.quiet), UserRow.record)
        }
    }
}

extension PostgresPasskeyStore {
    public func insertInvitation(_ invitation: InvitationRecord, event: AuditEvent?) async throws {
        let i = invitation
        let hash = ByteBuffer(bytes: i.tokenHash)
        let handle = i.userHandle.map { ByteBuffer(bytes: $0) }
        let created = try i.createdAt.storeMilliseconds()
        let expires = try i.expiresAt.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        try await transaction { db in
            try await db.query(
                """
                INSERT INTO invitations (
                    token_hash, user_name, name_key, user_handle, created_by, created_at, expires_at, group_names, group_keys, display_name)
                VALUES (\(hash), \(i.userName), \(i.nameKey), \(handle), \(i.createdBy), \(created), \(expires),
                        \(i.groups.map(\.name)), \(i.groups.map(\.nameKey)), \(i.displayName))
                """, logger: Self.quiet)
            try await Self.insert(db, eventRow)
        }
    }

    public func invitation(tokenHash: [UInt8], now: Date) async throws -> InvitationRecord? {
        let hash = ByteBuffer(bytes: tokenHash)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT token_hash, user_name, name_key, user_handle, created_by, created_at, expires_at, group_names, group_keys, display_name
                    FROM invitations
                    WHERE token_hash = \(hash) AND expires_at > \(now)
                    """, logger: Self.quiet)
            ) { row in
                var c = Cursor(row)
                return InvitationRecord(
                    tokenHash: try c.bytes(), userName: try c.next(), nameKey: try c.next(), userHandle: try c.optionalBytes(),
                    createdBy: try c.next(), createdAt: try c.date(), expiresAt: try c.date(),
                    groups: try Self.invitationGroups(names: c.next(), keys: c.next()), displayName: try c.next())
            }
        }
    }
}

extension PostgresPasskeyStore {
    static func invitationGroups(names: [String], keys: [String]) throws -> [InvitationGroup] {
        guard names.count == keys.count else { throw StoreError.database("invitations.group_names and group_keys differ in length") }
        return zip(names, keys).map { InvitationGroup(name: $0, nameKey: $1) }
    }

    /// Spends an invitation in the caller's transaction: the groups its account joins, or nil
    /// when it is gone or expired.
    static func spendInvitation(_ db: PostgresConnection, _ hash: ByteBuffer, now: Int64) async throws -> [InvitationGroup]? {
        try await first(
            db.query(
                "DELETE FROM invitations WHERE token_hash = \(hash) AND expires_at > \(now) RETURNING group_names, group_keys",
                logger: quiet)
        ) { row in
            var c = Cursor(row)
            return try invitationGroups(names: c.next(), keys: c.next())
        }
    }

    /// Adds the account to these groups in the caller's transaction (one it is in already is kept).
    static func addMemberships(_ db: PostgresConnection, userHandle: ByteBuffer, _ groups: [InvitationGroup]) async throws {
        for group in groups {
            try await db.query(
                """
                INSERT INTO group_members (user_handle, name_key, name) VALUES (\(userHandle), \(group.nameKey), \(group.name))
                ON CONFLICT DO NOTHING
                """, logger: quiet)
        }
    }

    public func replaceRecoveryCodes(userHandle: [UInt8], codeHashes: [[UInt8]], at: Date, event: AuditEvent?) async throws {
        let handle = ByteBuffer(bytes: userHandle)
        let created = try at.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        try await transaction { db in
            try await db.query("DELETE FROM recovery_codes WHERE user_handle = \(handle)", logger: Self.quiet)
            for hash in codeHashes {
                let code = ByteBuffer(bytes: hash)
                try await db.query(
                    "INSERT INTO recovery_codes (user_handle, code_hash, created_at) VALUES (\(handle), \(code), \(created))", logger: Self.quiet)
            }
            try await Self.insert(db, eventRow)
        }
    }

    public func recoveryCodeCount(userHandle: [UInt8]) async throws -> Int {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.count(db.query("SELECT 1 FROM recovery_codes WHERE user_handle = \(handle)", logger: Self.quiet))
        }
    }

    public func redeemRecoveryCode(userHandle: [UInt8], codeHash: [UInt8], session: SessionRecord, event: AuditEvent?) async throws -> Bool {
        let handle = ByteBuffer(bytes: userHandle)
        let code = ByteBuffer(bytes: codeHash)
        let sessionRow = try SessionRow(session)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            guard try await Self.spendRecoveryCode(db, userHandle: handle, codeHash: code) else { return false }
            try await Self.insert(db, sessionRow)
            try await Self.insert(db, eventRow)
            return true
        }
    }

    /// Spends one recovery code in the caller's transaction; false when the account has no such code.
    static func spendRecoveryCode(_ db: PostgresConnection, userHandle: ByteBuffer, codeHash: ByteBuffer) async throws -> Bool {
        try await count(
            db.query("DELETE FROM recovery_codes WHERE user_handle = \(userHandle) AND code_hash = \(codeHash) RETURNING 1", logger: quiet)) == 1
    }

    public func insertAdminToken(_ token: AdminTokenRecord, event: AuditEvent?) async throws -> Bool {
        let hash = ByteBuffer(bytes: token.tokenHash)
        let created = try token.createdAt.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let inserted = try await Self.count(
                db.query(
                    """
                    INSERT INTO admin_tokens (name, token_hash, created_at) VALUES (\(token.name), \(hash), \(created))
                    ON CONFLICT (name) DO NOTHING RETURNING 1
                    """, logger: Self.quiet))
            guard inserted == 1 else { return false }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func adminTokens() async throws -> [AdminTokenRecord] {
        try await withConnection { db in
            try await Self.all(db.query("SELECT name, token_hash, created_at FROM admin_tokens ORDER BY name", logger: Self.quiet), Self.adminToken)
        }
    }

    public func adminToken(tokenHash: [UInt8]) async throws -> AdminTokenRecord? {
        let hash = ByteBuffer(bytes: tokenHash)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT name, token_hash, created_at FROM admin_tokens WHERE token_hash = \(hash)", logger: Self.quiet), Self.adminToken)
        }
    }

    public func deleteAdminToken(name: String, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let deleted = try await Self.count(db.query("DELETE FROM admin_tokens WHERE name = \(name) RETURNING 1", logger: Self.quiet))
            guard deleted == 1 else { return false }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    static func adminToken(_ row: PostgresRandomAccessRow) throws -> AdminTokenRecord {
        var c = Cursor(row)
        return AdminTokenRecord(name: try c.next(), tokenHash: try c.bytes(), createdAt: try c.date())
    }
}

extension PostgresPasskeyStore {
    static func recoveryRequest(_ row: PostgresRandomAccessRow) throws -> RecoveryRequestRecord {
        var c = Cursor(row)
        let idHash = try c.bytes(), publicID: String = try c.next(), userHandle = try c.bytes()
        let createdAt = try c.date(), readyAt = try c.date()
        let ip: String? = try c.next(), userAgent: String? = try c.next(), stateText: String = try c.next()
        guard let state = RecoveryRequestRecord.State(rawValue: stateText) else { throw StoreError.database("recovery_requests.state is not known") }
        return RecoveryRequestRecord(
            idHash: idHash, publicID: publicID, userHandle: userHandle, createdAt: createdAt, readyAt: readyAt, ip: ip, userAgent: userAgent,
            state: state)
    }

    public func startRecovery(_ request: RecoveryRequestRecord, codeHash: [UInt8], event: AuditEvent?) async throws -> Bool {
        let r = request
        let idHash = ByteBuffer(bytes: r.idHash), handle = ByteBuffer(bytes: r.userHandle), code = ByteBuffer(bytes: codeHash)
        let created = try r.createdAt.storeMilliseconds(), ready = try r.readyAt.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            guard try await Self.spendRecoveryCode(db, userHandle: handle, codeHash: code) else { return false }
            try await db.query(
                """
                INSERT INTO recovery_requests (id_hash, public_id, user_handle, created_at, ready_at, ip, user_agent, state)
                VALUES (\(idHash), \(r.publicID), \(handle), \(created), \(ready), \(r.ip), \(r.userAgent), \(r.state.rawValue))
                """, logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func recoveryRequest(idHash: [UInt8]) async throws -> RecoveryRequestRecord? {
        let hash = ByteBuffer(bytes: idHash)
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT id_hash, public_id, user_handle, created_at, ready_at, ip, user_agent, state FROM recovery_requests
                    WHERE id_hash = \(hash)
                    """, logger: Self.quiet), Self.recoveryRequest)
        }
    }

    public func waitingRecoveries(userHandle: [UInt8]) async throws -> [RecoveryRequestRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT id_hash, public_id, user_handle, created_at, ready_at, ip, user_agent, state FROM recovery_requests
                    WHERE user_handle = \(handle) AND state = 'waiting' ORDER BY created_at
                    """, logger: Self.quiet), Self.recoveryRequest)
        }
    }

    public func cancelRecovery(publicID: String, userHandle: [UInt8], event: AuditEvent?) async throws -> Bool {
        let handle = ByteBuffer(bytes: userHandle)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let cancelled = try await Self.count(
                db.query(
                    """
                    UPDATE recovery_requests SET state = 'cancelled'
                    WHERE public_id = \(publicID) AND user_handle = \(handle) AND state = 'waiting' RETURNING 1
                    """, logger: Self.quiet))
            guard cancelled == 1 else { return false }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func claimRecovery(idHash: [UInt8], now: Date, session: SessionRecord, event: AuditEvent?) async throws -> Bool {
        let hash = ByteBuffer(bytes: idHash), handle = ByteBuffer(bytes: session.userHandle)
        let at = try now.storeMilliseconds()
        let sessionRow = try SessionRow(session)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let claimed = try await Self.count(
                db.query(
                    """
                    UPDATE recovery_requests SET state = 'claimed'
                    WHERE id_hash = \(hash) AND user_handle = \(handle) AND state = 'waiting' AND ready_at <= \(at) RETURNING 1
                    """, logger: Self.quiet))
            guard claimed == 1 else { return false }
            try await Self.insert(db, sessionRow)
            try await Self.insert(db, eventRow)
            return true
        }
    }
}
