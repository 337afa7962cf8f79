

/// The migrations 1 to 14, newest first: never edited once released.
extension PostgresSchema {
    /// Version 14: a step-up ceremony names the session it renews (SQLite's migration 15).
    static let migration14 = Migration(additive: true, statements: [
        "ALTER TABLE ceremonies ADD COLUMN session_hash bytea",
    ])

    /// Version 13: an operator can disable an account (SQLite's migration 14).
    static let migration13 = Migration(additive: true, statements: [
        "ALTER TABLE users ADD COLUMN disabled boolean NOT NULL DEFAULT false",
    ])

    /// Version 12: sessions keep their address, user agent, last use and last authentication
    /// (SQLite's migration 13).
    static let migration12 = Migration(additive: true, statements: [
        "ALTER TABLE sessions ADD COLUMN ip text",
        "ALTER TABLE sessions ADD COLUMN user_agent text",
        "ALTER TABLE sessions ADD COLUMN last_seen_at bigint",
        "ALTER TABLE sessions ADD COLUMN auth_time bigint",
    ])

    /// Version 11: the OpenID provider's device authorizations (SQLite's migration 12).
    static let migration11 = Migration(additive: true, statements: [
        """
        CREATE TABLE oauth_device_authorizations (
            device_code_hash bytea   NOT NULL PRIMARY KEY CHECK (length(device_code_hash) = 32),
            user_code_hash   bytea   NOT NULL UNIQUE CHECK (length(user_code_hash) = 32),
            client_id        text    NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
            scopes           text[]  NOT NULL,
            interval_seconds integer NOT NULL CHECK (interval_seconds > 0),
            last_polled_at   bigint,
            status           text    NOT NULL CHECK (status IN ('pending', 'approved', 'denied')),
            grant_id         text,
            created_at       bigint  NOT NULL,
            expires_at       bigint  NOT NULL
        )
        """,
        "CREATE INDEX oauth_device_authorizations_by_expiry ON oauth_device_authorizations (expires_at)",
        "CREATE INDEX oauth_device_authorizations_by_client ON oauth_device_authorizations (client_id)",
    ])

    /// Version 10: the OpenID provider's held requests, grants and retired refresh tokens;
    /// sessions remember whether their ceremony verified the user (SQLite's migration 11).
    static let migration10 = Migration(additive: true, statements: [
        "ALTER TABLE sessions ADD COLUMN user_verified boolean",
        """
        CREATE TABLE oauth_authorizations (
            handle_hash bytea  NOT NULL PRIMARY KEY CHECK (length(handle_hash) = 32),
            client_id   text   NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
            parameters  text   NOT NULL,
            created_at  bigint NOT NULL,
            expires_at  bigint NOT NULL
        )
        """,
        "CREATE INDEX oauth_authorizations_by_expiry ON oauth_authorizations (expires_at)",
        "CREATE INDEX oauth_authorizations_by_client ON oauth_authorizations (client_id)",
        """
        CREATE TABLE oauth_grants (
            id                 text    NOT NULL PRIMARY KEY,
            client_id          text    NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
            user_handle        bytea   NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            session_hash       bytea   NOT NULL,
            offline            boolean NOT NULL,
            scopes             text[]  NOT NULL,
            nonce              text,
            auth_time          bigint  NOT NULL,
            amr                text[]  NOT NULL,
            acr                text,
            credential_id      bytea,
            code_hash          bytea   NOT NULL UNIQUE CHECK (length(code_hash) = 32),
            code_challenge     text    NOT NULL,
            redirect_uri       text    NOT NULL,
            code_expires_at    bigint  NOT NULL,
            code_spent         boolean NOT NULL,
            refresh_hash       bytea   UNIQUE,
            refresh_expires_at bigint,
            revoked            boolean NOT NULL,
            created_at         bigint  NOT NULL,
            expires_at         bigint  NOT NULL
        )
        """,
        "CREATE INDEX oauth_grants_by_user ON oauth_grants (user_handle)",
        "CREATE INDEX oauth_grants_by_client ON oauth_grants (client_id)",
        "CREATE INDEX oauth_grants_by_expiry ON oauth_grants (expires_at)",
        """
        CREATE TABLE oauth_retired_refresh_tokens (
            token_hash bytea NOT NULL PRIMARY KEY,
            grant_id   text  NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE
        )
        """,
        "CREATE INDEX oauth_retired_refresh_tokens_by_grant ON oauth_retired_refresh_tokens (grant_id)",
    ])

    /// Version 9: group memberships (SQLite's migration 10).
    static let migration9 = Migration(additive: true, statements: [
        """
        CREATE TABLE group_members (
            user_handle bytea NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            name_key    text  NOT NULL,
            name        text  NOT NULL,
            PRIMARY KEY (user_handle, name_key)
        )
        """,
        "CREATE INDEX group_members_by_group ON group_members (name_key)",
    ])

    /// Version 8: the OpenID provider's signing keys and clients (SQLite's migration 9).
    static let migration8 = Migration(additive: true, statements: [
        """
        CREATE TABLE signing_keys (
            kid          text    NOT NULL PRIMARY KEY,
            algorithm    text    NOT NULL,
            generation   integer NOT NULL CHECK (generation >= 1),
            private_key  bytea   NOT NULL,
            created_at   bigint  NOT NULL,
            activates_at bigint  NOT NULL,
            UNIQUE (algorithm, generation)
        )
        """,
        """
        CREATE TABLE oauth_clients (
            id                        text    NOT NULL PRIMARY KEY,
            name                      text,
            is_public                 boolean NOT NULL,
            secret_hash               bytea,
            redirect_uris             text[]  NOT NULL,
            post_logout_redirect_uris text[]  NOT NULL,
            backchannel_logout_uri    text,
            scopes                    text[]  NOT NULL,
            id_token_alg              text    NOT NULL,
            introspection             boolean NOT NULL,
            token_exchange            boolean NOT NULL,
            allowed_groups            text[]  NOT NULL,
            required_acr              text,
            device_flow               boolean NOT NULL,
            require_par               boolean NOT NULL,
            refresh                   boolean NOT NULL,
            created_at                bigint  NOT NULL,
            CHECK (is_public = (secret_hash IS NULL))
        )
        """,
    ])

    /// Version 7: WebAuthn Level 3 options (SQLite's migration 8).
    static let migration7 = Migration(additive: true, statements: [
        "ALTER TABLE ceremonies ADD COLUMN conditional boolean NOT NULL DEFAULT false",
        "ALTER TABLE ceremonies ADD COLUMN resident_key text NOT NULL DEFAULT 'required'",
        "ALTER TABLE credentials ADD COLUMN discoverable boolean NOT NULL DEFAULT true",
        "ALTER TABLE credentials ADD COLUMN prf_enabled boolean NOT NULL DEFAULT false",
    ])

    /// Version 6: Sign in with Apple identity tokens once used (SQLite's migration 7).
    static let migration6 = Migration(additive: true, statements: [
        """
        CREATE TABLE apple_spent_tokens (
            hash       bytea  NOT NULL PRIMARY KEY,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX apple_spent_tokens_by_expiry ON apple_spent_tokens (expires_at)",
    ])

    /// Version 5: Messages for Business requests, codes and access tokens (SQLite's migration 6).
    static let migration5 = Migration(additive: true, statements: [
        """
        CREATE TABLE mfb_requests (
            id                 text   NOT NULL PRIMARY KEY,
            private_key        bytea,
            public_point       bytea  NOT NULL,
            point_hash         bytea  NOT NULL UNIQUE,
            device_user_handle text,
            status             text   NOT NULL CHECK (status IN ('pending', 'authenticated', 'failed')),
            user_handle        bytea  REFERENCES users(handle) ON DELETE SET NULL,
            errors             text,
            created_at         bigint NOT NULL,
            expires_at         bigint NOT NULL
        )
        """,
        "CREATE INDEX mfb_requests_by_expiry ON mfb_requests (expires_at)",
        """
        CREATE TABLE mfb_grants (
            hash         bytea  NOT NULL PRIMARY KEY,
            kind         text   NOT NULL CHECK (kind IN ('code', 'access_token')),
            request_id   text   NOT NULL REFERENCES mfb_requests(id) ON DELETE CASCADE,
            user_handle  bytea  NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            client_id    text   NOT NULL,
            redirect_uri text   NOT NULL,
            expires_at   bigint NOT NULL
        )
        """,
        "CREATE INDEX mfb_grants_by_request ON mfb_grants (request_id)",
        "CREATE INDEX mfb_grants_by_expiry ON mfb_grants (expires_at)",
    ])

    /// Version 4: the push authenticator (SQLite's migration 5).
    static let migration4 = Migration(additive: true, statements: [
        """
        CREATE TABLE push_devices (
            id           text    NOT NULL PRIMARY KEY,
            user_handle  bytea   NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            name         text    NOT NULL,
            model        text    NOT NULL,
            device_token text    NOT NULL,
            public_key   bytea   NOT NULL,
            created_at   bigint  NOT NULL,
            last_used_at bigint,
            disabled     boolean NOT NULL
        )
        """,
        "CREATE INDEX push_devices_by_user ON push_devices (user_handle, created_at)",
        """
        CREATE TABLE push_discoveries (
            device_id   text   NOT NULL PRIMARY KEY,
            user_handle bytea  NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            challenge   text   NOT NULL,
            expires_at  bigint NOT NULL
        )
        """,
        """
        CREATE TABLE push_requests (
            id             text    NOT NULL PRIMARY KEY,
            user_handle    bytea   REFERENCES users(handle) ON DELETE CASCADE,
            watch_hash     bytea   NOT NULL UNIQUE,
            challenge      text    NOT NULL,
            number         bigint,
            status         text    NOT NULL,
            device_id      text,
            created_at     bigint  NOT NULL,
            expires_at     bigint  NOT NULL,
            session_issued boolean NOT NULL
        )
        """,
        "CREATE INDEX push_requests_by_user ON push_requests (user_handle, status)",
        "CREATE INDEX push_requests_by_expiry ON push_requests (expires_at)",
    ])

    /// Version 3: Sign in with Apple, sessions' other way in, cached documents (SQLite's
    /// migration 4).
    static let migration3 = Migration(additive: true, statements: [
        """
        CREATE TABLE apple_links (
            issuer           text    NOT NULL,
            subject          text    NOT NULL,
            user_handle      bytea   NOT NULL UNIQUE REFERENCES users(handle) ON DELETE CASCADE,
            email            text,
            email_verified   boolean NOT NULL,
            is_private_email boolean NOT NULL,
            email_enabled    boolean NOT NULL,
            refresh_token    text,
            created_at       bigint  NOT NULL,
            PRIMARY KEY (issuer, subject)
        )
        """,
        """
        CREATE TABLE apple_nonces (
            nonce      bytea  NOT NULL PRIMARY KEY,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX apple_nonces_by_expiry ON apple_nonces (expires_at)",
        """
        CREATE TABLE apple_notifications (
            jti         text   NOT NULL PRIMARY KEY,
            received_at bigint NOT NULL
        )
        """,
        """
        CREATE TABLE cached_documents (
            name       text   NOT NULL PRIMARY KEY,
            body       bytea  NOT NULL,
            fetched_at bigint NOT NULL,
            max_age    bigint NOT NULL
        )
        """,
        "ALTER TABLE sessions ADD COLUMN via text",
    ])

    /// Version 2: the audit trail (SQLite's migration 3).
    static let migration2 = Migration(additive: true, statements: [
        """
        CREATE TABLE events (
            id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            user_handle bytea  NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            type        text   NOT NULL,
            at          bigint NOT NULL,
            ip          text,
            user_agent  text,
            details     text   NOT NULL
        )
        """,
        "CREATE INDEX events_by_user ON events (user_handle, id)",
        "CREATE INDEX events_by_time ON events (at)",
    ])

    /// Version 1: what SQLite has after its migration 2.
    static let migration1 = Migration(additive: true, statements: [
        """
        CREATE TABLE users (
            handle       bytea  NOT NULL PRIMARY KEY,
            name         text   NOT NULL,
            name_key     text   NOT NULL UNIQUE,
            display_name text   NOT NULL,
            created_at   bigint NOT NULL
        )
        """,
        """
        CREATE TABLE credentials (
            id                  bytea   NOT NULL PRIMARY KEY,
            user_handle         bytea   NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            public_key          bytea   NOT NULL,
            algorithm           bigint  NOT NULL,
            sign_count          bigint  NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
            transports          text[]  NOT NULL,
            backup_eligible     boolean NOT NULL,
            backup_state        boolean NOT NULL,
            uv_initialized      boolean NOT NULL,
            aaguid              bytea   NOT NULL CHECK (length(aaguid) = 16),
            attestation_format  text    NOT NULL,
            attestation_type    text    NOT NULL,
            attestation_trusted boolean NOT NULL,
            authenticator_name  text,
            name                text    NOT NULL,
            created_at          bigint  NOT NULL,
            last_used_at        bigint,
            possibly_cloned     boolean NOT NULL DEFAULT false,
            seq                 bigint  GENERATED ALWAYS AS IDENTITY
        )
        """,
        "CREATE INDEX credentials_by_user ON credentials (user_handle, created_at, seq)",
        """
        CREATE TABLE ceremonies (
            challenge            bytea    NOT NULL PRIMARY KEY,
            kind                 text     NOT NULL CHECK (kind IN ('registration', 'authentication')),
            user_handle          bytea,
            user_name            text,
            display_name         text,
            is_new_user          boolean  NOT NULL,
            user_verification    text     NOT NULL,
            allow_credential_ids bytea[]  NOT NULL,
            algorithms           bigint[] NOT NULL,
            created_at           bigint   NOT NULL,
            expires_at           bigint   NOT NULL
        )
        """,
        "CREATE INDEX ceremonies_by_expiry ON ceremonies (expires_at)",
        """
        CREATE TABLE sessions (
            token_hash    bytea  NOT NULL PRIMARY KEY,
            user_handle   bytea  NOT NULL REFERENCES users(handle) ON DELETE CASCADE,
            created_at    bigint NOT NULL,
            expires_at    bigint NOT NULL,
            credential_id bytea
        )
        """,
        "CREATE INDEX sessions_by_user ON sessions (user_handle)",
        "CREATE INDEX sessions_by_expiry ON sessions (expires_at)",
        "CREATE INDEX sessions_by_credential ON sessions (credential_id)",
        """
        CREATE TABLE secrets (
            name  text  NOT NULL PRIMARY KEY,
            value bytea NOT NULL
        )
        """,
    ])
}
