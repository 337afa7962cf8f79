public import Foundation
public import PasskeyStorage
internal import NIOCore
internal import PostgresNIO

/// Users, their credentials and sessions, and the audit trail.
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
        return try await transaction { db in
            guard try await Self.count(db.query(
                "UPDATE users SET display_name = \(displayName) WHERE handle = \(handle) RETURNING 1", logger: Self.quiet)) == 1
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

    // MARK: Sessions

    public func insertSession(_ s: SessionRecord) async throws {
        let row = try SessionRow(s)
        try await write { db in try await Self.insert(db, row) }
    }

    static func insert(_ db: PostgresConnection, _ s: SessionRow) async throws {
        try await db.query(
            """
            INSERT INTO sessions (\(unescaped: SessionRow.columns))
            VALUES (\(s.tokenHash), \(s.userHandle), \(s.createdAt), \(s.expiresAt), \(s.credentialID), \(s.via), \(s.userVerified),
                \(s.ip), \(s.userAgent), \(s.lastSeenAt), \(s.authTime))
            """, logger: quiet)
    }

    public func session(tokenHash: [UInt8], now: Date) async throws -> SessionRecord? {
        let hash = ByteBuffer(bytes: tokenHash)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    "SELECT \(unescaped: SessionRow.columns) FROM sessions WHERE token_hash = \(hash) AND expires_at > \(now)",
                    logger: Self.quiet),
                SessionRow.record)
        }
    }

    public func insertEvent(_ event: AuditEvent) async throws {
        let row = try EventRow(event)
        try await write { db in try await Self.insert(db, row) }
    }

    public func sessions(userHandle: [UInt8], now: Date) async throws -> [SessionRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT \(unescaped: SessionRow.columns) FROM sessions WHERE user_handle = \(handle) AND expires_at > \(now)
                    ORDER BY created_at DESC, token_hash
                    """, logger: Self.quiet),
                SessionRow.record)
        }
    }

    public func deleteSession(tokenHash: [UInt8], event: AuditEvent?) async throws {
        let eventRow = try event.map(EventRow.init)
        let hash = ByteBuffer(bytes: tokenHash)
        try await transaction { db in
            if try await Self.count(db.query("DELETE FROM sessions WHERE token_hash = \(hash) RETURNING 1", logger: Self.quiet)) == 1 {
                try await Self.insert(db, eventRow)
            }
        }
    }

    public func touchSession(tokenHash: [UInt8], at: Date) async throws {
        let hash = ByteBuffer(bytes: tokenHash)
        let at = try at.storeMilliseconds()
        try await write { db in
            try await db.query("UPDATE sessions SET last_seen_at = \(at) WHERE token_hash = \(hash)", logger: Self.quiet)
        }
    }

    @discardableResult
    public func deleteSessions(userHandle: [UInt8], event: AuditEvent?) async throws -> Int {
        let eventRow = try event.map(EventRow.init)
        let handle = ByteBuffer(bytes: userHandle)
        return try await transaction { db in
            let count = try await Self.count(db.query("DELETE FROM sessions WHERE user_handle = \(handle) RETURNING 1", logger: Self.quiet))
            try await Self.insert(db, eventRow)
            return count
        }
    }

    // MARK: Audit events

    /// Inserts an event in the caller's transaction (nothing for nil).
    static func insert(_ db: PostgresConnection, _ e: EventRow?) async throws {
        guard let e else { return }
        try await db.query(
            """
            INSERT INTO events (user_handle, type, at, ip, user_agent, details)
            VALUES (\(e.userHandle), \(e.type), \(e.at), \(e.ip), \(e.userAgent), \(e.details))
            """, logger: quiet)
    }

    public func events(userHandle: [UInt8], before: Int64?, limit: Int) async throws -> [AuditEvent] {
        let handle = ByteBuffer(bytes: userHandle)
        let before = before ?? Int64.max
        let limit = Int64(max(0, limit))
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT \(unescaped: EventRow.columns) FROM events WHERE user_handle = \(handle) AND id < \(before)
                    ORDER BY id DESC LIMIT \(limit)
                    """, logger: Self.quiet),
                EventRow.record)
        }
    }

    public func events(userHandle: [UInt8]?, since: Date?, after: Int64?, limit: Int) async throws -> [AuditEvent] {
        let handle = userHandle.map { ByteBuffer(bytes: $0) }
        let since = try (since ?? Date(timeIntervalSince1970: 0)).storeMilliseconds()
        let after = after ?? 0
        let limit = Int64(max(0, limit))
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT \(unescaped: EventRow.columns) FROM events
                    WHERE (\(handle)::bytea IS NULL OR user_handle = \(handle)) AND at >= \(since) AND id > \(after)
                    ORDER BY id LIMIT \(limit)
                    """, logger: Self.quiet),
                EventRow.record)
        }
    }

    public func deleteEvents(olderThan cutoff: Date) async throws -> Int {
        let cutoff = try cutoff.storeMilliseconds()
        return try await write { db in
            try await Self.count(db.query("DELETE FROM events WHERE at < \(cutoff) RETURNING 1", logger: Self.quiet))
        }
    }
}
