/// Migration 33: never edited once released.
extension PostgresSchema {
    /// Version 33: first-party apps' authorization challenge and backchannel authentication
    /// (SQLite's migration 33).
    static let migration33 = Migration(additive: true, statements: [
        "ALTER TABLE oauth_clients ADD COLUMN authorization_challenge boolean NOT NULL DEFAULT false",
        "ALTER TABLE oauth_clients ADD COLUMN ciba_mode text CHECK (ciba_mode IN ('poll', 'ping'))",
        "ALTER TABLE oauth_clients ADD COLUMN notification_endpoint text",
        "ALTER TABLE push_requests ADD COLUMN purpose text NOT NULL DEFAULT 'sign_in' CHECK (purpose IN ('sign_in', 'ciba'))",
        """
        CREATE TABLE backchannel_requests (
            id_hash                bytea   NOT NULL PRIMARY KEY CHECK (length(id_hash) = 32),
            push_id                text    NOT NULL UNIQUE REFERENCES push_requests (id) ON DELETE CASCADE,
            client_id              text    NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
            user_handle            bytea   NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            scopes                 text[]  NOT NULL,
            binding_message        text,
            acr_values             text,
            ip                     text,
            notification_token     text,
            interval_seconds       bigint  NOT NULL,
            last_polled_at         bigint,
            redeemed               boolean NOT NULL DEFAULT false,
            approved_credential_id bytea,
            created_at             bigint  NOT NULL,
            expires_at             bigint  NOT NULL
        )
        """,
        "CREATE INDEX backchannel_requests_by_user ON backchannel_requests (user_handle, client_id)",
        "CREATE INDEX backchannel_requests_by_expiry ON backchannel_requests (expires_at)",
    ])
}
