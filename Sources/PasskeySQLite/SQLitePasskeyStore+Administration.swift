public import PasskeyStorage
public import Foundation

/// What operators do to accounts (accounts.md, "Administration").
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
            try db.execute("UPDATE events SET details = json_remove(details, '$.name') WHERE user_handle = ? AND json_valid(details)", user)
            try Self.insertEvent(db, eventArguments)
            return DeletedAccount(credentialIDs: credentials, appleRefreshToken: appleToken, grants: grants)
        }
    }
}

extension SQLitePasskeyStore {
    public func users(nameKeyContaining: String?, groupKey: String?, afterNameKey: String?, limit: Int) async throws -> [UserRecord] {
        // instr, not LIKE: a name's % and _ are letters here, not patterns.
        let arguments: [SQLiteValue] = [
            .optionalText(nameKeyContaining), .optionalText(nameKeyContaining), .optionalText(groupKey), .optionalText(groupKey),
            .optionalText(afterNameKey), .optionalText(afterNameKey), .int(max(0, limit)),
        ]
        let columns = UserRecord.selectColumns.split(separator: ",").map { "u." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
        return try database.read { db in
            try db.rows(
                """
                SELECT \(columns) FROM users AS u
                WHERE (? IS NULL OR instr(u.name_key, ?) > 0)
                  AND (? IS NULL OR EXISTS (SELECT 1 FROM group_members AS g WHERE g.user_handle = u.handle AND g.name_key = ?))
                  AND (? IS NULL OR u.name_key > ?)
                ORDER BY u.name_key LIMIT ?
                """, arguments, UserRecord.init(row:))
        }
    }
}

extension SQLitePasskeyStore {
    public func insertInvitation(_ invitation: InvitationRecord, event: AuditEvent?) async throws {
        let i = invitation
        let arguments: [SQLiteValue] = [
            .blob(i.tokenHash), .text(i.userName), .text(i.nameKey), .optionalBlob(i.userHandle), .text(i.createdBy), try .time(i.createdAt),
            try .time(i.expiresAt),
        ]
        let eventArguments = try event?.insertArguments()
        try await database.write { db in
            try db.execute(
                "INSERT INTO invitations (\(Self.invitationColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)", arguments)
            try Self.insertEvent(db, eventArguments)
        }
    }

    public func invitation(tokenHash: [UInt8], now: Date) async throws -> InvitationRecord? {
        let arguments: [SQLiteValue] = [.blob(tokenHash), try .time(now)]
        return try database.read { db in
            try db.row("SELECT \(Self.invitationColumns) FROM invitations WHERE token_hash = ? AND expires_at > ?", arguments) { row in
                InvitationRecord(
                    tokenHash: row.blob(0), userName: row.text(1), nameKey: row.text(2), userHandle: row.optionalBlob(3), createdBy: row.text(4),
                    createdAt: Date(storeMilliseconds: row.int64(5)), expiresAt: Date(storeMilliseconds: row.int64(6)))
            }
        }
    }

    static let invitationColumns = "token_hash, user_name, name_key, user_handle, created_by, created_at, expires_at"
}
