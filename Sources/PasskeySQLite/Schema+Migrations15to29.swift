internal import PasskeyStorage

/// The migrations 15 to 32, newest first: never edited once released.
extension Schema {
    /// Version 32: what users allowed third-party clients, per client. Only adds.
    static let migration32: [String] = [
        """
        CREATE TABLE consents (
            user_handle BLOB    NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            client_id   TEXT    NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
            scopes      TEXT    NOT NULL,
            granted_at  INTEGER NOT NULL,
            PRIMARY KEY (user_handle, client_id)
        ) STRICT
        """,
        "CREATE INDEX consents_by_client ON consents (client_id)",
    ]

    /// Version 31: clients that register themselves (RFC 7591, 7592): who made each client,
    /// whether it waits for an admin's approval, its registration access token, and the initial
    /// access tokens admins hand out. Only adds.
    static let migration31: [String] = [
        """
        ALTER TABLE oauth_clients ADD COLUMN kind TEXT NOT NULL DEFAULT 'operator'
            CHECK (kind IN ('operator', 'registered', 'metadata_document'))
        """,
        "ALTER TABLE oauth_clients ADD COLUMN pending INTEGER NOT NULL DEFAULT 0 CHECK (pending IN (0, 1))",
        "ALTER TABLE oauth_clients ADD COLUMN registration_token_hash BLOB CHECK (length(registration_token_hash) = 32)",
        """
        CREATE TABLE registration_tokens (
            token_hash BLOB    NOT NULL PRIMARY KEY CHECK (length(token_hash) = 32),
            created_by TEXT    NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX registration_tokens_by_expiry ON registration_tokens (expires_at)",
    ]

    /// Version 30: sender-constrained tokens (RFC 9449): the clients that must send DPoP proofs,
    /// and the key a public client's refresh tokens are bound to. Only adds.
    static let migration30: [String] = [
        "ALTER TABLE oauth_clients ADD COLUMN require_dpop INTEGER NOT NULL DEFAULT 0 CHECK (require_dpop IN (0, 1))",
        "ALTER TABLE oauth_grants ADD COLUMN dpop_jkt TEXT",
    ]

    /// Version 29: clients that get tokens of their own and sign their assertions with keys
    /// (docs/contracts/identity.md, "Machine and agent clients"), and the one-time ids (assertion
    /// `jti`s) every instance refuses to see twice. Only adds.
    static let migration29: [String] = [
        "ALTER TABLE oauth_clients ADD COLUMN client_credentials INTEGER NOT NULL DEFAULT 0 CHECK (client_credentials IN (0, 1))",
        "ALTER TABLE oauth_clients ADD COLUMN audiences TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE oauth_clients ADD COLUMN jwks TEXT",
        "ALTER TABLE oauth_clients ADD COLUMN jwks_uri TEXT",
        """
        CREATE TABLE spent_ids (
            key_hash   BLOB    NOT NULL PRIMARY KEY CHECK (length(key_hash) = 32),
            expires_at INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX spent_ids_by_expiry ON spent_ids (expires_at)",
    ]

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
}
