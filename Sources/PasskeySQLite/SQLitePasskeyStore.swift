public import PasskeyStorage
public import Foundation

/// `PasskeyStore` on one SQLite file: the default, for one server process.
///
/// Writes go through one writer connection that commits in groups (`GroupCommitDatabase`):
/// every write method is atomic (its own savepoint), and returns only once the transaction that
/// holds it has committed with `synchronous=FULL`, so a returned write is on disk. Reads run on
/// reader connections beside it. Times are stored with millisecond precision.
public final class SQLitePasskeyStore: PasskeyStore {
    let database: GroupCommitDatabase

    /// Opens the database file at `path`, creating it if missing, sets WAL, synchronous=FULL,
    /// foreign keys and a 5 s busy timeout, and brings the schema up to date.
    ///
    /// `onCommit` hears of each group commit: how many writes it held and how long the COMMIT
    /// (the fsync) took.
    public init(path: String, onCommit: @escaping @Sendable (_ writes: Int, _ seconds: Double) -> Void = { _, _ in }) async throws {
        database = try await GroupCommitDatabase(
            path: path, label: "PasskeyStore.sqlite", prepare: Schema.prepare, prepareReader: Schema.prepareReader,
            onCommit: onCommit)
    }

    /// Closes the connection once the calls already made have run. Later calls throw.
    public func close() async {
        await database.close()
    }

    /// The number of migrations applied to the file (`PRAGMA user_version`).
    public var schemaVersion: Int {
        get async throws {
            try database.read { try Schema.userVersion($0) }
        }
    }

    // MARK: Ceremonies

    /// Not fsynced on its own (`durable: false`): a pending ceremony is in the WAL file, seen by
    /// every connection and kept if the process dies, but a power cut may lose it, which costs
    /// the user a retry; the next durable commit fsyncs it along.
    public func insertCeremony(_ c: CeremonyRecord) async throws {
        try await insertCeremony(c, durable: false)
    }

    func insertCeremony(_ c: CeremonyRecord, durable: Bool) async throws {
        let arguments = try c.arguments()
        try await database.write(durable: durable) { db in
            try db.execute(
                "INSERT INTO ceremonies (\(CeremonyRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments)
        }
    }

    /// The pending ceremony with this challenge and kind, if present and not expired at `now`.
    /// A read: nothing is spent (the ceremony is spent by `completeRegistration`,
    /// `completeAuthentication` or `spendCeremony`, atomically).
    public func ceremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord? {
        let arguments: [SQLiteValue] = [.blob(challenge), .text(kind.rawValue), try .time(now)]
        return try database.read { db in
            try db.row(
                "SELECT \(CeremonyRecord.columns) FROM ceremonies WHERE challenge = ? AND kind = ? AND expires_at > ?",
                arguments, CeremonyRecord.init(row:))
        }
    }

    /// One statement, so one snapshot: the credential and its owner's flag, beside the ceremony,
    /// each side NULL when absent.
    public func authenticationContext(credentialID: [UInt8], challenge: [UInt8], now: Date) async throws -> AuthenticationContext {
        let arguments: [SQLiteValue] = [.blob(credentialID), .blob(challenge), .text(CeremonyKind.authentication.rawValue), try .time(now)]
        return try database.read { db in
            try db.row(Self.authenticationContextQuery, arguments) { row in
                let ceremonyRow = row.columns(from: CredentialRecord.columnCount + 1)
                return AuthenticationContext(
                    credential: row.isNull(0) ? nil : try CredentialRecord(row: row),
                    ownerDisabled: !row.isNull(0) && row.bool(CredentialRecord.columnCount),
                    ceremony: ceremonyRow.isNull(0) ? nil : try CeremonyRecord(row: ceremonyRow))
            }
        } ?? AuthenticationContext(credential: nil, ownerDisabled: false, ceremony: nil)
    }

    static let authenticationContextQuery = """
        SELECT \(CredentialRecord.columns(of: "c")), u.disabled, \(CeremonyRecord.columns(of: "k"))
        FROM (SELECT 1) AS one
        LEFT JOIN credentials AS c ON c.id = ?
        LEFT JOIN users AS u ON u.handle = c.user_handle
        LEFT JOIN ceremonies AS k ON k.challenge = ? AND k.kind = ? AND k.expires_at > ?
        """

    /// Atomically removes and returns the ceremony with this challenge and kind, if present and
    /// not expired at `now` (DELETE … RETURNING). Two concurrent calls never both get it.
    ///
    /// A ceremony of the other kind, or an expired one, is left in place (sweepExpired removes
    /// expired ones) and nil is returned.
    public func consumeCeremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord? {
        let arguments: [SQLiteValue] = [.blob(challenge), .text(kind.rawValue), try .time(now)]
        return try await database.write { db in
            try Self.consume(db, arguments)
        }
    }

    static func consume(_ db: SQLiteConnection, _ arguments: [SQLiteValue]) throws -> CeremonyRecord? {
        try db.row(
            """
            DELETE FROM ceremonies WHERE challenge = ? AND kind = ? AND expires_at > ?
            RETURNING \(CeremonyRecord.columns)
            """, arguments, CeremonyRecord.init(row:))
    }

    /// Spends the ceremony of a refused response (its challenge cannot be used again) and, for a
    /// counter regression, marks the credential possibly cloned — in one write. Returns whether
    /// the ceremony was still there.
    @discardableResult
    public func spendCeremony(challenge: [UInt8], kind: CeremonyKind, markCloned credentialID: [UInt8]?, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("DELETE FROM ceremonies WHERE challenge = ? AND kind = ?", [.blob(challenge), .text(kind.rawValue)])
            let spent = try db.changes() == 1
            if let credentialID {
                try db.execute("UPDATE credentials SET possibly_cloned = 1 WHERE id = ?", [.blob(credentialID)])
            }
            try Self.insertEvent(db, eventArguments)
            return spent
        }
    }

    /// Finishes a verified registration in one atomic write: spends the ceremony, creates the
    /// user (when new), the credential and the session.
    public func completeRegistration(
        challenge: [UInt8], now: Date, credential: CredentialRecord, newUser: UserRecord?, session: SessionRecord,
        invitation: [UInt8]?, endingOtherSessions: Bool, event: AuditEvent?
    ) async throws -> RegistrationOutcome {
        let eventArguments = try event?.insertArguments()
        let invitationArguments: [SQLiteValue]? = try invitation.map { [.blob($0), try .time(now)] }
        let ceremonyArguments: [SQLiteValue] = [.blob(challenge), .text(CeremonyKind.registration.rawValue), try .time(now)]
        let credentialArguments = try credential.arguments()
        let userArguments = try newUser?.arguments()
        let sessionArguments = try session.arguments()
        return try await database.write { db in
            guard try Self.consume(db, ceremonyArguments) != nil else { return .ceremonyGone }
            var groups: [InvitationGroup] = []
            if let invitationArguments {
                guard let named = try Self.spendInvitation(db, invitationArguments) else { return .invitationGone }
                groups = named
            }
            // A conflict undoes the account rows, not the spending.
            if let conflict = try Self.insertAccount(db, credential, credentialArguments, newUser, userArguments) {
                return conflict
            }
            try Self.addMemberships(db, userHandle: credential.userHandle, groups)
            if endingOtherSessions { _ = try Self.revokeAccess(db, userHandle: credential.userHandle) }
            try db.execute(SessionRecord.insert, sessionArguments)
            try Self.insertEvent(db, eventArguments)
            return .registered
        }
    }

    /// Finishes a verified assertion in one atomic write: spends the ceremony, compares and sets
    /// the sign counter (§7.2 step 25), stores backup state, last use and uvInitialized (which
    /// only rises), and creates the session.
    public func completeAuthentication(
        challenge: [UInt8], now: Date, credentialID: [UInt8], signCount: UInt32, backupState: Bool, userVerified: Bool,
        session: SessionRecord, renewing: Bool, signedIn: AuditEvent?, regression: AuditEvent?
    ) async throws -> AuthenticationOutcome {
        let signedInArguments = try signedIn?.insertArguments()
        let regressionArguments = try regression?.insertArguments()
        let ceremonyArguments: [SQLiteValue] = [.blob(challenge), .text(CeremonyKind.authentication.rawValue), try .time(now)]
        let assertionArguments = try Self.assertionArguments(
            credentialID: credentialID, signCount: signCount, backupState: backupState, uvInitialized: userVerified, at: now)
        let sessionArguments = try session.arguments()
        let renewArguments: [SQLiteValue] = [
            try .optionalTime(session.authTime), session.userVerified.map(SQLiteValue.bool) ?? .null, .blob(session.tokenHash),
            .blob(session.userHandle), try .time(now),
        ]
        return try await database.write { db in
            guard try Self.consume(db, ceremonyArguments) != nil else { return .ceremonyGone }
            guard try Self.applyAssertion(db, assertionArguments) else {
                try db.execute("UPDATE credentials SET possibly_cloned = 1 WHERE id = ?", [.blob(credentialID)])
                try Self.insertEvent(db, regressionArguments)
                return .counterRegression
            }
            guard let name = try db.row("SELECT name FROM users WHERE handle = ?", [.blob(session.userHandle)], { $0.text(0) }) else {
                throw StoreError.database("the credential's user vanished")
            }
            if renewing {
                try db.execute(
                    "UPDATE sessions SET auth_time = ?, user_verified = ? WHERE token_hash = ? AND user_handle = ? AND expires_at > ?",
                    renewArguments)
                guard try db.changes() == 1 else { return .sessionGone }
            } else {
                try db.execute(SessionRecord.insert, sessionArguments)
            }
            try Self.insertEvent(db, signedInArguments)
            return .signedIn(userName: name)
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

    /// Inserts the user (when new) and the credential, in a savepoint of their own: on a
    /// conflict both are undone (and nothing else the caller did) and the conflict returned.
    private static func insertAccount(
        _ db: SQLiteConnection, _ credential: CredentialRecord, _ credentialArguments: [SQLiteValue],
        _ newUser: UserRecord?, _ userArguments: [SQLiteValue]?
    ) throws -> RegistrationOutcome? {
        try db.execute("SAVEPOINT account")
        let conflict: RegistrationOutcome?
        do {
            if let newUser, let userArguments, let taken = try insertUser(db, newUser, userArguments) {
                conflict = taken
            } else {
                conflict = try insertCredential(db, credential, credentialArguments)
            }
        } catch {
            try? db.execute("ROLLBACK TO account")
            try? db.execute("RELEASE account")
            throw error
        }
        if conflict != nil { try db.execute("ROLLBACK TO account") }
        try db.execute("RELEASE account")
        return conflict
    }

    /// Inserts a user; `.userExists` when the name is taken (the table is asked, not the message).
    static func insertUser(_ db: SQLiteConnection, _ user: UserRecord, _ arguments: [SQLiteValue]) throws -> RegistrationOutcome? {
        do {
            try db.execute(UserRecord.insert, arguments)
            return nil
        } catch let error as SQLiteError where error.isConstraintViolation {
            let taken = try db.row("SELECT 1 FROM users WHERE name_key = ?", [.text(user.nameKey)]) { _ in true }
            if taken == true { return .userExists }
            throw error
        }
    }

    /// Inserts a credential; `.credentialExists` when its id is registered.
    private static func insertCredential(
        _ db: SQLiteConnection, _ credential: CredentialRecord, _ arguments: [SQLiteValue]
    ) throws -> RegistrationOutcome? {
        do {
            try db.execute(CredentialRecord.insert, arguments)
            return nil
        } catch let error as SQLiteError where error.isConstraintViolation {
            let taken = try db.row("SELECT 1 FROM credentials WHERE id = ?", [.blob(credential.id)]) { _ in true }
            if taken == true { return .credentialExists }
            throw error
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

    private static func assertionArguments(
        credentialID: [UInt8], signCount: UInt32, backupState: Bool, uvInitialized: Bool, at: Date
    ) throws -> [SQLiteValue] {
        let newCount = Int64(signCount)
        return [
            .integer(newCount), .bool(backupState), .bool(uvInitialized), try .time(at),
            .blob(credentialID), .integer(newCount), .integer(newCount),
        ]
    }

    /// One statement: the check and the write cannot be separated by another writer.
    private static func applyAssertion(_ db: SQLiteConnection, _ arguments: [SQLiteValue]) throws -> Bool {
        try db.execute(
            """
            UPDATE credentials
            SET sign_count = ?, backup_state = ?, uv_initialized = max(uv_initialized, ?), last_used_at = ?
            WHERE id = ? AND ((sign_count = 0 AND ? = 0) OR ? > sign_count)
            """, arguments)
        return try db.changes() == 1
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

    // MARK: Maintenance

    /// Deletes expired ceremonies and sessions; returns how many of each.
    public func sweepExpired(now: Date) async throws -> (ceremonies: Int, sessions: Int) {
        let cutoff = try SQLiteValue.time(now)
        let counts: [Int] = try await database.write { db in
            try db.execute("DELETE FROM ceremonies WHERE expires_at <= ?", [cutoff])
            let ceremonies = try db.changes()
            try db.execute("DELETE FROM apple_nonces WHERE expires_at <= ?", [cutoff])
            let nonces = try db.changes()
            try db.execute("DELETE FROM apple_spent_tokens WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM apple_notifications WHERE received_at <= ?", [try .time(now.addingTimeInterval(-30 * 86400))])
            try db.execute("DELETE FROM push_discoveries WHERE expires_at <= ?", [cutoff])
            let discoveries = try db.changes()
            let dayAgo = try SQLiteValue.time(now.addingTimeInterval(-86400))
            try db.execute("DELETE FROM push_requests WHERE expires_at <= ?", [dayAgo])
            // Every limit's window is an hour at most: a day-old counter counts nothing.
            try db.execute("DELETE FROM attempt_counters WHERE window_start <= ?", [dayAgo])
            // Messages for Business: an expired request's key goes at once, the request a day later.
            try db.execute("UPDATE mfb_requests SET private_key = NULL WHERE expires_at <= ? AND private_key IS NOT NULL", [cutoff])
            try db.execute("DELETE FROM mfb_grants WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM mfb_requests WHERE expires_at <= ?", [dayAgo])
            try db.execute("DELETE FROM oauth_authorizations WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM oauth_device_authorizations WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM invitations WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM oauth_grants WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM sessions WHERE expires_at <= ?", [cutoff])
            return [ceremonies + nonces + discoveries, try db.changes()]
        }
        return (counts[0], counts[1])
    }
}
