public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// What the account, session and audit slices share: the signed-in join's columns, the chain's batch.
extension PostgresPasskeyStore {
    static let signedInColumns = SessionRow.columns(of: "s") + ", " + UserRow.selectColumns(of: "u")

    static let sealBatch = 2000

}

/// `AccountStore` on PostgreSQL.
extension PostgresPasskeyStore {
    // MARK: Users

    public func user(nameKey: String) async throws -> UserRecord? {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: UserRow.selectColumns) FROM users WHERE name_key = \(nameKey)", logger: Self.quiet),
                UserRow.record)
        }
    }

    public func user(handle: [UInt8]) async throws -> UserRecord? {
        let handle = ByteBuffer(bytes: handle)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: UserRow.selectColumns) FROM users WHERE handle = \(handle)", logger: Self.quiet),
                UserRow.record)
        }
    }

    public func deleteUser(handle: [UInt8]) async throws -> Bool {
        let handle = ByteBuffer(bytes: handle)
        return try await write { db in
            try await Self.count(db.query("DELETE FROM users WHERE handle = \(handle) RETURNING 1", logger: Self.quiet)) == 1
        }
    }

    // MARK: Credentials

    public func registerCredential(_ credential: CredentialRecord, newUser: UserRecord?) async throws {
        let credentialRow = try CredentialRow(credential)
        let userRow = try newUser.map(UserRow.init)
        try await transaction { db in
            switch try await Self.insertAccount(db, credentialRow, userRow) {
            case .userExists: throw StoreError(code: .userExists, reason: "users.name_key is taken")
            case .credentialExists: throw StoreError(code: .credentialExists, reason: "credentials.id is registered")
            default: return
            }
        }
    }

    /// One transaction of multi-row inserts, as many rows per statement as PostgreSQL's 65 535
    /// parameters allow; a conflict anywhere rolls the whole batch back (`.database`).
    public func loadAccounts(_ accounts: [NewAccount]) async throws {
        let users = try accounts.map { try UserRow($0.user) }
        let credentials = try accounts.flatMap { try $0.credentials.map(CredentialRow.init) }
        try await transaction { db in
            try await Self.insertAll(db, into: "users", columns: UserRow.columns, count: 5, users) { u, binds in
                binds.append(u.handle)
                binds.append(u.name)
                binds.append(u.nameKey)
                binds.append(u.displayName)
                binds.append(u.createdAt)
            }
            try await Self.insertAll(db, into: "credentials", columns: CredentialRow.columns, count: 20, credentials) { c, binds in
                binds.append(c.id)
                binds.append(c.userHandle)
                binds.append(c.publicKey)
                binds.append(c.algorithm)
                binds.append(c.signCount)
                binds.append(c.transports)
                binds.append(c.backupEligible)
                binds.append(c.backupState)
                binds.append(c.uvInitialized)
                binds.append(c.aaguid)
                binds.append(c.attestationFormat)
                binds.append(c.attestationType)
                binds.append(c.attestationTrusted)
                binds.append(c.authenticatorName)
                binds.append(c.name)
                binds.append(c.createdAt)
                binds.append(c.lastUsedAt)
                binds.append(c.possiblyCloned)
                binds.append(c.discoverable)
                binds.append(c.prfEnabled)
            }
        }
    }

    /// Inserts `rows` into `table` with multi-row statements, `bind` appending each row's `count`
    /// values in the order of `columns`.
    static func insertAll<Row>(
        _ db: PostgresConnection, into table: String, columns: String, count: Int, _ rows: [Row],
        bind: (Row, inout PostgresBindings) -> Void
    ) async throws {
        for chunk in chunks(rows, columns: count) {
            var binds = PostgresBindings(capacity: chunk.count * count)
            for row in chunk { bind(row, &binds) }
            let sql = "INSERT INTO \(table) (\(columns)) VALUES " + placeholders(rows: chunk.count, columns: count)
            try await db.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: quiet)
        }
    }

    /// `rows` in slices that keep a statement's parameters within PostgreSQL's limit (65 535).
    static func chunks<Row>(_ rows: [Row], columns: Int) -> [ArraySlice<Row>] {
        let size = max(1, 65_535 / columns)
        return stride(from: 0, to: rows.count, by: size).map { rows[$0..<min($0 + size, rows.count)] }
    }

    /// "($1, $2), ($3, $4)" for 2 rows of 2 columns.
    static func placeholders(rows: Int, columns: Int) -> String {
        var sql = ""
        sql.reserveCapacity(rows * columns * 7)
        for row in 0..<rows {
            sql += row == 0 ? "(" : ", ("
            for column in 0..<columns {
                if column > 0 { sql += ", " }
                sql += "$\(row * columns + column + 1)"
            }
            sql += ")"
        }
        return sql
    }

    /// Inserts the user (when new) and the credential in a savepoint of their own: on a conflict
    /// both are undone (nothing else the caller did) and the conflict returned.
    static func insertAccount(_ db: PostgresConnection, _ credential: CredentialRow, _ user: UserRow?) async throws -> RegistrationOutcome? {
        try await db.query("SAVEPOINT account", logger: quiet)
        if let user {
            let inserted = try await count(db.query(
                """
                INSERT INTO users (\(unescaped: UserRow.columns))
                VALUES (\(user.handle), \(user.name), \(user.nameKey), \(user.displayName), \(user.createdAt))
                ON CONFLICT (name_key) DO NOTHING RETURNING 1
                """, logger: quiet))
            if inserted == 0 {
                try await db.query("ROLLBACK TO SAVEPOINT account", logger: quiet)
                return .userExists
            }
        }
        let c = credential
        let inserted = try await count(db.query(
            """
            INSERT INTO credentials (\(unescaped: CredentialRow.columns)) VALUES (
            \(c.id), \(c.userHandle), \(c.publicKey), \(c.algorithm), \(c.signCount), \(c.transports),
            \(c.backupEligible), \(c.backupState), \(c.uvInitialized), \(c.aaguid), \(c.attestationFormat),
            \(c.attestationType), \(c.attestationTrusted), \(c.authenticatorName), \(c.name), \(c.createdAt),
            \(c.lastUsedAt), \(c.possiblyCloned), \(c.discoverable), \(c.prfEnabled))
            ON CONFLICT (id) DO NOTHING RETURNING 1
            """, logger: quiet))
        if inserted == 0 {
            try await db.query("ROLLBACK TO SAVEPOINT account", logger: quiet)
            return .credentialExists
        }
        try await db.query("RELEASE SAVEPOINT account", logger: quiet)
        return nil
    }

    public func credential(id: [UInt8]) async throws -> CredentialRecord? {
        let id = ByteBuffer(bytes: id)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: CredentialRow.columns) FROM credentials WHERE id = \(id)", logger: Self.quiet),
                CredentialRow.record)
        }
    }

    public func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT \(unescaped: CredentialRow.columns) FROM credentials WHERE user_handle = \(handle)
                    ORDER BY created_at, seq
                    """, logger: Self.quiet),
                CredentialRow.record)
        }
    }

    public func recordAssertion(
        credentialID: [UInt8], signCount: UInt32, backupState: Bool, uvInitialized: Bool, at: Date
    ) async throws -> Bool {
        let id = ByteBuffer(bytes: credentialID)
        let at = try at.storeMilliseconds()
        return try await write { db in
            try await Self.applyAssertion(db, id, Int64(signCount), backupState, uvInitialized, at) != nil
        }
    }

    public func markPossiblyCloned(credentialID: [UInt8]) async throws {
        let id = ByteBuffer(bytes: credentialID)
        try await write { db in
            try await db.query("UPDATE credentials SET possibly_cloned = true WHERE id = \(id)", logger: Self.quiet)
        }
    }

    public func renameCredential(id: [UInt8], userHandle: [UInt8], name: String, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        let id = ByteBuffer(bytes: id)
        let handle = ByteBuffer(bytes: userHandle)
        return try await transaction { db in
            guard try await Self.count(db.query(
                "UPDATE credentials SET name = \(name) WHERE id = \(id) AND user_handle = \(handle) RETURNING 1",
                logger: Self.quiet)) == 1
            else { return false }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func updateDisplayName(userHandle: [UInt8], displayName: String, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        let handle = ByteBuffer(bytes: userHandle)
        let at = try (event?.at ?? Date()).storeMilliseconds()
        return try await transaction { db in
            guard try await Self.count(db.query(
                "UPDATE users SET display_name = \(displayName), updated_at = \(at) WHERE handle = \(handle) RETURNING 1", logger: Self.quiet)) == 1
            else { return false }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func deleteCredential(id: [UInt8], userHandle: [UInt8], event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        let id = ByteBuffer(bytes: id)
        let handle = ByteBuffer(bytes: userHandle)
        return try await transaction { db in
            guard try await Self.count(db.query(
                "DELETE FROM credentials WHERE id = \(id) AND user_handle = \(handle) RETURNING 1", logger: Self.quiet)) == 1
            else { return false }
            try await db.query(
                "DELETE FROM sessions WHERE credential_id = \(id) AND user_handle = \(handle)", logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return true
        }
    }

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

    public func rekeyNames(version: Int, _ key: @escaping @Sendable (String) -> String) async throws -> [String] {
        let wanted = Int32(version)
        return try await transaction { db in
            guard let (done, stored) = try await Self.first(
                db.query("SELECT version, collisions FROM name_key_rules WHERE id = 1 FOR UPDATE", logger: Self.quiet),
                { (try $0[0].decode(Int32.self), try $0[1].decode([String].self)) })
            else { throw StoreError.database("name_key_rules has no row") }
            if done >= wanted { return stored }
            let users = try await Self.all(
                db.query("SELECT handle, name, name_key FROM users ORDER BY created_at, handle", logger: Self.quiet)
            ) { row -> ([UInt8], String, String) in
                var c = Cursor(row)
                return (try c.bytes(), try c.next(), try c.next())
            }
            let (moves, collisions) = NameKeyMove.plan(users.map { ($0.0, $0.1, $0.2) }, key)
            for move in moves {
                try await db.query("UPDATE users SET name_key = \(move.new) WHERE handle = \(ByteBuffer(bytes: move.handle))", logger: Self.quiet)
            }
            let members = try await Self.all(db.query("SELECT user_handle, name, name_key FROM group_members", logger: Self.quiet)) { row -> ([UInt8], String, String) in
                var c = Cursor(row)
                return (try c.bytes(), try c.next(), try c.next())
            }
            for (handle, name, old) in members {
                let new = key(name)
                guard new != old else { continue }
                let owner = ByteBuffer(bytes: handle)
                let exists = try await Self.count(db.query(
                    "SELECT 1 FROM group_members WHERE user_handle = \(owner) AND name_key = \(new)", logger: Self.quiet)) > 0
                if exists {
                    try await db.query("DELETE FROM group_members WHERE user_handle = \(owner) AND name_key = \(old)", logger: Self.quiet)
                } else {
                    try await db.query(
                        "UPDATE group_members SET name_key = \(new) WHERE user_handle = \(owner) AND name_key = \(old)", logger: Self.quiet)
                }
            }
            let invitations = try await Self.all(db.query("SELECT token_hash, user_name, group_names FROM invitations", logger: Self.quiet)) { row -> ([UInt8], String, [String]) in
                var c = Cursor(row)
                return (try c.bytes(), try c.next(), try c.next())
            }
            for (hash, name, groups) in invitations {
                let keys = groups.map(key)
                try await db.query(
                    "UPDATE invitations SET name_key = \(key(name)), group_keys = \(keys) WHERE token_hash = \(ByteBuffer(bytes: hash))", logger: Self.quiet)
            }
            try await db.query("UPDATE name_key_rules SET version = \(wanted), collisions = \(collisions) WHERE id = 1", logger: Self.quiet)
            return collisions
        }
    }
}
