

/// The migrations 15 to 32, newest first: never edited once released.
extension PostgresSchema {
    /// Version 32: users' consents to third-party clients (SQLite's migration 32).
    static let migration32 = Migration(additive: true, statements: [
        """
        CREATE TABLE consents (
            user_handle bytea  NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            client_id   text   NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
            scopes      text[] NOT NULL,
            granted_at  bigint NOT NULL,
            PRIMARY KEY (user_handle, client_id)
        )
        """,
        "CREATE INDEX consents_by_client ON consents (client_id)",
    ])

    /// Version 31: self-registered clients and initial access tokens (SQLite's migration 31).
    static let migration31 = Migration(additive: true, statements: [
        """
        ALTER TABLE oauth_clients ADD COLUMN kind text NOT NULL DEFAULT 'operator'
            CHECK (kind IN ('operator', 'registered', 'metadata_document'))
        """,
        "ALTER TABLE oauth_clients ADD COLUMN pending boolean NOT NULL DEFAULT false",
        "ALTER TABLE oauth_clients ADD COLUMN registration_token_hash bytea CHECK (length(registration_token_hash) = 32)",
        """
        CREATE TABLE registration_tokens (
            token_hash bytea  NOT NULL PRIMARY KEY,
            created_by text   NOT NULL,
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX registration_tokens_by_expiry ON registration_tokens (expires_at)",
    ])

    /// Version 30: DPoP's clients and bound refresh tokens (SQLite's migration 30).
    static let migration30 = Migration(additive: true, statements: [
        "ALTER TABLE oauth_clients ADD COLUMN require_dpop boolean NOT NULL DEFAULT false",
        "ALTER TABLE oauth_grants ADD COLUMN dpop_jkt text",
    ])

    /// Version 29: clients with tokens of their own and keys, and the one-time ids (SQLite's
    /// migration 29).
    static let migration29 = Migration(additive: true, statements: [
        "ALTER TABLE oauth_clients ADD COLUMN client_credentials boolean NOT NULL DEFAULT false",
        "ALTER TABLE oauth_clients ADD COLUMN audiences text[] NOT NULL DEFAULT '{}'",
        "ALTER TABLE oauth_clients ADD COLUMN jwks text",
        "ALTER TABLE oauth_clients ADD COLUMN jwks_uri text",
        """
        CREATE TABLE spent_ids (
            key_hash   bytea  NOT NULL PRIMARY KEY,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX spent_ids_by_expiry ON spent_ids (expires_at)",
    ])

    /// Version 28: which clients `--clients-file` made (SQLite's migration 28).
    static let migration28 = Migration(additive: true, statements: [
        "ALTER TABLE oauth_clients ADD COLUMN clients_file boolean NOT NULL DEFAULT false",
    ])

    /// Version 27: the rule that made the stored name keys (SQLite's migration 27).
    static let migration27 = Migration(additive: true, statements: [
        """
        CREATE TABLE name_key_rules (
            id         integer NOT NULL PRIMARY KEY CHECK (id = 1),
            version    integer NOT NULL,
            collisions text[]  NOT NULL
        )
        """,
        "INSERT INTO name_key_rules (id, version, collisions) VALUES (1, 1, '{}')",
    ])

    /// Version 26: users' updated_at and invitations' display name (SQLite's migration 26).
    static let migration26 = Migration(additive: true, statements: [
        "ALTER TABLE users ADD COLUMN updated_at bigint",
        "ALTER TABLE invitations ADD COLUMN display_name text",
    ])

    /// Version 25: back-channel logouts queued by the command line (SQLite's migration 25).
    static let migration25 = Migration(additive: true, statements: [
        """
        CREATE TABLE logout_outbox (
            id          bigserial PRIMARY KEY,
            client_id   text   NOT NULL,
            user_handle bytea  NOT NULL,
            sid         text   NOT NULL,
            created_at  bigint NOT NULL
        )
        """,
    ])

    /// Version 24: counters of the limits that hold across instances (SQLite's migration 24).
    static let migration24 = Migration(additive: true, statements: [
        """
        CREATE TABLE attempt_counters (
            key          text   NOT NULL,
            window_start bigint NOT NULL,
            count        bigint NOT NULL CHECK (count > 0),
            PRIMARY KEY (key, window_start)
        )
        """,
        "CREATE INDEX attempt_counters_by_window ON attempt_counters (window_start)",
    ])

    /// Version 23: the Messages for Business client among the OpenID provider's clients
    /// (SQLite's migration 23).
    static let migration23 = Migration(additive: true, statements: [
        "ALTER TABLE oauth_clients ADD COLUMN mfb boolean NOT NULL DEFAULT false",
    ])

    /// Version 22: the gateway's message id and answer of a Messages for Business request
    /// (SQLite's migration 22).
    static let migration22 = Migration(additive: true, statements: [
        "ALTER TABLE mfb_requests ADD COLUMN gateway_message_id text",
        "ALTER TABLE mfb_requests ADD COLUMN gateway_status integer",
    ])

    /// Version 21: each push device's APNs environment (SQLite's migration 21).
    static let migration21 = Migration(additive: true, statements: [
        "ALTER TABLE push_devices ADD COLUMN apns_environment text CHECK (apns_environment IN ('production', 'sandbox'))",
    ])

    /// Version 20: the audit chain is sealed after the commit instead of in it (so that no
    /// commit waits for another's): each event's place in the chain, and the head's.
    static let migration20 = Migration(additive: true, statements: [
        "ALTER TABLE events ADD COLUMN chain_seq bigint",
        "CREATE UNIQUE INDEX events_by_chain_seq ON events (chain_seq)",
        "CREATE INDEX events_to_seal ON events (id) WHERE chain_seq IS NULL",
        "ALTER TABLE audit_chain ADD COLUMN head_seq bigint NOT NULL DEFAULT 0",
        // Events linked in their own write by version 18 are linked again by the sealer.
        "UPDATE events SET prev_hash = NULL, hash = NULL",
        "UPDATE audit_chain SET head_id = 0, head_hash = start_hash",
    ])

    /// Version 19: recoveries made to wait (SQLite's migration 20).
    static let migration19 = Migration(additive: true, statements: [
        """
        CREATE TABLE recovery_requests (
            id_hash     bytea  NOT NULL PRIMARY KEY CHECK (length(id_hash) = 32),
            public_id   text   NOT NULL UNIQUE,
            user_handle bytea  NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            created_at  bigint NOT NULL,
            ready_at    bigint NOT NULL,
            ip          text,
            user_agent  text,
            state       text   NOT NULL CHECK (state IN ('waiting', 'cancelled', 'claimed'))
        )
        """,
        "CREATE INDEX recovery_requests_by_user ON recovery_requests (user_handle, state)",
    ])

    /// Version 18: the tamper-evident audit trail (SQLite's migration 19). An older program
    /// still works; its events are not chained, and `events verify` reports them.
    static let migration18 = Migration(additive: true, statements: [
        "ALTER TABLE events ADD COLUMN prev_hash bytea",
        "ALTER TABLE events ADD COLUMN hash bytea",
        """
        CREATE TABLE audit_chain (
            id         integer NOT NULL PRIMARY KEY CHECK (id = 1),
            start_hash bytea   NOT NULL,
            head_id    bigint  NOT NULL,
            head_hash  bytea   NOT NULL
        )
        """,
        "INSERT INTO audit_chain (id, start_hash, head_id, head_hash) VALUES (1, decode(repeat('00', 32), 'hex'), 0, decode(repeat('00', 32), 'hex'))",
        """
        CREATE TABLE audit_checkpoints (
            id       bigserial NOT NULL PRIMARY KEY,
            event_id bigint    NOT NULL,
            hash     bytea     NOT NULL,
            at       bigint    NOT NULL,
            jws      text      NOT NULL
        )
        """,
    ])

    /// Version 17: recovery codes, admin tokens, and the groups an invitation's account joins
    /// (SQLite's migration 18).
    static let migration17 = Migration(additive: true, statements: [
        """
        CREATE TABLE recovery_codes (
            user_handle bytea  NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            code_hash   bytea  NOT NULL CHECK (length(code_hash) = 32),
            created_at  bigint NOT NULL,
            PRIMARY KEY (user_handle, code_hash)
        )
        """,
        """
        CREATE TABLE admin_tokens (
            name       text   NOT NULL PRIMARY KEY,
            token_hash bytea  NOT NULL UNIQUE CHECK (length(token_hash) = 32),
            created_at bigint NOT NULL
        )
        """,
        // The admin lists' order and prefix search, in byte order whatever the collation.
        "CREATE INDEX users_by_name_key_c ON users (name_key COLLATE \"C\")",
        "ALTER TABLE invitations ADD COLUMN group_names text[] NOT NULL DEFAULT '{}'",
        "ALTER TABLE invitations ADD COLUMN group_keys text[] NOT NULL DEFAULT '{}'",
    ])

    /// Version 16: invitation and reset links, and the registration that spends one (SQLite's
    /// migration 17).
    static let migration16 = Migration(additive: true, statements: [
        """
        CREATE TABLE invitations (
            token_hash  bytea  NOT NULL PRIMARY KEY CHECK (length(token_hash) = 32),
            user_name   text   NOT NULL,
            name_key    text   NOT NULL,
            user_handle bytea  REFERENCES users (handle) ON DELETE CASCADE,
            created_by  text   NOT NULL,
            created_at  bigint NOT NULL,
            expires_at  bigint NOT NULL
        )
        """,
        "CREATE INDEX invitations_by_expiry ON invitations (expires_at)",
        "ALTER TABLE ceremonies ADD COLUMN invitation_hash bytea",
    ])

    /// Version 15: audit events outlive their account (SQLite's migration 16). An older program
    /// only deletes accounts through the same cascade it no longer gets, so it still works.
    static let migration15 = Migration(additive: true, statements: [
        "ALTER TABLE events DROP CONSTRAINT IF EXISTS events_user_handle_fkey",
    ])
}
