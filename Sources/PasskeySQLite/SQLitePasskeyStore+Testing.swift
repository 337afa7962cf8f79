internal import PasskeyStorage
// Internal operations the tests reach with `@testable import`; not part of the public API.

extension SQLitePasskeyStore {
    /// Connection settings a test can read back.
    enum Pragma: String, Sendable {
        case journalMode = "journal_mode"
        case synchronous
        case foreignKeys = "foreign_keys"
        case busyTimeout = "busy_timeout"
        case tempStore = "temp_store"
        case walAutocheckpoint = "wal_autocheckpoint"
    }

    /// The value of `pragma` on the store's writer connection, as text.
    func pragmaValue(_ pragma: Pragma) async throws -> String {
        try await database.exclusive { db in
            // The name comes from the enum above, never from input.
            try db.row("PRAGMA \(pragma.rawValue)", cached: false) { $0.text(0) } ?? ""
        }
    }
}
