public import PasskeyStorage
internal import Foundation

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

    func insertCeremony(_ c: CeremonyRecord, durable: Bool) async throws {
        let arguments = try c.arguments()
        try await database.write(durable: durable) { db in
            try db.execute(
                "INSERT INTO ceremonies (\(CeremonyRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments)
        }
    }

    static let authenticationContextQuery = """
        SELECT \(CredentialRecord.columns(of: "c")), u.disabled
        FROM credentials AS c JOIN users AS u ON u.handle = c.user_handle
        WHERE c.id = ?
        """

    /// Adds a spent id (key hash, expiry, now) unless a live one is there: whether it was added.
    /// `spendOnce`'s statement, and a sign-in's spending of its challenge inside its write.
    static func spend(_ db: SQLiteConnection, _ arguments: [SQLiteValue]) throws -> Bool {
        try db.execute(spendStatement, arguments)
        return try db.changes() == 1
    }

    static let spendStatement = """
        INSERT INTO spent_ids (key_hash, expires_at) VALUES (?, ?)
        ON CONFLICT (key_hash) DO UPDATE SET expires_at = excluded.expires_at WHERE spent_ids.expires_at <= ?
        """

    static func consume(_ db: SQLiteConnection, _ arguments: [SQLiteValue]) throws -> CeremonyRecord? {
        try db.row(
            """
            DELETE FROM ceremonies WHERE challenge = ? AND kind = ? AND expires_at > ?
            RETURNING \(CeremonyRecord.columns)
            """, arguments, CeremonyRecord.init(row:))
    }

    /// Inserts the user (when new) and the credential, in a savepoint of their own: on a
    /// conflict both are undone (and nothing else the caller did) and the conflict returned.
    static func insertAccount(
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

    static func assertionArguments(
        credentialID: [UInt8], signCount: UInt32, backupState: Bool, uvInitialized: Bool, at: Date
    ) throws -> [SQLiteValue] {
        let newCount = Int64(signCount)
        return [
            .integer(newCount), .bool(backupState), .bool(uvInitialized), try .time(at),
            .blob(credentialID), .integer(newCount), .integer(newCount),
        ]
    }

    /// One statement: the check and the write cannot be separated by another writer.
    static func applyAssertion(_ db: SQLiteConnection, _ arguments: [SQLiteValue]) throws -> Bool {
        try db.execute(
            """
            UPDATE credentials
            SET sign_count = ?, backup_state = ?, uv_initialized = max(uv_initialized, ?), last_used_at = ?
            WHERE id = ? AND ((sign_count = 0 AND ? = 0) OR ? > sign_count)
            """, arguments)
        return try db.changes() == 1
    }

}
