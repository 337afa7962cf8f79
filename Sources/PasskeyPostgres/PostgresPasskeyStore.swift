internal import Foundation
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
/// - The store's connections, its pool and its calls run on one thread of its own
///   (`DatabaseLoop`).
/// - Each call has a deadline (`timeout`): when the database cannot be reached, or does not
///   answer in time, the call throws `StoreError.unavailable` instead of hanging. The pool keeps
///   trying to connect in the background, so the store recovers by itself.
public final class PostgresPasskeyStore: PasskeyStore {
    private let client: PostgresClient
    /// Where the connections run, and the calls' tasks with them.
    private let loop: DatabaseLoop
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
        var configuration: PostgresClient.Configuration
        if let socketPath = location.socketPath {
            configuration = PostgresClient.Configuration(
                unixSocketPath: socketPath, username: location.user, password: location.password, database: location.database)
        } else {
            configuration = PostgresClient.Configuration(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: try Self.tls(location))
        }
        configuration.options.maximumConnections = max(1, poolSize)
        // No keep-alive query: PostgresNIO arms a keep-alive timer (a child task sleeping through
        // `dispatch_after`, cancelled at the next lease) each time a connection goes back to the
        // pool, a timer per query. The pool closes a connection idle for 30 s instead (its
        // default is 60 s), when the first keep-alive would have run, so that no idle connection
        // outlives a NAT's or a firewall's memory of it. (A minimum of connections kept open
        // would spare the other timer, the idle timeout's, but PostgresNIO 1.33's pool stops on
        // a precondition when a request comes while fewer than the minimum are up: an outage.)
        configuration.options.keepAliveBehavior = nil
        configuration.options.connectionIdleTimeout = .seconds(30)
        configuration.options.connectTimeout = timeout
        let milliseconds = Self.milliseconds(timeout)
        configuration.options.additionalStartupParameters = [
            ("statement_timeout", "\(milliseconds)"),
            ("idle_in_transaction_session_timeout", "\(max(milliseconds * 2, 1000))"),
            ("application_name", "passkey-server"),
        ]
        let loop = DatabaseLoop()
        let client = PostgresClient(configuration: configuration, eventLoopGroup: loop.loop, backgroundLogger: logger)
        self.client = client
        self.loop = loop
        // The pool runs on the loop too: a call waits on it for a new connection, and run on
        // Swift's global executor, behind whatever else the process was doing, it kept a call
        // waiting for seconds (seen with the whole test suite at once).
        self.runner = Task(executorPreference: loop) { await client.run() }
        self.timeout = timeout
        self.logger = logger
        self.onCommit = onCommit
        do {
            try await migrate()
        } catch {
            await close()
            throw error
        }
    }

    public func close() async {
        closed.withLock { $0 = true }
        runner.cancel()
        // Bounded like every call, so that a pool that does not wind down cannot keep the
        // process from exiting.
        let runner = runner
        let stopped = (try? await Self.firstOf({ await runner.value }, timeout: timeout)) != nil
        // The loop's thread ends once the pool has closed its connections; a pool that did not
        // wind down in time keeps it, rather than have its last answers find no loop.
        if stopped { await loop.shutdown() }
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
            return try await Self.firstOf(operation, timeout: timeout, on: loop)
        } catch let error as any RollbackOutcome {
            throw error
        } catch {
            throw Self.storeError(error)
        }
    }

    /// `operation`'s outcome, or `.unavailable` once `timeout` has passed (or the caller is
    /// cancelled), whichever comes first; the loser is cancelled and not waited for.
    ///
    /// The operation runs in a task of its own (so that the deadline can answer while it still
    /// runs), on `executor` when given (the store's `DatabaseLoop`). The deadline is an entry in
    /// `deadlines`, not a timer of its own: perf of finalizes on PostgreSQL found a sleeping task
    /// per call, and then an event loop's timer per call (set and cancelled from another thread,
    /// two wake-ups), among the store's larger costs.
    static func firstOf<T: Sendable>(
        _ operation: @escaping @Sendable () async throws -> T, timeout: Duration, on executor: (any TaskExecutor)? = nil
    ) async throws -> T {
        let race = Race<T>()
        let due = ContinuousClock.now.advanced(by: timeout)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = Task(executorPreference: executor) {
                    do { race.answer(.success(try await operation())) } catch { race.answer(.failure(error)) }
                }
                let deadline = deadlines.watch(until: due) {
                    race.answer(.failure(StoreError.unavailable("PostgreSQL did not answer within \(timeout)")))
                }
                race.start(continuation, task: task, deadline: deadline)
            }
        } onCancel: {
            race.answer(.failure(CancellationError()))
        }
    }

    /// Every store's deadlines, at most 50 ms late (against a default timeout of 5 s).
    static let deadlines = DeadlineWatch(tick: .milliseconds(50))

    /// The continuation of `firstOf`, resumed once, with the first answer (which may come
    /// before the continuation is stored); the operation's task is cancelled and the deadline
    /// forgotten then.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var task: Task<Void, Never>?
            var deadline: UInt64?
            var first: Result<T, any Error>?
        }
        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<T, any Error>, task: Task<Void, Never>, deadline: UInt64) {
            let first = state.withLock { state -> Result<T, any Error>? in
                state.task = task
                state.deadline = deadline
                if state.first == nil { state.continuation = continuation }
                return state.first
            }
            if let first {
                task.cancel()
                PostgresPasskeyStore.deadlines.forget(deadline)
                continuation.resume(with: first)
            }
        }

        func answer(_ result: Result<T, any Error>) {
            let (continuation, task, deadline) = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?, UInt64?) in
                guard state.first == nil else { return (nil, nil, nil) }
                state.first = result
                defer { state.continuation = nil }
                return (state.continuation, state.task, state.deadline)
            }
            task?.cancel()
            if let deadline { PostgresPasskeyStore.deadlines.forget(deadline) }
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
}
