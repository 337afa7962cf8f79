public import PasskeyStorage
public import Foundation

/// What operators do to accounts (docs/contracts/accounts.md, "Administration").
extension SQLitePasskeyStore {
    public func setUserDisabled(handle: [UInt8], disabled: Bool, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("UPDATE users SET disabled = ? WHERE handle = ? AND disabled = ?", [.bool(disabled), .blob(handle), .bool(!disabled)])
            guard try db.changes() == 1 else { return false }
            if disabled { _ = try Self.revokeAccess(db, userHandle: handle) }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func revokeAccess(userHandle: [UInt8], event: AuditEvent?) async throws -> [[UInt8]] {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            let ended = try Self.revokeAccess(db, userHandle: userHandle)
            try Self.insertEvent(db, eventArguments)
            return ended
        }
    }

    static func revokeAccess(_ db: SQLiteConnection, userHandle: [UInt8]) throws -> [[UInt8]] {
        let ended = try db.rows("SELECT token_hash FROM sessions WHERE user_handle = ?", [.blob(userHandle)]) { $0.blob(0) }
        try db.execute("DELETE FROM sessions WHERE user_handle = ?", [.blob(userHandle)])
        try db.execute("UPDATE oauth_grants SET revoked = 1 WHERE user_handle = ? AND revoked = 0", [.blob(userHandle)])
        return ended
    }
}

extension SQLitePasskeyStore {
    public func deleteAccount(handle: [UInt8], event: AuditEvent?) async throws -> DeletedAccount? {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            let user: [SQLiteValue] = [.blob(handle)]
            guard try db.row("SELECT 1 FROM users WHERE handle = ?", user, { _ in true }) != nil else { return nil }
            let credentials = try db.rows("SELECT id FROM credentials WHERE user_handle = ? ORDER BY created_at, id", user) { $0.blob(0) }
            let appleToken = try db.row("SELECT refresh_token FROM apple_links WHERE user_handle = ?", user) { $0.optionalText(0) } ?? nil
            let grants = try db.rows("SELECT \(Self.grantColumns) FROM oauth_grants WHERE user_handle = ?", user, Self.grantRecord)
            try db.execute("DELETE FROM ceremonies WHERE user_handle = ?", user)
            // Everything else of the account goes by its foreign keys' cascade.
            try db.execute("DELETE FROM users WHERE handle = ?", user)
            // The events stay, under the opaque handle, without the names they carried.
            // A name gives way to its SHA-256, which is what the audit chain hashed.
            let named = try db.rows(
                "SELECT id, details FROM events WHERE user_handle = ? AND json_valid(details) AND json_extract(details, '$.name') IS NOT NULL", user
            ) { row in (row.int64(0), row.text(1)) }
            for (id, text) in named {
                let details = AuditChain.scrubbed(try EventDetails.decode(text))
                try db.execute("UPDATE events SET details = ? WHERE id = ?", [.text(try EventDetails.encode(details)), .integer(id)])
            }
            try Self.insertEvent(db, eventArguments)
            return DeletedAccount(credentialIDs: credentials, appleRefreshToken: appleToken, grants: grants)
        }
    }
}

extension SQLitePasskeyStore {
    public func users(nameKeyPrefix: String?, groupKey: String?, afterNameKey: String?, limit: Int) async throws -> [UserRecord] {
        // A range of the name_key index, not LIKE: a name's % and _ are letters here, not
        // patterns, and a million accounts are not scanned. Only the conditions in use are
        // written: SQLite plans `? IS NULL OR …` as a scan.
        var conditions: [String] = []
        var arguments: [SQLiteValue] = []
        if let nameKeyPrefix {
            conditions += ["u.name_key >= ?", "u.name_key < ?"]
            arguments += [.text(nameKeyPrefix), .text(nameKeyPrefix + "\u{10FFFF}")]
        }
        if let afterNameKey {
            conditions.append("u.name_key > ?")
            arguments.append(.text(afterNameKey))
        }
        if let groupKey {
            conditions.append("EXISTS (SELECT 1 FROM group_members AS g WHERE g.user_handle = u.handle AND g.name_key = ?)")
            arguments.append(.text(groupKey))
        }
        arguments.append(.int(max(0, limit)))
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let columns = UserRecord.selectColumns.split(separator: ",").map { "u." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
        return try database.read { db in
            try db.rows("SELECT \(columns) FROM users AS u \(filter) ORDER BY u.name_key LIMIT ?", arguments, UserRecord.init(row:))
        }
    }
}

extension SQLitePasskeyStore {
    public func insertInvitation(_ invitation: InvitationRecord, event: AuditEvent?) async throws {
        let i = invitation
        let arguments: [SQLiteValue] = [
            .blob(i.tokenHash), .text(i.userName), .text(i.nameKey), .optionalBlob(i.userHandle), .text(i.createdBy), try .time(i.createdAt),
            try .time(i.expiresAt), try ListCoding.encode(strings: i.groups.map(\.name)), try ListCoding.encode(strings: i.groups.map(\.nameKey)),
            i.displayName.map(SQLiteValue.text) ?? .null,
        ]
        let eventArguments = try event?.insertArguments()
        try await database.write { db in
            try db.execute(
                "INSERT INTO invitations (\(Self.invitationColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments)
            try Self.insertEvent(db, eventArguments)
        }
    }

    public func invitation(tokenHash: [UInt8], now: Date) async throws -> InvitationRecord? {
        let arguments: [SQLiteValue] = [.blob(tokenHash), try .time(now)]
        return try database.read { db in
            try db.row("SELECT \(Self.invitationColumns) FROM invitations WHERE token_hash = ? AND expires_at > ?", arguments) { row in
                InvitationRecord(
                    tokenHash: row.blob(0), userName: row.text(1), nameKey: row.text(2), userHandle: row.optionalBlob(3), createdBy: row.text(4),
                    createdAt: Date(storeMilliseconds: row.int64(5)), expiresAt: Date(storeMilliseconds: row.int64(6)),
                    groups: try Self.invitationGroups(names: row.text(7), keys: row.text(8)), displayName: row.optionalText(9))
            }
        }
    }

    static let invitationColumns =
        "token_hash, user_name, name_key, user_handle, created_by, created_at, expires_at, group_names, group_keys, display_name"

    static func invitationGroups(names: String, keys: String) throws -> [InvitationGroup] {
        let names = try ListCoding.strings(names, column: "invitations.group_names")
        let keys = try ListCoding.strings(keys, column: "invitations.group_keys")
        guard names.count == keys.count else { throw StoreError.database("invitations.group_names and group_keys differ in length") }
        return zip(names, keys).map { InvitationGroup(name: $0, nameKey: $1) }
    }

    /// Spends an invitation in the caller's write: the groups its account joins, or nil when it
    /// is gone or expired.
    static func spendInvitation(_ db: SQLiteConnection, _ arguments: [SQLiteValue]) throws -> [InvitationGroup]? {
        try db.row(
            "DELETE FROM invitations WHERE token_hash = ? AND expires_at > ? RETURNING group_names, group_keys", arguments,
            { row in try invitationGroups(names: row.text(0), keys: row.text(1)) })
    }

    /// Adds the account to these groups in the caller's write (one it is in already is kept).
    static func addMemberships(_ db: SQLiteConnection, userHandle: [UInt8], _ groups: [InvitationGroup]) throws {
        for group in groups {
            try db.execute(
                "INSERT INTO group_members (user_handle, name_key, name) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [.blob(userHandle), .text(group.nameKey), .text(group.name)])
        }
    }
}

extension SQLitePasskeyStore {
    public func replaceRecoveryCodes(userHandle: [UInt8], codeHashes: [[UInt8]], at: Date, event: AuditEvent?) async throws {
        let created = try SQLiteValue.time(at)
        let eventArguments = try event?.insertArguments()
        try await database.write { db in
            try db.execute("DELETE FROM recovery_codes WHERE user_handle = ?", [.blob(userHandle)])
            for hash in codeHashes {
                try db.execute("INSERT INTO recovery_codes (user_handle, code_hash, created_at) VALUES (?, ?, ?)", [.blob(userHandle), .blob(hash), created])
            }
            try Self.insertEvent(db, eventArguments)
        }
    }

    public func recoveryCodeCount(userHandle: [UInt8]) async throws -> Int {
        try database.read { db in
            Int(try db.row("SELECT count(*) FROM recovery_codes WHERE user_handle = ?", [.blob(userHandle)]) { $0.int64(0) } ?? 0)
        }
    }

    public func redeemRecoveryCode(userHandle: [UInt8], codeHash: [UInt8], session: SessionRecord, event: AuditEvent?) async throws -> Bool {
        let sessionArguments = try session.arguments()
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            guard try Self.spendRecoveryCode(db, userHandle: userHandle, codeHash: codeHash) else { return false }
            try db.execute(SessionRecord.insert, sessionArguments)
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    /// Spends one recovery code in the caller's write; false when the account has no such code.
    static func spendRecoveryCode(_ db: SQLiteConnection, userHandle: [UInt8], codeHash: [UInt8]) throws -> Bool {
        try db.execute("DELETE FROM recovery_codes WHERE user_handle = ? AND code_hash = ?", [.blob(userHandle), .blob(codeHash)])
        return try db.changes() == 1
    }

    public func insertAdminToken(_ token: AdminTokenRecord, event: AuditEvent?) async throws -> Bool {
        let arguments: [SQLiteValue] = [.text(token.name), .blob(token.tokenHash), try .time(token.createdAt)]
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("INSERT INTO admin_tokens (name, token_hash, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", arguments)
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func adminTokens() async throws -> [AdminTokenRecord] {
        try database.read { db in
            try db.rows("SELECT name, token_hash, created_at FROM admin_tokens ORDER BY name", [], Self.adminToken(row:))
        }
    }

    public func adminToken(tokenHash: [UInt8]) async throws -> AdminTokenRecord? {
        try database.read { db in
            try db.row("SELECT name, token_hash, created_at FROM admin_tokens WHERE token_hash = ?", [.blob(tokenHash)], Self.adminToken(row:))
        }
    }

    public func deleteAdminToken(name: String, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("DELETE FROM admin_tokens WHERE name = ?", [.text(name)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    static func adminToken(row: SQLiteRow) throws -> AdminTokenRecord {
        AdminTokenRecord(name: row.text(0), tokenHash: row.blob(1), createdAt: Date(storeMilliseconds: row.int64(2)))
    }
}

extension SQLitePasskeyStore {
    static let recoveryColumns = "id_hash, public_id, user_handle, created_at, ready_at, ip, user_agent, state"

    static func recoveryRequest(row: SQLiteRow) throws -> RecoveryRequestRecord {
        guard let state = RecoveryRequestRecord.State(rawValue: row.text(7)) else { throw StoreError.database("recovery_requests.state is not known") }
        return RecoveryRequestRecord(
            idHash: row.blob(0), publicID: row.text(1), userHandle: row.blob(2), createdAt: Date(storeMilliseconds: row.int64(3)),
            readyAt: Date(storeMilliseconds: row.int64(4)), ip: row.optionalText(5), userAgent: row.optionalText(6), state: state)
    }

    public func startRecovery(_ request: RecoveryRequestRecord, codeHash: [UInt8], event: AuditEvent?) async throws -> Bool {
        let r = request
        let arguments: [SQLiteValue] = [
            .blob(r.idHash), .text(r.publicID), .blob(r.userHandle), try .time(r.createdAt), try .time(r.readyAt), .optionalText(r.ip),
            .optionalText(r.userAgent), .text(r.state.rawValue),
        ]
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            guard try Self.spendRecoveryCode(db, userHandle: r.userHandle, codeHash: codeHash) else { return false }
            try db.execute("INSERT INTO recovery_requests (\(Self.recoveryColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", arguments)
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func recoveryRequest(idHash: [UInt8]) async throws -> RecoveryRequestRecord? {
        try database.read { db in
            try db.row("SELECT \(Self.recoveryColumns) FROM recovery_requests WHERE id_hash = ?", [.blob(idHash)], Self.recoveryRequest(row:))
        }
    }

    public func waitingRecoveries(userHandle: [UInt8]) async throws -> [RecoveryRequestRecord] {
        try database.read { db in
            try db.rows(
                "SELECT \(Self.recoveryColumns) FROM recovery_requests WHERE user_handle = ? AND state = 'waiting' ORDER BY created_at",
                [.blob(userHandle)], Self.recoveryRequest(row:))
        }
    }

    public func cancelRecovery(publicID: String, userHandle: [UInt8], event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                "UPDATE recovery_requests SET state = 'cancelled' WHERE public_id = ? AND user_handle = ? AND state = 'waiting'",
                [.text(publicID), .blob(userHandle)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func claimRecovery(idHash: [UInt8], now: Date, session: SessionRecord, event: AuditEvent?) async throws -> Bool {
        let sessionArguments = try session.arguments()
        let eventArguments = try event?.insertArguments()
        let at = try SQLiteValue.time(now)
        return try await database.write { db in
            try db.execute(
                "UPDATE recovery_requests SET state = 'claimed' WHERE id_hash = ? AND user_handle = ? AND state = 'waiting' AND ready_at <= ?",
                [.blob(idHash), .blob(session.userHandle), at])
            guard try db.changes() == 1 else { return false }
            try db.execute(SessionRecord.insert, sessionArguments)
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }
}
