internal import PasskeyStorage
/// Connection setup and the versioned schema.
///
/// `PRAGMA user_version` holds the number of migrations applied. Migrations are append-only:
/// never edit a shipped one, add the next to `migrations`.
enum Schema {
    /// Each migration is a list of single statements run in one transaction, together with the
    /// bump of `user_version`.
    static let migrations: [[String]] = [
        migration1, migration2, migration3, migration4, migration5, migration6, migration7, migration8, migration9, migration10,
        migration11, migration12, migration13, migration14, migration15, migration16, migration17, migration18, migration19, migration20,
        migration21, migration22, migration23, migration24, migration25, migration26, migration27, migration28, migration29, migration30,
        migration31, migration32, migration33,
    ]

    static var currentVersion: Int { migrations.count }

    /// Per-connection settings, then migrations. Runs on the database queue right after open.
    static func prepare(_ db: SQLiteConnection) throws {
        try db.setBusyTimeout(milliseconds: 5000)

        // WAL is persistent in the file; the pragma answers with the mode now in force.
        let mode = try db.row("PRAGMA journal_mode = WAL", cached: false) { $0.text(0) }
        guard mode?.lowercased() == "wal" else {
            throw StoreError.database("journal_mode is \(mode ?? "unknown"), expected wal")
        }
        // FULL: a commit returns only after the WAL is fsynced, so a 200 means the data is on disk.
        try db.execute("PRAGMA synchronous = FULL", cached: false)
        // Off by default in SQLite, per connection, and a no-op inside a transaction.
        try db.execute("PRAGMA foreign_keys = ON", cached: false)
        let foreignKeys = try db.row("PRAGMA foreign_keys", cached: false) { $0.int64(0) }
        guard foreignKeys == 1 else {
            throw StoreError.database("foreign keys are not supported by this SQLite build")
        }
        try keepTemporaryFilesInMemory(db)

        try migrate(db)
    }

    /// Temporary storage in memory, above all the sub-journals: when a group is run again after
    /// a failed write, each write runs in its own SAVEPOINT, so SQLite keeps the first image of
    /// every page it changes to be able to roll it back. Past 64 KiB that journal went to a new
    /// file in /var/tmp for every group (created, written page by page, deleted): under the
    /// finalize load, a third of the writer's pwrite calls. The images are only ever needed by a
    /// rollback of the open transaction.
    static func keepTemporaryFilesInMemory(_ db: SQLiteConnection) throws {
        try db.execute("PRAGMA temp_store = MEMORY", cached: false)
        guard try db.row("PRAGMA temp_store", cached: false, { $0.int64(0) }) == 2 else {
            throw StoreError.database("temp_store = MEMORY is not supported by this SQLite build")
        }
    }

    /// A reader connection: the same busy timeout, and no writes by mistake.
    static func prepareReader(_ db: SQLiteConnection) throws {
        try db.setBusyTimeout(milliseconds: 5000)
        try db.execute("PRAGMA query_only = 1", cached: false)
    }

    static func userVersion(_ db: SQLiteConnection) throws -> Int {
        Int(try db.row("PRAGMA user_version") { $0.int64(0) } ?? 0)
    }

    static func migrate(_ db: SQLiteConnection) throws {
        let found = try userVersion(db)
        guard found <= currentVersion else {
            throw StoreError.database(
                "database schema version \(found) is newer than this program's \(currentVersion)")
        }
        for (index, statements) in migrations.enumerated() where index + 1 > found {
            let target = index + 1
            try db.transaction {
                // Re-read under the write lock: another process may have migrated meanwhile.
                guard try userVersion(db) < target else { return }
                for statement in statements {
                    try db.execute(statement, cached: false)
                }
                // PRAGMA takes no bound parameters; `target` is a program constant, not input.
                try db.execute("PRAGMA user_version = \(target)", cached: false)
            }
        }
    }
}
