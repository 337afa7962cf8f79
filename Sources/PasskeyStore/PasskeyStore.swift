public import Foundation

/// Persistent storage for users, credentials, pending ceremonies and sessions, in one SQLite file.
///
/// One connection, confined to one serial queue (`SerialDatabase`); every method hops there, so
/// calls are serialized and SQLite never blocks Swift's cooperative thread pool. Every
/// multi-statement write is a single BEGIN IMMEDIATE transaction. Times are stored with
/// millisecond precision.
public final class PasskeyStore: Sendable {
    let database: SerialDatabase

    /// Opens the database file at `path`, creating it if missing, sets WAL, synchronous=FULL,
    /// foreign keys and a 5 s busy timeout, and brings the schema up to date.
    public init(path: String) async throws {
        database = try await SerialDatabase(
            path: path, label: "PasskeyStore.sqlite", prepare: Schema.prepare)
    }

    /// Closes the connection once the calls already made have run. Later calls throw.
    public func close() async {
        await database.close()
    }

    /// The number of migrations applied to the file (`PRAGMA user_version`).
    public var schemaVersion: Int {
        get async throws {
            try await database.perform { try Schema.userVersion($0) }
        }
    }

    // MARK: Ceremonies

    public func insertCeremony(_ c: CeremonyRecord) async throws {
        let arguments = try c.arguments()
        try await database.perform { db in
            try db.execute(
                "INSERT INTO ceremonies (\(CeremonyRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments)
        }
    }

    /// Atomically removes and returns the ceremony with this challenge and kind, if present and
    /// not expired at `now` (DELETE … RETURNING). Two concurrent calls never both get it.
    ///
    /// A ceremony of the other kind, or an expired one, is left in place (sweepExpired removes
    /// expired ones) and nil is returned.
    public func consumeCeremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord? {
        let arguments: [SQLiteValue] = [.blob(challenge), .text(kind.rawValue), try .time(now)]
        return try await database.perform { db in
            try db.row(
                """
                DELETE FROM ceremonies WHERE challenge = ? AND kind = ? AND expires_at > ?
                RETURNING \(CeremonyRecord.columns)
                """, arguments, CeremonyRecord.init(row:))
        }
    }

    // MARK: Users

    public func user(nameKey: String) async throws -> UserRecord? {
        try await database.perform { db in
            try db.row(
                "SELECT \(UserRecord.columns) FROM users WHERE name_key = ?", [.text(nameKey)],
                UserRecord.init(row:))
        }
    }

    public func user(handle: [UInt8]) async throws -> UserRecord? {
        try await database.perform { db in
            try db.row(
                "SELECT \(UserRecord.columns) FROM users WHERE handle = ?", [.blob(handle)],
                UserRecord.init(row:))
        }
    }

    // MARK: Credentials

    /// One transaction: inserts `newUser` when given, then the credential. UNIQUE violations map
    /// to .userExists (users.name_key) / .credentialExists (credentials.id); nothing is left behind.
    ///
    /// A credential for a user that does not exist (and no `newUser`) fails with `.database`
    /// (foreign key).
    public func registerCredential(_ credential: CredentialRecord, newUser: UserRecord?) async throws {
        let credentialArguments = try credential.arguments()
        let userArguments = try newUser?.arguments()
        try await database.perform { db in
            try db.transaction {
                if let newUser, let userArguments {
                    do {
                        try db.execute(
                            "INSERT INTO users (\(UserRecord.columns)) VALUES (?, ?, ?, ?, ?)",
                            userArguments)
                    } catch let error as SQLiteError where error.isConstraintViolation {
                        // Ask the table rather than parse the message: is the name taken?
                        let taken = try db.row(
                            "SELECT 1 FROM users WHERE name_key = ?", [.text(newUser.nameKey)]
                        ) { _ in true }
                        if taken == true {
                            throw StoreError(code: .userExists, reason: "users.name_key is taken")
                        }
                        throw error
                    }
                }
                do {
                    try db.execute(
                        """
                        INSERT INTO credentials (\(CredentialRecord.columns))
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, credentialArguments)
                } catch let error as SQLiteError where error.isConstraintViolation {
                    let taken = try db.row(
                        "SELECT 1 FROM credentials WHERE id = ?", [.blob(credential.id)]
                    ) { _ in true }
                    if taken == true {
                        throw StoreError(code: .credentialExists, reason: "credentials.id is registered")
                    }
                    throw error
                }
            }
        }
    }

    public func credential(id: [UInt8]) async throws -> CredentialRecord? {
        try await database.perform { db in
            try db.row(
                "SELECT \(CredentialRecord.columns) FROM credentials WHERE id = ?", [.blob(id)],
                CredentialRecord.init(row:))
        }
    }

    /// The user's credentials, oldest first (by createdAt, then insertion order).
    public func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        try await database.perform { db in
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
        let newCount = Int64(signCount)
        let arguments: [SQLiteValue] = [
            .integer(newCount), .bool(backupState), .bool(uvInitialized), try .time(at),
            .blob(credentialID), .integer(newCount), .integer(newCount),
        ]
        return try await database.perform { db in
            // One statement: the check and the write cannot be separated by another writer.
            try db.execute(
                """
                UPDATE credentials
                SET sign_count = ?, backup_state = ?, uv_initialized = max(uv_initialized, ?), last_used_at = ?
                WHERE id = ? AND ((sign_count = 0 AND ? = 0) OR ? > sign_count)
                """, arguments)
            return try db.changes() == 1
        }
    }

    public func markPossiblyCloned(credentialID: [UInt8]) async throws {
        try await database.perform { db in
            try db.execute("UPDATE credentials SET possibly_cloned = 1 WHERE id = ?", [.blob(credentialID)])
        }
    }

    /// Renames the credential if it belongs to `userHandle`; false if there is no such credential.
    public func renameCredential(id: [UInt8], userHandle: [UInt8], name: String) async throws -> Bool {
        try await database.perform { db in
            try db.execute(
                "UPDATE credentials SET name = ? WHERE id = ? AND user_handle = ?",
                [.text(name), .blob(id), .blob(userHandle)])
            return try db.changes() == 1
        }
    }

    /// Deletes the credential if it belongs to `userHandle`, and in the same transaction every
    /// session that credential opened; false (nothing changed) if there is no such credential.
    public func deleteCredential(id: [UInt8], userHandle: [UInt8]) async throws -> Bool {
        try await database.perform { db in
            try db.transaction {
                try db.execute(
                    "DELETE FROM credentials WHERE id = ? AND user_handle = ?", [.blob(id), .blob(userHandle)])
                guard try db.changes() == 1 else { return false }
                try db.execute(
                    "DELETE FROM sessions WHERE credential_id = ? AND user_handle = ?", [.blob(id), .blob(userHandle)])
                return true
            }
        }
    }

    // MARK: Sessions

    public func insertSession(_ s: SessionRecord) async throws {
        let arguments = try s.arguments()
        try await database.perform { db in
            try db.execute("INSERT INTO sessions (\(SessionRecord.columns)) VALUES (?, ?, ?, ?, ?)", arguments)
        }
    }

    /// The session with this token hash, or nil if absent or expired at `now`.
    public func session(tokenHash: [UInt8], now: Date) async throws -> SessionRecord? {
        let arguments: [SQLiteValue] = [.blob(tokenHash), try .time(now)]
        return try await database.perform { db in
            try db.row(
                "SELECT \(SessionRecord.columns) FROM sessions WHERE token_hash = ? AND expires_at > ?",
                arguments, SessionRecord.init(row:))
        }
    }

    public func deleteSession(tokenHash: [UInt8]) async throws {
        try await database.perform { db in
            try db.execute("DELETE FROM sessions WHERE token_hash = ?", [.blob(tokenHash)])
        }
    }

    /// Ends every session of the user ("sign out everywhere"); returns how many there were.
    @discardableResult
    public func deleteSessions(userHandle: [UInt8]) async throws -> Int {
        try await database.perform { db in
            try db.execute("DELETE FROM sessions WHERE user_handle = ?", [.blob(userHandle)])
            return try db.changes()
        }
    }

    // MARK: Maintenance

    /// Deletes expired ceremonies and sessions; returns how many of each.
    public func sweepExpired(now: Date) async throws -> (ceremonies: Int, sessions: Int) {
        let cutoff = try SQLiteValue.time(now)
        return try await database.perform { db in
            try db.transaction {
                try db.execute("DELETE FROM ceremonies WHERE expires_at <= ?", [cutoff])
                let ceremonies = try db.changes()
                try db.execute("DELETE FROM sessions WHERE expires_at <= ?", [cutoff])
                let sessions = try db.changes()
                return (ceremonies: ceremonies, sessions: sessions)
            }
        }
    }
}
