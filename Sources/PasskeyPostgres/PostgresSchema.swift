/// The PostgreSQL schema, in versioned migrations.
///
/// `schema_migrations` holds one row per applied migration, with whether it only adds (new
/// tables, columns, indexes). Whichever instance starts first migrates, under an advisory lock
/// held for the migration's transaction; the others wait, then find nothing to do. An older
/// program starts on a newer schema when every migration it does not know only adds: that is
/// what lets old instances keep serving during a rolling upgrade. Migrations are append-only:
/// never edit a shipped one.
///
/// The tables mirror the SQLite schema: times are bigint milliseconds since 1970 UTC, so both
/// stores round the same way; lists are arrays.
enum PostgresSchema {
    struct Migration {
        /// True when the migration only adds, so a program that predates it still works.
        let additive: Bool
        let statements: [String]
    }

    static let migrations: [Migration] = [
        migration1, migration2, migration3, migration4, migration5, migration6, migration7, migration8, migration9, migration10,
        migration11, migration12, migration13, migration14, migration15, migration16, migration17, migration18, migration19, migration20,
        migration21, migration22, migration23, migration24, migration25, migration26, migration27, migration28, migration29, migration30,
        migration31, migration32, migration33,
    ]

    static var currentVersion: Int { migrations.count }

    /// Advisory lock keys, one per purpose (the bytes spell "passkey" and a number).
    static let migrationLock: Int64 = 0x7061_7373_6B65_7901
    static let sweepLock: Int64 = 0x7061_7373_6B65_7902
    static let metadataLock: Int64 = 0x7061_7373_6B65_7903

    static let ledger = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version    integer NOT NULL PRIMARY KEY,
            additive   boolean NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """
}
