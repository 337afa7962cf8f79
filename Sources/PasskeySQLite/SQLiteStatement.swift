internal import PasskeyStorage
internal import CPasskeySQLite

/// Owns one prepared statement (`sqlite3_stmt*`) and finalizes it in `deinit`.
///
/// Not Sendable: like its connection, it is only used on the database queue.
final class SQLiteStatement {
    let pointer: OpaquePointer
    let sql: String

    init(pointer: OpaquePointer, sql: String) {
        self.pointer = pointer
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(pointer)
    }

    /// Binds `values` to parameters 1…n. The count must match the statement's parameters.
    func bind(_ values: [SQLiteValue]) throws {
        let expected = Int(sqlite3_bind_parameter_count(pointer))
        guard values.count == expected else {
            throw StoreError.database("statement wants \(expected) parameters, got \(values.count): \(sql)")
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .integer(let integer):
                rc = sqlite3_bind_int64(pointer, index, integer)
            case .text(let text):
                let count = text.utf8.count
                guard let length = Int32(exactly: count) else { throw StoreError.database("text too long") }
                rc = text.withCString { passkey_sqlite3_bind_text(pointer, index, $0, length) }
            case .blob(let bytes):
                guard let length = Int32(exactly: bytes.count) else { throw StoreError.database("blob too long") }
                rc = bytes.withUnsafeBytes { passkey_sqlite3_bind_blob(pointer, index, $0.baseAddress, length) }
            case .null:
                rc = sqlite3_bind_null(pointer, index)
            }
            guard rc == SQLITE_OK else { throw SQLiteConnection.error(rc, statement: self) }
        }
    }

    /// Steps once: true when a row is available, false when the statement is done.
    func step() throws -> Bool {
        let rc = sqlite3_step(pointer)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteConnection.error(rc, statement: self)
        }
    }

    /// Ends the current execution (committing its implicit transaction) and drops the bindings,
    /// so the statement can be reused from the cache.
    func reset() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
    }
}

/// The current row of a stepping statement. Valid only until the next step or reset.
struct SQLiteRow {
    let statement: OpaquePointer
    /// Added to every column index: a joined row's second record reads its columns from 0.
    var offset: Int32 = 0

    /// The same row with its columns counted from `first` on (the columns of a joined table).
    func columns(from first: Int32) -> SQLiteRow {
        SQLiteRow(statement: statement, offset: offset + first)
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column + offset) == SQLITE_NULL
    }

    /// The column's value as it is stored, whatever its type (a REAL reads as its text).
    func value(_ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, column + offset) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(int64(column))
        case SQLITE_BLOB: .blob(blob(column))
        default: .text(text(column))
        }
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column + offset)
    }

    func bool(_ column: Int32) -> Bool {
        int64(column) != 0
    }

    func text(_ column: Int32) -> String {
        // Ask for the text first, then its length (the order SQLite documents).
        guard let bytes = sqlite3_column_text(statement, column + offset) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column + offset))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    func blob(_ column: Int32) -> [UInt8] {
        // A zero-length blob comes back as a NULL pointer.
        guard let bytes = sqlite3_column_blob(statement, column + offset) else { return [] }
        let count = Int(sqlite3_column_bytes(statement, column + offset))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    func optionalBlob(_ column: Int32) -> [UInt8]? {
        isNull(column) ? nil : blob(column)
    }

    func optionalInt64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int64(column)
    }
}
