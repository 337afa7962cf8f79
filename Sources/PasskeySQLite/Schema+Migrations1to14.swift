internal import PasskeyStorage

/// The migrations 1 to 14, newest first: never edited once released.
extension Schema {
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
