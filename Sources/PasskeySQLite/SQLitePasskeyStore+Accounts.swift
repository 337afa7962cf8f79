public import Foundation
public import PasskeyStorage

/// `AccountStore` on SQLite.
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

    public func rekeyNames(version: Int, _ key: @escaping @Sendable (String) -> String) async throws -> [String] {
        try await database.write { db in
            guard let (done, stored) = try db.row("SELECT version, collisions FROM name_key_rules WHERE id = 1", [], { ($0.int64(0), $0.text(1)) })
            else { throw StoreError.database("name_key_rules has no row") }
            if done >= Int64(version) { return try ListCoding.strings(stored, column: "name_key_rules.collisions") }
            let users = try db.rows("SELECT handle, name, name_key FROM users ORDER BY created_at, handle", []) { ($0.blob(0), $0.text(1), $0.text(2)) }
            let (moves, collisions) = NameKeyMove.plan(users.map { ($0.0, $0.1, $0.2) }, key)
            for move in moves {
                try db.execute("UPDATE users SET name_key = ? WHERE handle = ?", [.text(move.new), .blob(move.handle)])
            }
            let members = try db.rows("SELECT user_handle, name, name_key FROM group_members", []) { ($0.blob(0), $0.text(1), $0.text(2)) }
            for (handle, name, old) in members {
                let new = key(name)
                guard new != old else { continue }
                let exists = try db.row(
                    "SELECT 1 FROM group_members WHERE user_handle = ? AND name_key = ?", [.blob(handle), .text(new)]) { _ in true } ?? false
                if exists {
                    try db.execute("DELETE FROM group_members WHERE user_handle = ? AND name_key = ?", [.blob(handle), .text(old)])
                } else {
                    try db.execute(
                        "UPDATE group_members SET name_key = ? WHERE user_handle = ? AND name_key = ?", [.text(new), .blob(handle), .text(old)])
                }
            }
            let invitations = try db.rows("SELECT token_hash, user_name, group_names FROM invitations", []) { ($0.blob(0), $0.text(1), $0.text(2)) }
            for (hash, name, groups) in invitations {
                let keys = try ListCoding.strings(groups, column: "invitations.group_names").map(key)
                try db.execute(
                    "UPDATE invitations SET name_key = ?, group_keys = ? WHERE token_hash = ?",
                    [.text(key(name)), try ListCoding.encode(strings: keys), .blob(hash)])
            }
            try db.execute(
                "UPDATE name_key_rules SET version = ?, collisions = ? WHERE id = 1",
                [.integer(Int64(version)), try ListCoding.encode(strings: collisions)])
            return collisions
        }
    }

    // MARK: Users

    public func user(nameKey: String) async throws -> UserRecord? {
        try database.read { db in
            try db.row(
                "SELECT \(UserRecord.selectColumns) FROM users WHERE name_key = ?", [.text(nameKey)],
                UserRecord.init(row:))
        }
    }

    public func user(handle: [UInt8]) async throws -> UserRecord? {
        try database.read { db in
            try db.row(
                "SELECT \(UserRecord.selectColumns) FROM users WHERE handle = ?", [.blob(handle)],
                UserRecord.init(row:))
        }
    }

    /// Deletes a user; credentials and sessions go with it (ON DELETE CASCADE).
    public func deleteUser(handle: [UInt8]) async throws -> Bool {
        try await database.write { db in
            try db.execute("DELETE FROM users WHERE handle = ?", [.blob(handle)])
            return try db.changes() == 1
        }
    }

    // MARK: Credentials

    /// One atomic write: inserts `newUser` when given, then the credential. UNIQUE violations map
    /// to .userExists (users.name_key) / .credentialExists (credentials.id); nothing is left behind.
    ///
    /// A credential for a user that does not exist (and no `newUser`) fails with `.database`
    /// (foreign key).
    public func registerCredential(_ credential: CredentialRecord, newUser: UserRecord?) async throws {
        let credentialArguments = try credential.arguments()
        let userArguments = try newUser?.arguments()
        try await database.write { db in
            switch try Self.insertAccount(db, credential, credentialArguments, newUser, userArguments) {
            case .userExists: throw StoreError(code: .userExists, reason: "users.name_key is taken")
            case .credentialExists: throw StoreError(code: .credentialExists, reason: "credentials.id is registered")
            default: return
            }
        }
    }

    /// One write of its own (a savepoint in a group: a failure undoes the whole batch and nothing
    /// else); the two inserts are prepared once and stepped for every row.
    public func loadAccounts(_ accounts: [NewAccount]) async throws {
        let users = try accounts.map { try $0.user.arguments() }
        let credentials = try accounts.flatMap { try $0.credentials.map { try $0.arguments() } }
        do {
            try await database.write { db in
                for arguments in users {
                    try db.execute(UserRecord.insert, arguments)
                }
                for arguments in credentials {
                    try db.execute(CredentialRecord.insert, arguments)
                }
            }
        } catch let error as SQLiteError where error.isConstraintViolation {
            throw StoreError.database("loading accounts: \(error)")
        }
    }

    public func credential(id: [UInt8]) async throws -> CredentialRecord? {
        try database.read { db in
            try db.row(
                "SELECT \(CredentialRecord.columns) FROM credentials WHERE id = ?", [.blob(id)],
                CredentialRecord.init(row:))
        }
    }

    /// The user's credentials, oldest first (by createdAt, then insertion order).
    public func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        try database.read { db in
            try db.rows(
                """
                SELECT \(CredentialRecord.columns) FROM credentials WHERE user_handle = ?
                ORDER BY created_at, rowid
                """, [.blob(userHandle)], CredentialRecord.init(row:))
        }
    }

    /// Atomic compare-and-set of the sign counter, with backup state and last-used time.
    /// uvInitialized only ever rises: an assertion without UV does not clear it.
    /// Applies only if (stored == 0 && new == 0) || new > stored; returns false (and changes
    /// nothing) otherwise — the caller then calls markPossiblyCloned.
    ///
    /// Also false when no credential has this ID.
    public func recordAssertion(
        credentialID: [UInt8], signCount: UInt32, backupState: Bool, uvInitialized: Bool, at: Date
    ) async throws -> Bool {
        let arguments = try Self.assertionArguments(
            credentialID: credentialID, signCount: signCount, backupState: backupState, uvInitialized: uvInitialized, at: at)
        return try await database.write { db in
            try Self.applyAssertion(db, arguments)
        }
    }

    public func markPossiblyCloned(credentialID: [UInt8]) async throws {
        try await database.write { db in
            try db.execute("UPDATE credentials SET possibly_cloned = 1 WHERE id = ?", [.blob(credentialID)])
        }
    }

    /// Renames the credential if it belongs to `userHandle`; false if there is no such credential.
    public func renameCredential(id: [UInt8], userHandle: [UInt8], name: String, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                "UPDATE credentials SET name = ? WHERE id = ? AND user_handle = ?",
                [.text(name), .blob(id), .blob(userHandle)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func updateDisplayName(userHandle: [UInt8], displayName: String, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        let at = try SQLiteValue.time(event?.at ?? Date())
        return try await database.write { db in
            try db.execute("UPDATE users SET display_name = ?, updated_at = ? WHERE handle = ?", [.text(displayName), at, .blob(userHandle)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    /// Deletes the credential if it belongs to `userHandle`, and atomically with it every
    /// session that credential opened; false (nothing changed) if there is no such credential.
    public func deleteCredential(id: [UInt8], userHandle: [UInt8], event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                "DELETE FROM credentials WHERE id = ? AND user_handle = ?", [.blob(id), .blob(userHandle)])
            guard try db.changes() == 1 else { return false }
            try db.execute(
                "DELETE FROM sessions WHERE credential_id = ? AND user_handle = ?", [.blob(id), .blob(userHandle)])
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }
}

/// Invitations and reset links, and the groups they give (docs/contracts/accounts.md, "Administration").
extension SQLitePasskeyStore {
    static let invitationColumns =
        "token_hash, user_name, name_key, user_handle, created_by, created_at, expires_at, group_names, group_keys, display_name"
}
