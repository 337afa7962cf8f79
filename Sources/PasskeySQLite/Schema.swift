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
        migration21, migration22, migration23, migration24, migration25, migration26, migration27, migration28,
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

    /// Temporary storage in memory, above all the sub-journals: each write of a group runs in its
    /// own SAVEPOINT, so SQLite keeps the first image of every page it changes to be able to roll
    /// it back. Past 64 KiB that journal went to a new file in /var/tmp for every group (created,
    /// written page by page, deleted): under the finalize load, a third of the writer's pwrite
    /// calls. The images are only ever needed by a rollback of the open transaction.
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

    /// Version 28: which clients `--clients-file` made (the start reconciles only those). Only
    /// adds.
    static let migration28: [String] = [
        "ALTER TABLE oauth_clients ADD COLUMN clients_file INTEGER NOT NULL DEFAULT 0",
    ]

    /// Version 27: which rule made the stored name keys (1: lower case; `rekeyNames` moves them
    /// to a later one), and the accounts a new rule left on their old key. Only adds.
    static let migration27: [String] = [
        """
        CREATE TABLE name_key_rules (
            id         INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
            version    INTEGER NOT NULL,
            collisions TEXT    NOT NULL
        ) STRICT
        """,
        "INSERT INTO name_key_rules (id, version, collisions) VALUES (1, 1, '[]')",
    ]

    /// Version 26: when an account's profile last changed (the `updated_at` claim), and the
    /// display name an invitation gives its new account. Only adds.
    static let migration26: [String] = [
        "ALTER TABLE users ADD COLUMN updated_at INTEGER",
        "ALTER TABLE invitations ADD COLUMN display_name TEXT",
    ]

    /// Version 25: back-channel logouts queued by the command line for a serving instance to
    /// send. Only adds.
    static let migration25: [String] = [
        """
        CREATE TABLE logout_outbox (
            id          INTEGER PRIMARY KEY AUTOINCREMENT,
            client_id   TEXT    NOT NULL,
            user_handle BLOB    NOT NULL,
            sid         TEXT    NOT NULL,
            created_at  INTEGER NOT NULL
        ) STRICT
        """,
    ]

    /// Version 24: counters of the limits that hold across processes on one database (recovery
    /// attempts, wrong device user codes, push sign-in requests), a row per key and window.
    /// Only adds.
    static let migration24: [String] = [
        """
        CREATE TABLE attempt_counters (
            key          TEXT    NOT NULL,
            window_start INTEGER NOT NULL,
            count        INTEGER NOT NULL CHECK (count > 0),
            PRIMARY KEY (key, window_start)
        ) STRICT, WITHOUT ROWID
        """,
        "CREATE INDEX attempt_counters_by_window ON attempt_counters (window_start)",
    ]

    /// Version 23: the Messages for Business client among the OpenID provider's clients. Only adds.
    static let migration23: [String] = [
        "ALTER TABLE oauth_clients ADD COLUMN mfb INTEGER NOT NULL DEFAULT 0 CHECK (mfb IN (0, 1))",
    ]

    /// Version 22: Messages for Business requests sent through Apple's gateway keep the message's
    /// `id` header and the gateway's answer. Only adds.
    static let migration22: [String] = [
        "ALTER TABLE mfb_requests ADD COLUMN gateway_message_id TEXT",
        "ALTER TABLE mfb_requests ADD COLUMN gateway_status INTEGER",
    ]

    /// Version 21: each push device's APNs environment (docs/contracts/push.md), and a push request replaced by
    /// a newer one told apart from one that expired. Only adds; a device without an environment
    /// has the server's `--apns-environment`.
    static let migration21: [String] = [
        "ALTER TABLE push_devices ADD COLUMN apns_environment TEXT CHECK (apns_environment IN ('production', 'sandbox'))",
    ]

    /// Version 20: recoveries made to wait (`--recovery-delay`). Only adds.
    static let migration20: [String] = [
        """
        CREATE TABLE recovery_requests (
            id_hash     BLOB    NOT NULL PRIMARY KEY CHECK (length(id_hash) = 32),
            public_id   TEXT    NOT NULL UNIQUE,
            user_handle BLOB    NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            created_at  INTEGER NOT NULL,
            ready_at    INTEGER NOT NULL,
            ip          TEXT,
            user_agent  TEXT,
            state       TEXT    NOT NULL CHECK (state IN ('waiting', 'cancelled', 'claimed'))
        ) STRICT
        """,
        "CREATE INDEX recovery_requests_by_user ON recovery_requests (user_handle, state)",
    ]

    /// Version 19: the tamper-evident audit trail (docs/contracts/accounts.md): each event's `prev_hash` and
    /// `hash`, the chain's head row, and signed checkpoints. Events stored before it stay
    /// unchained, before the chain's first event. Only adds.
    static let migration19: [String] = [
        "ALTER TABLE events ADD COLUMN prev_hash BLOB",
        "ALTER TABLE events ADD COLUMN hash BLOB",
        """
        CREATE TABLE audit_chain (
            id         INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
            start_hash BLOB    NOT NULL,
            head_id    INTEGER NOT NULL,
            head_hash  BLOB    NOT NULL
        ) STRICT
        """,
        "INSERT INTO audit_chain (id, start_hash, head_id, head_hash) VALUES (1, zeroblob(32), 0, zeroblob(32))",
        """
        CREATE TABLE audit_checkpoints (
            id       INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
            event_id INTEGER NOT NULL,
            hash     BLOB    NOT NULL,
            at       INTEGER NOT NULL,
            jws      TEXT    NOT NULL
        ) STRICT
        """,
    ]

    /// Version 18: recovery codes (keyed hashes only), admin tokens (hashes only), and the groups
    /// an invitation's account joins (docs/contracts/accounts.md). Only adds.
    static let migration18: [String] = [
        """
        CREATE TABLE recovery_codes (
            user_handle BLOB    NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            code_hash   BLOB    NOT NULL CHECK (length(code_hash) = 32),
            created_at  INTEGER NOT NULL,
            PRIMARY KEY (user_handle, code_hash)
        ) STRICT
        """,
        """
        CREATE TABLE admin_tokens (
            name       TEXT    NOT NULL PRIMARY KEY,
            token_hash BLOB    NOT NULL UNIQUE CHECK (length(token_hash) = 32),
            created_at INTEGER NOT NULL
        ) STRICT
        """,
        "ALTER TABLE invitations ADD COLUMN group_names TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE invitations ADD COLUMN group_keys TEXT NOT NULL DEFAULT '[]'",
    ]

    /// Version 17: invitation and reset links (docs/contracts/accounts.md, "Account recovery"), and the
    /// registration ceremony that spends one. Only adds.
    static let migration17: [String] = [
        """
        CREATE TABLE invitations (
            token_hash  BLOB    NOT NULL PRIMARY KEY CHECK (length(token_hash) = 32),
            user_name   TEXT    NOT NULL,
            name_key    TEXT    NOT NULL,
            user_handle BLOB    REFERENCES users (handle) ON DELETE CASCADE,
            created_by  TEXT    NOT NULL,
            created_at  INTEGER NOT NULL,
            expires_at  INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX invitations_by_expiry ON invitations (expires_at)",
        "ALTER TABLE ceremonies ADD COLUMN invitation_hash BLOB",
    ]

    /// Version 16: audit events outlive their account (docs/contracts/accounts.md, "Deleting the account"): the
    /// table is rebuilt without its foreign key to users, rows and ids kept.
    static let migration16: [String] = [
        """
        CREATE TABLE events_kept (
            id          INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
            user_handle BLOB    NOT NULL,
            type        TEXT    NOT NULL,
            at          INTEGER NOT NULL,
            ip          TEXT,
            user_agent  TEXT,
            details     TEXT    NOT NULL
        ) STRICT
        """,
        "INSERT INTO events_kept (id, user_handle, type, at, ip, user_agent, details) SELECT id, user_handle, type, at, ip, user_agent, details FROM events",
        "DROP TABLE events",
        "ALTER TABLE events_kept RENAME TO events",
        "CREATE INDEX events_by_user ON events (user_handle, id)",
        "CREATE INDEX events_by_time ON events (at)",
    ]

    /// Version 15: a step-up ceremony names the session it renews (docs/contracts/accounts.md). Only adds.
    static let migration15: [String] = [
        "ALTER TABLE ceremonies ADD COLUMN session_hash BLOB",
    ]

    /// Version 14: an operator can disable an account (docs/contracts/accounts.md, "Administration"). Only adds.
    static let migration14: [String] = [
        "ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1))",
    ]

    /// Version 13: sessions keep the address and user agent that opened them, when they were
    /// last seen (to the minute) and when their user last authenticated (docs/contracts/accounts.md). Only adds.
    static let migration13: [String] = [
        "ALTER TABLE sessions ADD COLUMN ip TEXT",
        "ALTER TABLE sessions ADD COLUMN user_agent TEXT",
        "ALTER TABLE sessions ADD COLUMN last_seen_at INTEGER",
        "ALTER TABLE sessions ADD COLUMN auth_time INTEGER",
    ]

    /// Version 12: the OpenID provider's device authorizations (RFC 8628). Only adds.
    static let migration12: [String] = [
        """
        CREATE TABLE oauth_device_authorizations (
            device_code_hash BLOB    NOT NULL PRIMARY KEY CHECK (length(device_code_hash) = 32),
            user_code_hash   BLOB    NOT NULL UNIQUE CHECK (length(user_code_hash) = 32),
            client_id        TEXT    NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
            scopes           TEXT    NOT NULL,
            interval_seconds INTEGER NOT NULL CHECK (interval_seconds > 0),
            last_polled_at   INTEGER,
            status           TEXT    NOT NULL CHECK (status IN ('pending', 'approved', 'denied')),
            grant_id         TEXT,
            created_at       INTEGER NOT NULL,
            expires_at       INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX oauth_device_authorizations_by_expiry ON oauth_device_authorizations (expires_at)",
        "CREATE INDEX oauth_device_authorizations_by_client ON oauth_device_authorizations (client_id)",
    ]

    /// Version 11: the OpenID provider's held authorization requests, grants (codes and refresh
    /// token families) and retired refresh tokens; sessions remember whether their ceremony
    /// verified the user. Only adds.
    static let migration11: [String] = [
        "ALTER TABLE sessions ADD COLUMN user_verified INTEGER CHECK (user_verified IN (0, 1))",
        """
        CREATE TABLE oauth_authorizations (
            handle_hash BLOB    NOT NULL PRIMARY KEY CHECK (length(handle_hash) = 32),
            client_id   TEXT    NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
            parameters  TEXT    NOT NULL,
            created_at  INTEGER NOT NULL,
            expires_at  INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX oauth_authorizations_by_expiry ON oauth_authorizations (expires_at)",
        "CREATE INDEX oauth_authorizations_by_client ON oauth_authorizations (client_id)",
        """
        CREATE TABLE oauth_grants (
            id                 TEXT    NOT NULL PRIMARY KEY,
            client_id          TEXT    NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
            user_handle        BLOB    NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            session_hash       BLOB    NOT NULL,
            offline            INTEGER NOT NULL CHECK (offline IN (0, 1)),
            scopes             TEXT    NOT NULL,
            nonce              TEXT,
            auth_time          INTEGER NOT NULL,
            amr                TEXT    NOT NULL,
            acr                TEXT,
            credential_id      BLOB,
            code_hash          BLOB    NOT NULL UNIQUE CHECK (length(code_hash) = 32),
            code_challenge     TEXT    NOT NULL,
            redirect_uri       TEXT    NOT NULL,
            code_expires_at    INTEGER NOT NULL,
            code_spent         INTEGER NOT NULL CHECK (code_spent IN (0, 1)),
            refresh_hash       BLOB    UNIQUE,
            refresh_expires_at INTEGER,
            revoked            INTEGER NOT NULL CHECK (revoked IN (0, 1)),
            created_at         INTEGER NOT NULL,
            expires_at         INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX oauth_grants_by_user ON oauth_grants (user_handle)",
        "CREATE INDEX oauth_grants_by_client ON oauth_grants (client_id)",
        "CREATE INDEX oauth_grants_by_expiry ON oauth_grants (expires_at)",
        """
        CREATE TABLE oauth_retired_refresh_tokens (
            token_hash BLOB NOT NULL PRIMARY KEY,
            grant_id   TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE
        ) STRICT
        """,
        "CREATE INDEX oauth_retired_refresh_tokens_by_grant ON oauth_retired_refresh_tokens (grant_id)",
    ]

    /// Version 10: group memberships (docs/contracts/accounts.md, "Groups"); gone with the account. Only adds.
    static let migration10: [String] = [
        """
        CREATE TABLE group_members (
            user_handle BLOB NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            name_key    TEXT NOT NULL,
            name        TEXT NOT NULL,
            PRIMARY KEY (user_handle, name_key)
        ) STRICT
        """,
        "CREATE INDEX group_members_by_group ON group_members (name_key)",
    ]

    /// Version 9: the OpenID provider's signing keys and clients. Only adds.
    static let migration9: [String] = [
        """
        CREATE TABLE signing_keys (
            kid         TEXT    NOT NULL PRIMARY KEY,
            algorithm   TEXT    NOT NULL,
            generation  INTEGER NOT NULL CHECK (generation >= 1),
            private_key BLOB    NOT NULL,
            created_at  INTEGER NOT NULL,
            activates_at INTEGER NOT NULL,
            UNIQUE (algorithm, generation)
        )
        """,
        """
        CREATE TABLE oauth_clients (
            id                        TEXT    NOT NULL PRIMARY KEY,
            name                      TEXT,
            is_public                 INTEGER NOT NULL CHECK (is_public IN (0, 1)),
            secret_hash               BLOB,
            redirect_uris             TEXT    NOT NULL,
            post_logout_redirect_uris TEXT    NOT NULL,
            backchannel_logout_uri    TEXT,
            scopes                    TEXT    NOT NULL,
            id_token_alg              TEXT    NOT NULL,
            introspection             INTEGER NOT NULL CHECK (introspection IN (0, 1)),
            token_exchange            INTEGER NOT NULL CHECK (token_exchange IN (0, 1)),
            allowed_groups            TEXT    NOT NULL,
            required_acr              TEXT,
            device_flow               INTEGER NOT NULL CHECK (device_flow IN (0, 1)),
            require_par               INTEGER NOT NULL CHECK (require_par IN (0, 1)),
            refresh                   INTEGER NOT NULL CHECK (refresh IN (0, 1)),
            created_at                INTEGER NOT NULL,
            CHECK ((is_public = 1) = (secret_hash IS NULL))
        )
        """,
    ]

    /// Version 8: WebAuthn Level 3 options. A ceremony remembers a conditional creation and the
    /// residentKey it asked for; a credential whether it is discoverable and has PRF enabled.
    /// Only adds: every earlier credential was registered with residentKey required.
    static let migration8: [String] = [
        "ALTER TABLE ceremonies ADD COLUMN conditional INTEGER NOT NULL DEFAULT 0 CHECK (conditional IN (0, 1))",
        "ALTER TABLE ceremonies ADD COLUMN resident_key TEXT NOT NULL DEFAULT 'required'",
        "ALTER TABLE credentials ADD COLUMN discoverable INTEGER NOT NULL DEFAULT 1 CHECK (discoverable IN (0, 1))",
        "ALTER TABLE credentials ADD COLUMN prf_enabled INTEGER NOT NULL DEFAULT 0 CHECK (prf_enabled IN (0, 1))",
    ]

    /// Version 6: Messages for Business requests with their keys, and the codes and access
    /// tokens issued for them. Only adds.
    /// Version 7: Sign in with Apple identity tokens once used, each kept until it expires.
    static let migration7: [String] = [
        """
        CREATE TABLE apple_spent_tokens (
            hash       BLOB    NOT NULL PRIMARY KEY,
            expires_at INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX apple_spent_tokens_by_expiry ON apple_spent_tokens (expires_at)",
    ]

    static let migration6: [String] = [
        """
        CREATE TABLE mfb_requests (
            id                 TEXT    NOT NULL PRIMARY KEY,
            private_key        BLOB,
            public_point       BLOB    NOT NULL,
            point_hash         BLOB    NOT NULL UNIQUE,
            device_user_handle TEXT,
            status             TEXT    NOT NULL CHECK (status IN ('pending', 'authenticated', 'failed')),
            user_handle        BLOB    REFERENCES users(handle) ON DELETE SET NULL,
            errors             TEXT,
            created_at         INTEGER NOT NULL,
            expires_at         INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX mfb_requests_by_expiry ON mfb_requests (expires_at)",
        """
        CREATE TABLE mfb_grants (
            hash         BLOB    NOT NULL PRIMARY KEY,
            kind         TEXT    NOT NULL CHECK (kind IN ('code', 'access_token')),
            request_id   TEXT    NOT NULL REFERENCES mfb_requests(id) ON DELETE CASCADE,
            user_handle  BLOB    NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            client_id    TEXT    NOT NULL,
            redirect_uri TEXT    NOT NULL,
            expires_at   INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX mfb_grants_by_request ON mfb_grants (request_id)",
        "CREATE INDEX mfb_grants_by_expiry ON mfb_grants (expires_at)",
    ]

    /// Version 5: the push authenticator's devices, enrolments and requests. Only adds.
    static let migration5: [String] = [
        """
        CREATE TABLE push_devices (
            id           TEXT    NOT NULL PRIMARY KEY,
            user_handle  BLOB    NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            name         TEXT    NOT NULL,
            model        TEXT    NOT NULL,
            device_token TEXT    NOT NULL,
            public_key   BLOB    NOT NULL,
            created_at   INTEGER NOT NULL,
            last_used_at INTEGER,
            disabled     INTEGER NOT NULL CHECK (disabled IN (0, 1))
        ) STRICT
        """,
        "CREATE INDEX push_devices_by_user ON push_devices (user_handle, created_at)",
        """
        CREATE TABLE push_discoveries (
            device_id   TEXT    NOT NULL PRIMARY KEY,
            user_handle BLOB    NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            challenge   TEXT    NOT NULL,
            expires_at  INTEGER NOT NULL
        ) STRICT
        """,
        """
        CREATE TABLE push_requests (
            id             TEXT    NOT NULL PRIMARY KEY,
            user_handle    BLOB    REFERENCES users(handle) ON DELETE CASCADE,
            watch_hash     BLOB    NOT NULL UNIQUE,
            challenge      TEXT    NOT NULL,
            number         INTEGER,
            status         TEXT    NOT NULL,
            device_id      TEXT,
            created_at     INTEGER NOT NULL,
            expires_at     INTEGER NOT NULL,
            session_issued INTEGER NOT NULL CHECK (session_issued IN (0, 1))
        ) STRICT
        """,
        "CREATE INDEX push_requests_by_user ON push_requests (user_handle, status)",
        "CREATE INDEX push_requests_by_expiry ON push_requests (expires_at)",
    ]

    /// Version 4: Sign in with Apple (links, nonces, notification ids), sessions remember another
    /// way they were opened, and documents kept for a cold start (Apple's keys). Only adds.
    static let migration4: [String] = [
        """
        CREATE TABLE apple_links (
            issuer           TEXT    NOT NULL,
            subject          TEXT    NOT NULL,
            user_handle      BLOB    NOT NULL UNIQUE REFERENCES users(handle) ON DELETE CASCADE,
            email            TEXT,
            email_verified   INTEGER NOT NULL CHECK (email_verified IN (0, 1)),
            is_private_email INTEGER NOT NULL CHECK (is_private_email IN (0, 1)),
            email_enabled    INTEGER NOT NULL CHECK (email_enabled IN (0, 1)),
            refresh_token    TEXT,
            created_at       INTEGER NOT NULL,
            PRIMARY KEY (issuer, subject)
        ) STRICT
        """,
        """
        CREATE TABLE apple_nonces (
            nonce      BLOB    NOT NULL PRIMARY KEY,
            expires_at INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX apple_nonces_by_expiry ON apple_nonces (expires_at)",
        """
        CREATE TABLE apple_notifications (
            jti         TEXT    NOT NULL PRIMARY KEY,
            received_at INTEGER NOT NULL
        ) STRICT
        """,
        """
        CREATE TABLE cached_documents (
            name       TEXT    NOT NULL PRIMARY KEY,
            body       BLOB    NOT NULL,
            fetched_at INTEGER NOT NULL,
            max_age    INTEGER NOT NULL
        ) STRICT
        """,
        "ALTER TABLE sessions ADD COLUMN via TEXT",
    ]

    /// Version 3: the audit trail. Only adds.
    static let migration3: [String] = [
        """
        CREATE TABLE events (
            id          INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
            user_handle BLOB    NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            type        TEXT    NOT NULL,
            at          INTEGER NOT NULL,
            ip          TEXT,
            user_agent  TEXT,
            details     TEXT    NOT NULL
        ) STRICT
        """,
        "CREATE INDEX events_by_user ON events (user_handle, id)",
        "CREATE INDEX events_by_time ON events (at)",
    ]

    /// Version 2: each session remembers the passkey that opened it, so deleting the passkey
    /// ends its sessions. Only adds: a version-1 program keeps working on the file.
    static let migration2: [String] = [
        "ALTER TABLE sessions ADD COLUMN credential_id BLOB",
        "CREATE INDEX sessions_by_credential ON sessions (credential_id)",
    ]

    /// Version 1: users, credentials, ceremonies, sessions, server secrets.
    ///
    /// STRICT tables: a value of the wrong type is an error, not silently stored.
    /// Times are INTEGER milliseconds since 1970 UTC; booleans are 0/1; lists are JSON text.
    static let migration1: [String] = [
        """
        CREATE TABLE users (
            handle       BLOB    NOT NULL PRIMARY KEY,
            name         TEXT    NOT NULL,
            name_key     TEXT    NOT NULL UNIQUE,
            display_name TEXT    NOT NULL,
            created_at   INTEGER NOT NULL
        ) STRICT
        """,
        """
        CREATE TABLE credentials (
            id                  BLOB    NOT NULL PRIMARY KEY,
            user_handle         BLOB    NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            public_key          BLOB    NOT NULL,
            algorithm           INTEGER NOT NULL,
            sign_count          INTEGER NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
            transports          TEXT    NOT NULL,
            backup_eligible     INTEGER NOT NULL CHECK (backup_eligible IN (0, 1)),
            backup_state        INTEGER NOT NULL CHECK (backup_state IN (0, 1)),
            uv_initialized      INTEGER NOT NULL CHECK (uv_initialized IN (0, 1)),
            aaguid              BLOB    NOT NULL CHECK (length(aaguid) = 16),
            attestation_format  TEXT    NOT NULL,
            attestation_type    TEXT    NOT NULL,
            attestation_trusted INTEGER NOT NULL CHECK (attestation_trusted IN (0, 1)),
            authenticator_name  TEXT,
            name                TEXT    NOT NULL,
            created_at          INTEGER NOT NULL,
            last_used_at        INTEGER,
            possibly_cloned     INTEGER NOT NULL DEFAULT 0 CHECK (possibly_cloned IN (0, 1))
        ) STRICT
        """,
        "CREATE INDEX credentials_by_user ON credentials (user_handle, created_at)",
        """
        CREATE TABLE ceremonies (
            challenge            BLOB    NOT NULL PRIMARY KEY,
            kind                 TEXT    NOT NULL CHECK (kind IN ('registration', 'authentication')),
            user_handle          BLOB,
            user_name            TEXT,
            display_name         TEXT,
            is_new_user          INTEGER NOT NULL CHECK (is_new_user IN (0, 1)),
            user_verification    TEXT    NOT NULL,
            allow_credential_ids TEXT    NOT NULL,
            algorithms           TEXT    NOT NULL,
            created_at           INTEGER NOT NULL,
            expires_at           INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX ceremonies_by_expiry ON ceremonies (expires_at)",
        """
        CREATE TABLE sessions (
            token_hash  BLOB    NOT NULL PRIMARY KEY,
            user_handle BLOB    NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            created_at  INTEGER NOT NULL,
            expires_at  INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX sessions_by_user ON sessions (user_handle)",
        "CREATE INDEX sessions_by_expiry ON sessions (expires_at)",
        """
        CREATE TABLE secrets (
            name  TEXT NOT NULL PRIMARY KEY,
            value BLOB NOT NULL
        ) STRICT
        """,
    ]
}
