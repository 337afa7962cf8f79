internal import PasskeyStorage
internal import CPasskeySQLite
import Foundation

/// Owns one `sqlite3*` connection and its cache of prepared statements; closes it in `deinit`.
///
/// Not Sendable: it is confined to `SerialDatabase`'s queue, so SQLite is only ever entered by
/// one thread at a time (the connection is opened with SQLITE_OPEN_NOMUTEX accordingly).
final class SQLiteConnection {
    private var handle: OpaquePointer?
    private var cache: [String: SQLiteStatement] = [:]
    /// What `onWALCommit` installed; kept alive here, as SQLite holds only its address.
    private var walHook: WALHook?

    /// Opens (creating if missing) the database file at `path`.
    init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)  // a failed open still allocates a handle; NULL is harmless
            throw SQLiteError(resultCode: rc, message: message, context: "open")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        close()
    }

    /// Finalizes the cached statements and closes the connection. Idempotent.
    func close() {
        cache.removeAll()  // finalizes each statement (SQLiteStatement.deinit)
        if let handle {
            if walHook != nil { sqlite3_wal_hook(handle, nil, nil) }
            // _v2: should a statement still be alive, the close is deferred until it is finalized.
            sqlite3_close_v2(handle)
        }
        handle = nil
        walHook = nil
    }

    // MARK: Settings

    /// Milliseconds a statement waits on a lock held by another connection before SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int32) throws {
        let db = try openHandle()
        let rc = sqlite3_busy_timeout(db, milliseconds)
        guard rc == SQLITE_OK else { throw Self.error(rc, db: db, context: "busy_timeout") }
    }

    /// Calls `body` with the WAL's size in frames after each commit on this connection, in place
    /// of SQLite's automatic checkpoint (which this turns off: the two share one hook). `body`
    /// runs inside the COMMIT, on the committing thread, and must not use the connection.
    func onWALCommit(_ body: @escaping (_ frames: Int32) -> Void) throws {
        let db = try openHandle()
        let hook = WALHook(body)
        walHook = hook
        sqlite3_wal_hook(db, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<WALHook>.fromOpaque(context).takeUnretainedValue().body(frames)
            return SQLITE_OK
        }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// A PASSIVE checkpoint of the main database: copies into the database file every WAL frame
    /// that no reader still needs, without waiting for any lock, and fsyncs the file as the
    /// connection's `synchronous` says.
    func checkpointPassive() throws {
        let db = try openHandle()
        let rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        // BUSY: another connection's checkpoint is running; it does the same work.
        guard rc == SQLITE_OK || rc == SQLITE_BUSY else { throw Self.error(rc, db: db, context: "wal_checkpoint") }
    }

    // MARK: Statements

    /// Runs one statement to completion, ignoring any rows it returns.
    func execute(_ sql: String, _ arguments: [SQLiteValue] = [], cached: Bool = true) throws {
        try withStatement(sql, arguments, cached: cached) { statement in
            while try statement.step() {}
        }
    }

    /// Runs one statement to completion and decodes every row it returns.
    func rows<T>(
        _ sql: String, _ arguments: [SQLiteValue] = [], cached: Bool = true,
        _ decode: (SQLiteRow) throws -> T
    ) throws -> [T] {
        try withStatement(sql, arguments, cached: cached) { statement in
            var result: [T] = []
            while try statement.step() {
                result.append(try decode(SQLiteRow(statement: statement.pointer)))
            }
            return result
        }
    }

    /// Runs one statement that returns at most one row.
    func row<T>(
        _ sql: String, _ arguments: [SQLiteValue] = [], cached: Bool = true,
        _ decode: (SQLiteRow) throws -> T
    ) throws -> T? {
        let all = try rows(sql, arguments, cached: cached, decode)
        guard all.count <= 1 else {
            throw StoreError.database("expected at most one row, got \(all.count): \(sql)")
        }
        return all.first
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE on this connection.
    func changes() throws -> Int {
        Int(sqlite3_changes64(try openHandle()))
    }

    /// Runs `body` inside BEGIN IMMEDIATE … COMMIT; rolls back if it throws or COMMIT fails.
    ///
    /// IMMEDIATE takes the write lock up front, so a second process waits (busy timeout) at BEGIN
    /// instead of failing half-way through with SQLITE_BUSY on a read-to-write upgrade.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollbackIfNeeded()
            throw error
        }
    }

    func rollbackIfNeeded() {
        guard let handle, sqlite3_get_autocommit(handle) == 0 else { return }
        // A failed ROLLBACK leaves nothing better to do; the original error is what matters.
        try? execute("ROLLBACK")
    }

    /// Binds, hands the statement to `body`, and always resets it afterwards (a statement left
    /// mid-step would keep its transaction open).
    private func withStatement<T>(
        _ sql: String, _ arguments: [SQLiteValue], cached: Bool,
        _ body: (SQLiteStatement) throws -> T
    ) throws -> T {
        let statement = try prepare(sql, cached: cached)
        defer { statement.reset() }
        try statement.bind(arguments)
        return try body(statement)
    }

    private func prepare(_ sql: String, cached: Bool) throws -> SQLiteStatement {
        if cached, let statement = cache[sql] { return statement }
        let db = try openHandle()
        var pointer: OpaquePointer?
        var trailing = ""
        let flags = cached ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(db, text, -1, flags, &pointer, &tail)
            if let tail { trailing = String(cString: tail) }
            return rc
        }
        guard rc == SQLITE_OK, let pointer else {
            sqlite3_finalize(pointer)
            throw Self.error(rc, db: db, context: sql)
        }
        let statement = SQLiteStatement(pointer: pointer, sql: sql)
        // One statement per call: anything after the first would silently never run.
        guard trailing.allSatisfy({ $0.isWhitespace || $0 == ";" }) else {
            throw StoreError.database("more than one statement in: \(sql)")
        }
        if cached { cache[sql] = statement }
        return statement
    }

    private func openHandle() throws -> OpaquePointer {
        guard let handle else { throw StoreError.closed }
        return handle
    }

    // MARK: Errors

    static func error(_ rc: Int32, statement: SQLiteStatement) -> SQLiteError {
        error(rc, db: sqlite3_db_handle(statement.pointer), context: statement.sql)
    }

    static func error(_ rc: Int32, db: OpaquePointer?, context: String) -> SQLiteError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        return SQLiteError(resultCode: rc, message: message, context: context)
    }
}

/// The closure `SQLiteConnection.onWALCommit` installed, boxed so SQLite can hold its address.
final class WALHook {
    let body: (Int32) -> Void
    init(_ body: @escaping (Int32) -> Void) { self.body = body }
}

/// A failed SQLite call, inside the module. `SerialDatabase` turns it into a `StoreError`
/// at the public boundary; the store inspects `isConstraintViolation` first where it matters.
struct SQLiteError: Error {
    /// The extended result code (extended codes are switched on for the connection).
    let resultCode: Int32
    let message: String
    /// The SQL text or operation that failed (never bound values).
    let context: String

    var isConstraintViolation: Bool { resultCode & 0xFF == SQLITE_CONSTRAINT }

    var storeError: StoreError {
        .database("SQLite error \(resultCode) (\(message)) in: \(context)")
    }
}
