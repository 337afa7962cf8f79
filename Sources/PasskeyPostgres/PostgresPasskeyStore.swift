public import Foundation
public import Logging
public import PasskeyStorage
internal import NIOCore
internal import NIOSSL
internal import PostgresNIO
internal import Synchronization

/// `PasskeyStore` on a PostgreSQL database shared by any number of server processes.
///
/// - Every write is one transaction on a pooled connection; COMMIT returns once PostgreSQL has
///   flushed its WAL (`synchronous_commit` as the server sets it, `on` by default), so a returned
///   write is on disk. PostgreSQL batches the flushes of concurrent commits itself.
/// - Spending a challenge is `DELETE … RETURNING`: under concurrency, exactly one transaction gets
///   the row, whichever process it runs in. The sign counter is a compare-and-set in one UPDATE;
///   PostgreSQL re-checks its condition against the newest row after waiting for a concurrent one.
/// - Unique names rest on the unique index: `INSERT … ON CONFLICT DO NOTHING` waits for a
///   concurrent insert of the same name and then does nothing, which is the 409.
/// - Each call has a deadline (`timeout`): when the database cannot be reached, or does not
///   answer in time, the call throws `StoreError.unavailable` instead of hanging. The pool keeps
///   trying to connect in the background, so the store recovers by itself.
public final class PostgresPasskeyStore: PasskeyStore {
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let timeout: Duration
    private let logger: Logger
    /// Set by `close()`; later calls throw `.closed` at once instead of waiting for a pool that
    /// is gone.
    private let closed = Mutex(false)
    private let onCommit: @Sendable (_ writes: Int, _ seconds: Double) -> Void

    /// Connects (the pool opens connections as needed, up to `poolSize`), then creates or
    /// migrates the schema under an advisory lock.
    ///
    /// - Parameters:
    ///   - timeout: the longest a call may take, waiting for a connection included; also each
    ///     statement's `statement_timeout` on the server.
    ///   - onCommit: hears of each durable commit: the writes it held (always 1 here; PostgreSQL
    ///     groups concurrent commits' flushes itself) and how long the COMMIT took (for a write
    ///     of one statement, which commits itself, the statement).
    public init(
        location: PostgresLocation, poolSize: Int = 10, timeout: Duration = .seconds(5), logger: Logger,
        onCommit: @escaping @Sendable (_ writes: Int, _ seconds: Double) -> Void = { _, _ in }
    ) async throws {
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: try Self.tls(location))
        configuration.options.maximumConnections = max(1, poolSize)
        configuration.options.connectTimeout = timeout
        let milliseconds = Self.milliseconds(timeout)
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", "\(milliseconds)"),
            ("idle_in_transaction_session_timeout", "\(max(milliseconds * 2, 1000))"),
            ("application_name", "passkey-server"),
        ]
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.runner = Task { await client.run() }
        self.timeout = timeout
        self.logger = logger
        self.onCommit = onCommit
        do {
            try await migrate()
        } catch {
            runner.cancel()
            throw error
        }
    }

    public func close() async {
        closed.withLock { $0 = true }
        runner.cancel()
        // Bounded like every call, so that a pool that does not wind down cannot keep the
        // process from exiting.
        let runner = runner
        _ = try? await Self.firstOf({ await runner.value }, timeout: timeout)
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    private static func tls(_ location: PostgresLocation) throws -> PostgresClient.Configuration.TLS {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch location.tls {
        case .disable: return .disable
        case .prefer, .require: tls.certificateVerification = .none
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if let path = location.rootCertificatePath {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
            } catch {
                throw StoreError.database("sslrootcert \(path) cannot be read: \(error)")
            }
        }
        return location.tls == .prefer ? .prefer(tls) : .require(tls)
    }

    // MARK: Running statements

    /// Runs `body` on a pooled connection within the deadline, mapping errors to `StoreError`.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let client = client
        return try await deadline { try await client.withConnection { try await body($0) } }
    }

    /// Runs one statement that writes (and so commits by itself) within the deadline, timed.
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let client = client
        let onCommit = onCommit
        return try await deadline {
            try await client.withConnection { connection in
                let started = ContinuousClock.now
                let value = try await body(connection)
                onCommit(1, Self.seconds(ContinuousClock.now - started))
                return value
            }
        }
    }

    /// Runs `body` in a transaction (BEGIN … COMMIT, ROLLBACK when it throws) within the deadline.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let client = client
        let onCommit = onCommit
        return try await deadline {
            try await client.withConnection { db in
                try await db.query("BEGIN", logger: Self.quiet)
                let value: T
                do {
                    value = try await body(db)
                } catch {
                    _ = try? await db.query("ROLLBACK", logger: Self.quiet)
                    throw error
                }
                let started = ContinuousClock.now
                try await db.query("COMMIT", logger: Self.quiet)
                onCommit(1, Self.seconds(ContinuousClock.now - started))
                return value
            }
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Runs `operation` with the store's deadline. At the deadline the caller gets
    /// `.unavailable` and the operation is cancelled, whether or not it has stopped yet: a
    /// statement on a connection that died with the server can ignore cancellation, and waiting
    /// for it (as a task group would) left the request unanswered and the server unable to shut
    /// down.
    private func deadline<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        guard !closed.withLock({ $0 }) else { throw StoreError.closed }
        do {
            return try await Self.firstOf(operation, timeout: timeout)
        } catch let error as any RollbackOutcome {
            throw error
        } catch {
            throw Self.storeError(error)
        }
    }

    /// `operation`'s outcome, or `.unavailable` once `timeout` has passed (or the caller is
    /// cancelled), whichever comes first; the loser is cancelled and not waited for.
    static func firstOf<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T, timeout: Duration) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(continuation, tasks: [
                    Task {
                        do { race.answer(.success(try await operation())) } catch { race.answer(.failure(error)) }
                    },
                    Task {
                        try? await Task.sleep(for: timeout)
                        race.answer(.failure(StoreError.unavailable("PostgreSQL did not answer within \(timeout)")))
                    },
                ])
            }
        } onCancel: {
            race.answer(.failure(CancellationError()))
        }
    }

    /// The continuation of `firstOf`, resumed once, with the first answer (which may come
    /// before `start` has the continuation); the tasks still running then are cancelled.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var tasks: [Task<Void, Never>] = []
            var first: Result<T, any Error>?
        }
        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<T, any Error>, tasks: [Task<Void, Never>]) {
            let first = state.withLock { state -> Result<T, any Error>? in
                state.tasks = tasks
                if state.first == nil { state.continuation = continuation }
                return state.first
            }
            if let first {
                tasks.forEach { $0.cancel() }
                continuation.resume(with: first)
            }
        }

        func answer(_ result: Result<T, any Error>) {
            let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
                guard state.first == nil else { return (nil, []) }
                state.first = result
                defer { state.continuation = nil }
                return (state.continuation, state.tasks)
            }
            tasks.forEach { $0.cancel() }
            continuation?.resume(with: result)
        }
    }

    /// An error a transaction's body throws to roll back and end with an outcome, not a failure:
    /// it reaches the caller unchanged.
    protocol RollbackOutcome: Error {}

    /// Connection trouble, timeouts and server shutdowns are `.unavailable`; the rest `.database`.
    /// Reasons carry codes and the server's message, never bound values.
    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as PostgresTransactionError:
            if let inner = error.beginError ?? error.closureError ?? error.commitError {
                return storeError(inner)
            }
            return .database("transaction failed")
        case let error as PSQLError:
            switch error.code {
            case .server:
                let state = error.serverInfo?[.sqlState] ?? "?"
                let message = error.serverInfo?[.message] ?? ""
                // 08: connection exception; 57P01-03: shutdown / starting up; 53300: too many
                // connections; 57014: statement timeout; 40001 / 40P01: serialization, deadlock.
                if state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300", "57014", "40001", "40P01"].contains(state) {
                    return .unavailable("PostgreSQL \(state): \(message)")
                }
                return .database("PostgreSQL \(state): \(message)")
            case .poolClosed:
                return .closed
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown,
                 .queryCancelled, .sslUnsupported, .failedToAddSSLHandler:
                return .unavailable("PostgreSQL connection: \(error.code)")
            default:
                return .database("PostgreSQL client: \(error.code)")
            }
        case is CancellationError:
            return .unavailable("the call was cancelled")
        case is PostgresDecodingError:
            return .database("a stored value does not decode: \(error)")
        default:
            return .unavailable("PostgreSQL: \(error)")
        }
    }

    // MARK: Schema

    private func migrate() async throws {
        let known = PostgresSchema.currentVersion
        try await transaction { db in
            try await db.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))", logger: Self.quiet)
            try await db.query(PostgresQuery(unsafeSQL: PostgresSchema.ledger), logger: Self.quiet)
            var applied: [Int: Bool] = [:]
            for try await (version, additive) in try await db.query(
                "SELECT version, additive FROM schema_migrations", logger: Self.quiet
            ).decode((Int32, Bool).self) {
                applied[Int(version)] = additive
            }
            let unknownBreaking = applied.filter { $0.key > known && !$0.value }.keys.sorted()
            guard unknownBreaking.isEmpty else {
                throw StoreError.database(
                    "database schema has migration \(unknownBreaking[0]) that this program (version \(known)) cannot work with; run the newer program")
            }
            for (index, migration) in PostgresSchema.migrations.enumerated() where applied[index + 1] == nil {
                for statement in migration.statements {
                    try await db.query(PostgresQuery(unsafeSQL: statement), logger: Self.quiet)
                }
                let version = Int32(index + 1)
                try await db.query(
                    "INSERT INTO schema_migrations (version, additive) VALUES (\(version), \(migration.additive))",
                    logger: Self.quiet)
            }
        }
    }

    static let quiet = Logger(label: "PasskeyPostgres.quiet", factory: { _ in SwiftLogNoOpLogHandler() })

    public var schemaVersion: Int {
        get async throws {
            try await withConnection { db in
                var version = 0
                for try await (max,) in try await db.query(
                    "SELECT coalesce(max(version), 0) FROM schema_migrations", logger: Self.quiet
                ).decode((Int32,).self) {
                    version = Int(max)
                }
                return version
            }
        }
    }

    // MARK: Ceremonies

    public func insertCeremony(_ c: CeremonyRecord) async throws {
        let row = try CeremonyRow(c)
        try await write { db in
            try await db.query(
                """
                INSERT INTO ceremonies (\(unescaped: CeremonyRow.columns)) VALUES (
                \(row.challenge), \(row.kind), \(row.userHandle), \(row.userName), \(row.displayName), \(row.isNewUser),
                \(row.userVerification), \(row.allowCredentialIDs), \(row.algorithms), \(row.createdAt), \(row.expiresAt))
                """, logger: Self.quiet)
        }
    }

    public func ceremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord? {
        let challenge = ByteBuffer(bytes: challenge)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT \(unescaped: CeremonyRow.columns) FROM ceremonies
                    WHERE challenge = \(challenge) AND kind = \(kind.rawValue) AND expires_at > \(now)
                    """, logger: Self.quiet),
                CeremonyRow.record)
        }
    }

    public func consumeCeremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord? {
        let challenge = ByteBuffer(bytes: challenge)
        let now = try now.storeMilliseconds()
        return try await write { db in
            try await Self.consume(db, challenge, kind, now)
        }
    }

    private static func consume(_ db: PostgresConnection, _ challenge: ByteBuffer, _ kind: CeremonyKind, _ now: Int64) async throws -> CeremonyRecord? {
        try await first(
            db.query(
                """
                DELETE FROM ceremonies WHERE challenge = \(challenge) AND kind = \(kind.rawValue) AND expires_at > \(now)
                RETURNING \(unescaped: CeremonyRow.columns)
                """, logger: quiet),
            CeremonyRow.record)
    }

    @discardableResult
    public func spendCeremony(challenge: [UInt8], kind: CeremonyKind, markCloned credentialID: [UInt8]?, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        let challenge = ByteBuffer(bytes: challenge)
        let cloned = credentialID.map { ByteBuffer(bytes: $0) }
        return try await transaction { db in
            let spent = try await Self.count(db.query(
                "DELETE FROM ceremonies WHERE challenge = \(challenge) AND kind = \(kind.rawValue) RETURNING 1", logger: Self.quiet))
            if let cloned {
                try await db.query("UPDATE credentials SET possibly_cloned = true WHERE id = \(cloned)", logger: Self.quiet)
            }
            try await Self.insert(db, eventRow)
            return spent == 1
        }
    }

    public func completeRegistration(
        challenge: [UInt8], now: Date, credential: CredentialRecord, newUser: UserRecord?, session: SessionRecord,
        event: AuditEvent?
    ) async throws -> RegistrationOutcome {
        let eventRow = try event.map(EventRow.init)
        let challenge = ByteBuffer(bytes: challenge)
        let now = try now.storeMilliseconds()
        let credentialRow = try CredentialRow(credential)
        let userRow = try newUser.map(UserRow.init)
        let sessionRow = try SessionRow(session)
        return try await transaction { db in
            guard try await Self.consume(db, challenge, .registration, now) != nil else { return .ceremonyGone }
            if let conflict = try await Self.insertAccount(db, credentialRow, userRow) { return conflict }
            try await Self.insert(db, sessionRow)
            try await Self.insert(db, eventRow)
            return .registered
        }
    }

    public func completeAuthentication(
        challenge: [UInt8], now: Date, credentialID: [UInt8], signCount: UInt32, backupState: Bool, userVerified: Bool,
        session: SessionRecord, signedIn: AuditEvent?, regression: AuditEvent?
    ) async throws -> AuthenticationOutcome {
        let signedInRow = try signedIn.map(EventRow.init)
        let regressionRow = try regression.map(EventRow.init)
        let challenge = ByteBuffer(bytes: challenge)
        let at = try now.storeMilliseconds()
        let id = ByteBuffer(bytes: credentialID)
        let count = Int64(signCount)
        let sessionRow = try SessionRow(session)
        // One statement, so one round trip and its own transaction: spend the ceremony; when it
        // was there, compare-and-set the counter (§7.2 step 25); when that applied, open the
        // session and record the sign-in, else mark the credential possibly cloned and record
        // the regression. Each step sees the previous one only through its RETURNING rows; the
        // two UPDATEs of the credential exclude each other (NOT EXISTS applied). Six round trips
        // (BEGIN … COMMIT) before, the most expensive part of a finalize on PostgreSQL.
        let s = sessionRow
        let e = try signedInRow ?? EventRow.placeholder()
        let r = try regressionRow ?? EventRow.placeholder()
        return try await write { db in
            let rows = try await db.query(
                """
                WITH spent AS (
                    DELETE FROM ceremonies
                    WHERE challenge = \(challenge) AND kind = \(CeremonyKind.authentication.rawValue) AND expires_at > \(at)
                    RETURNING 1
                ), applied AS (
                    UPDATE credentials AS c
                    SET sign_count = \(count), backup_state = \(backupState),
                        uv_initialized = c.uv_initialized OR \(userVerified), last_used_at = \(at)
                    FROM users AS u
                    WHERE c.id = \(id) AND u.handle = c.user_handle AND EXISTS (SELECT 1 FROM spent)
                      AND ((c.sign_count = 0 AND \(count) = 0) OR \(count) > c.sign_count)
                    RETURNING u.name
                ), cloned AS (
                    UPDATE credentials SET possibly_cloned = true
                    WHERE id = \(id) AND EXISTS (SELECT 1 FROM spent) AND NOT EXISTS (SELECT 1 FROM applied)
                ), opened AS (
                    INSERT INTO sessions (\(unescaped: SessionRow.columns))
                    SELECT \(s.tokenHash), \(s.userHandle), \(s.createdAt), \(s.expiresAt), \(s.credentialID), \(s.via)
                    WHERE EXISTS (SELECT 1 FROM applied)
                ), signed_in AS (
                    INSERT INTO events (user_handle, type, at, ip, user_agent, details)
                    SELECT \(e.userHandle), \(e.type), \(e.at), \(e.ip), \(e.userAgent), \(e.details)
                    WHERE \(signedInRow != nil) AND EXISTS (SELECT 1 FROM applied)
                ), regressed AS (
                    INSERT INTO events (user_handle, type, at, ip, user_agent, details)
                    SELECT \(r.userHandle), \(r.type), \(r.at), \(r.ip), \(r.userAgent), \(r.details)
                    WHERE \(regressionRow != nil) AND EXISTS (SELECT 1 FROM spent) AND NOT EXISTS (SELECT 1 FROM applied)
                )
                SELECT EXISTS (SELECT 1 FROM spent), (SELECT name FROM applied)
                """, logger: Self.quiet)
            let answer = try await Self.first(rows) { row -> (Bool, String?) in
                (try row[0].decode(Bool.self), try row[1].decode(String?.self))
            }
            guard let (spent, name) = answer else {
                throw StoreError.database("the finalize statement returned no row")
            }
            guard spent else { return .ceremonyGone }
            guard let name else { return .counterRegression }
            return .signedIn(userName: name)
        }
    }

    /// The compare-and-set of WebAuthn §7.2 step 25 in one statement; the account's name when it
    /// applied, nil when the counter did not rise (or there is no such credential).
    private static func applyAssertion(
        _ db: PostgresConnection, _ id: ByteBuffer, _ count: Int64, _ backupState: Bool, _ userVerified: Bool, _ at: Int64
    ) async throws -> String? {
        try await first(
            db.query(
                """
                UPDATE credentials AS c
                SET sign_count = \(count), backup_state = \(backupState),
                    uv_initialized = c.uv_initialized OR \(userVerified), last_used_at = \(at)
                FROM users AS u
                WHERE c.id = \(id) AND u.handle = c.user_handle
                  AND ((c.sign_count = 0 AND \(count) = 0) OR \(count) > c.sign_count)
                RETURNING u.name
                """, logger: quiet)
        ) { try $0.decode(String.self) }
    }

    // MARK: Users

    public func user(nameKey: String) async throws -> UserRecord? {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: UserRow.columns) FROM users WHERE name_key = \(nameKey)", logger: Self.quiet),
                UserRow.record)
        }
    }

    public func user(handle: [UInt8]) async throws -> UserRecord? {
        let handle = ByteBuffer(bytes: handle)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: UserRow.columns) FROM users WHERE handle = \(handle)", logger: Self.quiet),
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
    private static func insertAccount(_ db: PostgresConnection, _ credential: CredentialRow, _ user: UserRow?) async throws -> RegistrationOutcome? {
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
            \(c.lastUsedAt), \(c.possiblyCloned))
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
            VALUES (\(s.tokenHash), \(s.userHandle), \(s.createdAt), \(s.expiresAt), \(s.credentialID), \(s.via))
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

    public func deleteSession(tokenHash: [UInt8], event: AuditEvent?) async throws {
        let eventRow = try event.map(EventRow.init)
        let hash = ByteBuffer(bytes: tokenHash)
        try await transaction { db in
            if try await Self.count(db.query("DELETE FROM sessions WHERE token_hash = \(hash) RETURNING 1", logger: Self.quiet)) == 1 {
                try await Self.insert(db, eventRow)
            }
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

    // MARK: Secrets and maintenance

    public func secret(named name: String, candidate: [UInt8]) async throws -> [UInt8] {
        let candidate = ByteBuffer(bytes: candidate)
        return try await transaction { db in
            try await db.query(
                "INSERT INTO secrets (name, value) VALUES (\(name), \(candidate)) ON CONFLICT (name) DO NOTHING",
                logger: Self.quiet)
            guard let value = try await Self.first(
                db.query("SELECT value FROM secrets WHERE name = \(name)", logger: Self.quiet),
                { Array(try $0.decode(ByteBuffer.self).readableBytesView) })
            else {
                throw StoreError.database("secret \(name) vanished inside its transaction")
            }
            return value
        }
    }

    public func acceptMetadataNumber(_ number: Int) async throws -> Int? {
        let name = MetadataNumber.secretName
        let value = ByteBuffer(bytes: MetadataNumber.encode(number))
        return try await transaction { db in
            // Two instances starting at once with different BLOBs: one waits for the other.
            try await db.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.metadataLock))", logger: Self.quiet)
            let stored = try await Self.first(
                db.query("SELECT value FROM secrets WHERE name = \(name)", logger: Self.quiet),
                { Array(try $0.decode(ByteBuffer.self).readableBytesView) })
            if let previous = stored.flatMap(MetadataNumber.decode), number < previous { return previous }
            try await db.query(
                """
                INSERT INTO secrets (name, value) VALUES (\(name), \(value))
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, logger: Self.quiet)
            return nil
        }
    }

    /// One instance sweeps at a time (a try-lock); the others skip the round and report 0.
    public func sweepExpired(now: Date) async throws -> (ceremonies: Int, sessions: Int) {
        let cutoff = try now.storeMilliseconds()
        let counts: [Int] = try await transaction { db in
            let locked = try await Self.first(
                db.query("SELECT pg_try_advisory_xact_lock(\(PostgresSchema.sweepLock))", logger: Self.quiet),
                { try $0.decode(Bool.self) })
            guard locked == true else { return [0, 0] }
            let ceremonies = try await Self.count(db.query(
                "DELETE FROM ceremonies WHERE expires_at <= \(cutoff) RETURNING 1", logger: Self.quiet))
            let nonces = try await Self.count(db.query(
                "DELETE FROM apple_nonces WHERE expires_at <= \(cutoff) RETURNING 1", logger: Self.quiet))
            try await db.query("DELETE FROM apple_spent_tokens WHERE expires_at <= \(cutoff)", logger: Self.quiet)
            let old = cutoff - 30 * 86_400_000
            try await db.query("DELETE FROM apple_notifications WHERE received_at <= \(old)", logger: Self.quiet)
            let discoveries = try await Self.count(db.query(
                "DELETE FROM push_discoveries WHERE expires_at <= \(cutoff) RETURNING 1", logger: Self.quiet))
            let dayAgo = cutoff - 86_400_000
            try await db.query("DELETE FROM push_requests WHERE expires_at <= \(dayAgo)", logger: Self.quiet)
            // Messages for Business: an expired request's key goes at once, the request a day later.
            try await db.query(
                "UPDATE mfb_requests SET private_key = NULL WHERE expires_at <= \(cutoff) AND private_key IS NOT NULL", logger: Self.quiet)
            try await db.query("DELETE FROM mfb_grants WHERE expires_at <= \(cutoff)", logger: Self.quiet)
            try await db.query("DELETE FROM mfb_requests WHERE expires_at <= \(dayAgo)", logger: Self.quiet)
            let sessions = try await Self.count(db.query(
                "DELETE FROM sessions WHERE expires_at <= \(cutoff) RETURNING 1", logger: Self.quiet))
            return [ceremonies + nonces + discoveries, sessions]
        }
        return (counts[0], counts[1])
    }

    // MARK: Rows

    static func first<T>(_ rows: PostgresRowSequence, _ decode: (PostgresRandomAccessRow) throws -> T) async throws -> T? {
        var result: T?
        for try await row in rows where result == nil {
            result = try decode(row.makeRandomAccess())
        }
        return result
    }

    static func all<T>(_ rows: PostgresRowSequence, _ decode: (PostgresRandomAccessRow) throws -> T) async throws -> [T] {
        var result: [T] = []
        for try await row in rows {
            result.append(try decode(row.makeRandomAccess()))
        }
        return result
    }

    static func count(_ rows: PostgresRowSequence) async throws -> Int {
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }
}

extension PostgresRandomAccessRow {
    /// The first column, decoded.
    func decode<T: PostgresDecodable>(_ type: T.Type) throws -> T {
        try self[0].decode(T.self)
    }
}
