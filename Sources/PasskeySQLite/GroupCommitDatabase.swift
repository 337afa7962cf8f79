internal import PasskeyStorage
import Dispatch
internal import Synchronization

/// The SQLite file as the store uses it: one writer connection that commits in groups, and a
/// pool of reader connections (WAL lets readers run beside the writer).
///
/// Group commit: a write is a job, a closure run against the writer connection. Jobs that are
/// waiting when the writer becomes free run together in one transaction — a job that throws is
/// rolled back alone: the group then runs again, each job inside its own SAVEPOINT — and share
/// one COMMIT, which with `synchronous=FULL` is one fsync of the WAL. Every caller is answered
/// only after that COMMIT returned: a job's success means its rows are on disk. While one
/// group's fsync runs, the next group gathers, so under load one fsync carries many ceremonies.
///
/// A write may be marked not durable (a pending ceremony: losing it costs the user a retry, and
/// nothing that was answered depends on it). A group of only such writes commits with
/// `synchronous=NORMAL`: its rows are in the WAL file, visible to every connection and process
/// and kept if this process dies, but not fsynced; the next durable commit's fsync of the WAL
/// carries them too. A group with any durable write commits with FULL, as always.
///
/// The WAL is copied back into the database file beside the writer, by `WALCheckpointer`, not
/// inside the COMMIT that finds it long as SQLite would.
///
/// The writer is confined to its own serial DispatchQueue (GRDB's model), so its blocking calls
/// (fsync, busy waits) never run on Swift's cooperative thread pool. Reads run where they are
/// called, on a pooled connection: a WAL read never waits for the writer, and a hop to another
/// thread would cost more than the read.
final class GroupCommitDatabase: Sendable {
    private let writer: ConfinedConnection
    private let readers: ReaderPool
    let checkpointer: WALCheckpointer
    /// The WAL's size after the writer's last commit; used only on the writer's queue (tests
    /// read it inside `exclusive`).
    let walSize = WALSize()
    private let pending = Mutex(Pending())
    /// The writer's `synchronous` setting; used only on the writer's queue.
    private let synchronous = SynchronousMode()
    /// Called after each durable group with (jobs in the group, seconds the COMMIT took).
    let onCommit: @Sendable (Int, Double) -> Void

    struct Pending: ~Copyable {
        var jobs: [WriteJob] = []
        var drainScheduled = false
    }

    /// Opens the writer, runs `prepare` on it (pragmas, migrations), then opens `readerCount`
    /// reader connections with `prepareReader`, and the checkpointer's connection, which starts
    /// a checkpoint when a commit leaves `walFrames` frames or more in the WAL.
    init(
        path: String, label: String, readerCount: Int = 2,
        prepare: @escaping @Sendable (SQLiteConnection) throws -> Void,
        prepareReader: @escaping @Sendable (SQLiteConnection) throws -> Void,
        checkpointAt walFrames: Int32 = WALCheckpointer.defaultStartFrames,
        onCommit: @escaping @Sendable (Int, Double) -> Void = { _, _ in }
    ) async throws {
        writer = try await ConfinedConnection(path: path, label: label + ".writer", prepare: prepare)
        readers = ReaderPool(path: path, prepare: prepareReader, idleLimit: max(readerCount, 1))
        do {
            // Open one now, so that a bad file is refused at start-up rather than at the first read.
            _ = try readers.read { try Schema.userVersion($0) }
            checkpointer = try await WALCheckpointer(path: path, label: label + ".checkpointer", startFrames: walFrames)
        } catch {
            readers.close()
            await writer.close()
            throw error
        }
        self.onCommit = onCommit
        let walSize = walSize
        do {
            try await writer.perform { connection in
                try connection.onWALCommit { frames in walSize.frames = frames }
            }
        } catch {
            await close()
            throw error
        }
    }

    /// Runs a read on a pooled reader connection, on the calling thread. It sees every write
    /// whose caller has been answered.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try readers.read(body)
    }

    /// Runs a write inside the next group's transaction, in its own savepoint; returns once the
    /// group has committed (with `durable`, the default, once it is fsynced). If `body` throws,
    /// its savepoint is rolled back (the rest of the group commits) and the error is rethrown.
    /// If the COMMIT fails, every job of the group fails.
    func write<T: Sendable>(durable: Bool = true, _ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let outcome = JobOutcome<T>()
            let job = WriteJob(
                durable: durable,
                execute: { connection in outcome.value = try body(connection) },
                complete: { error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let value = outcome.value {
                        continuation.resume(returning: value)
                    } else {
                        continuation.resume(throwing: StoreError.database("a write finished without a result"))
                    }
                })
            let schedule = pending.withLock { state -> Bool in
                state.jobs.append(job)
                guard !state.drainScheduled else { return false }
                state.drainScheduled = true
                return true
            }
            if schedule {
                writer.async { connection in self.drain(connection) }
            }
        }
    }

    /// Writes waiting for the next group.
    var queuedWrites: Int {
        pending.withLock { $0.jobs.count }
    }

    /// Runs `body` on the writer outside any group (migrations, maintenance that manages its own
    /// transaction).
    func exclusive<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await writer.perform { connection in
            try self.synchronous.set(full: true, on: connection)
            return try body(connection)
        }
    }

    /// Closes every connection once the work already queued has run.
    func close() async {
        await writer.close()
        await checkpointer.close()
        readers.close()
    }

    /// On the writer's queue: takes every waiting job and commits them as one group.
    private func drain(_ connection: SQLiteConnection?) {
        let jobs = pending.withLock { state -> [WriteJob] in
            let jobs = state.jobs
            state.jobs = []
            state.drainScheduled = false
            return jobs
        }
        guard !jobs.isEmpty else { return }
        guard let connection else {
            for job in jobs { job.complete(StoreError.closed) }
            return
        }
        let durable = Self.needsSync(jobs)
        func failAll(_ error: any Error) {
            let storeError = (error as? SQLiteError)?.storeError ?? error
            for job in jobs { job.complete(storeError) }
        }
        do {
            try synchronous.set(full: durable, on: connection)
        } catch {
            return failAll(error)
        }
        // First without savepoints: a job rarely fails, and a savepoint and its release are two
        // statements a job, a fair share of a small group's work. When a job does fail, the
        // whole transaction is rolled back and the group runs again, each job in a savepoint of
        // its own, so that only the failed job's writes are undone.
        let failures: [(any Error)?]
        switch Self.runWithoutSavepoints(jobs, on: connection) {
        case .ran:
            failures = Array(repeating: nil, count: jobs.count)
        case .groupFailed(let error):
            return failAll(error)
        case .aJobFailed:
            connection.rollbackIfNeeded()
            switch Self.runInSavepoints(jobs, on: connection) {
            case .success(let each): failures = each
            case .failure(let error): return failAll(error)
            }
        }
        let started = DispatchTime.now().uptimeNanoseconds
        do {
            try connection.execute("COMMIT")
        } catch {
            connection.rollbackIfNeeded()
            return failAll(error)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        if durable { onCommit(jobs.count, seconds) }
        for (job, failure) in zip(jobs, failures) { job.complete(failure) }
        checkpointer.afterCommit(walFrames: walSize.frames, writer: connection)
    }

    /// How a group run without savepoints ended.
    enum FirstRun {
        /// Every job ran without an error.
        case ran
        /// A job failed, and the transaction holds part of its writes: roll back, and run the
        /// group again in savepoints.
        case aJobFailed
        /// The transaction cannot be trusted; it has been rolled back.
        case groupFailed(any Error)
    }

    /// BEGIN, then each job; the first failure stops the group.
    static func runWithoutSavepoints(_ jobs: [WriteJob], on connection: SQLiteConnection) -> FirstRun {
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            return .groupFailed(error)
        }
        for job in jobs {
            do { try job.execute(connection) } catch { return .aJobFailed }
        }
        return .ran
    }

    /// BEGIN, then each job in a savepoint of its own: a job's failure undoes its writes only,
    /// and is that job's answer. A failure of the savepoints themselves fails the group (the
    /// transaction is rolled back).
    static func runInSavepoints(_ jobs: [WriteJob], on connection: SQLiteConnection) -> Result<[(any Error)?], any Error> {
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            return .failure(error)
        }
        var failures: [(any Error)?] = Array(repeating: nil, count: jobs.count)
        for (index, job) in jobs.enumerated() {
            do {
                try connection.execute("SAVEPOINT job")
                do {
                    try job.execute(connection)
                    try connection.execute("RELEASE job")
                } catch {
                    try connection.execute("ROLLBACK TO job")
                    try connection.execute("RELEASE job")
                    failures[index] = (error as? SQLiteError)?.storeError ?? error
                }
            } catch {
                // The savepoint machinery itself failed: the transaction cannot be trusted.
                connection.rollbackIfNeeded()
                return .failure(error)
            }
        }
        return .success(failures)
    }

    /// Whether the group's COMMIT must fsync: when any of its writes is durable.
    static func needsSync(_ jobs: [WriteJob]) -> Bool {
        jobs.contains { $0.durable }
    }
}

/// The writer connection's `PRAGMA synchronous`, changed only when a group needs the other
/// setting. When the PRAGMA fails the setting is unknown, and it is set again before the next
/// group: a durable group never commits unless FULL was set without error.
//
// @unchecked Sendable: used only on the writer's serial queue.
final class SynchronousMode: @unchecked Sendable {
    /// nil: unknown. The writer is opened with FULL (Schema.prepare).
    private var full: Bool? = true

    func set(full wanted: Bool, on connection: SQLiteConnection) throws {
        guard full != wanted else { return }
        full = nil
        // Not a cached statement: this PRAGMA takes effect when it is prepared, not when stepped.
        try connection.execute(wanted ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL", cached: false)
        full = wanted
    }
}

/// The WAL's size in frames, as the writer's WAL hook last reported it.
//
// @unchecked Sendable: written by the hook inside a COMMIT and read after it, both on the
// writer's serial queue.
final class WALSize: @unchecked Sendable {
    var frames: Int32 = 0
}

/// One queued write: `execute` runs on the writer inside the group's transaction; `complete`
/// answers the caller after the COMMIT (nil: success).
struct WriteJob: Sendable {
    let durable: Bool
    let execute: @Sendable (SQLiteConnection) throws -> Void
    let complete: @Sendable ((any Error)?) -> Void
}

/// Where a job leaves its result between `execute` and `complete`.
//
// @unchecked Sendable: written by `execute` and read by `complete`, both on the writer's serial
// queue, one after the other.
final class JobOutcome<T>: @unchecked Sendable {
    var value: T?
}

/// Reader connections, taken and returned around each read. A read runs without suspending, so
/// no more reads run at once than threads call in; beyond `idleLimit` idle connections, a
/// returned one is closed.
final class ReaderPool: Sendable {
    /// @unchecked Sendable: a connection is used by one read at a time — it is either in the
    /// idle list (under the lock) or held by exactly one caller.
    final class Pooled: @unchecked Sendable {
        let connection: SQLiteConnection
        init(_ connection: SQLiteConnection) { self.connection = connection }
    }

    private struct State {
        var idle: [Pooled] = []
        var closed = false
    }

    private let path: String
    private let prepare: @Sendable (SQLiteConnection) throws -> Void
    private let idleLimit: Int
    private let state = Mutex(State())

    init(path: String, prepare: @escaping @Sendable (SQLiteConnection) throws -> Void, idleLimit: Int) {
        self.path = path
        self.prepare = prepare
        self.idleLimit = idleLimit
    }

    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let taken = try state.withLock { state -> Pooled? in
            guard !state.closed else { throw StoreError.closed }
            return state.idle.popLast()
        }
        let pooled: Pooled
        if let taken {
            pooled = taken
        } else {
            do {
                let connection = try SQLiteConnection(path: path)
                try prepare(connection)
                pooled = Pooled(connection)
            } catch let error as SQLiteError {
                throw error.storeError
            }
        }
        defer {
            let keep = state.withLock { state -> Bool in
                guard !state.closed, state.idle.count < idleLimit else { return false }
                state.idle.append(pooled)
                return true
            }
            if !keep { pooled.connection.close() }
        }
        do {
            return try body(pooled.connection)
        } catch let error as SQLiteError {
            throw error.storeError
        }
    }

    func close() {
        let idle = state.withLock { state -> [Pooled] in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for pooled in idle { pooled.connection.close() }
    }
}

/// One SQLite connection confined to one serial DispatchQueue.
//
// @unchecked Sendable: `connection` is read and written only inside blocks on `queue`, which is
// serial; `queue` itself is thread-safe and immutable.
final class ConfinedConnection: @unchecked Sendable {
    private let queue: DispatchQueue
    private var connection: SQLiteConnection?

    init(path: String, label: String, prepare: @escaping @Sendable (SQLiteConnection) throws -> Void) async throws {
        queue = DispatchQueue(label: label)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                continuation.resume(with: Result {
                    do {
                        let connection = try SQLiteConnection(path: path)
                        do {
                            try prepare(connection)
                        } catch {
                            connection.close()
                            throw error
                        }
                        self.connection = connection
                    } catch let error as SQLiteError {
                        throw error.storeError
                    }
                })
            }
        }
    }

    /// Runs `body` on the queue with the connection (nil once closed), without waiting.
    func async(_ body: @escaping @Sendable (SQLiteConnection?) -> Void) {
        queue.async { body(self.connection) }
    }

    func perform<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result {
                    guard let connection = self.connection else { throw StoreError.closed }
                    do {
                        return try body(connection)
                    } catch let error as SQLiteError {
                        throw error.storeError
                    }
                })
            }
        }
    }

    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.connection?.close()
                self.connection = nil
                continuation.resume()
            }
        }
    }
}
