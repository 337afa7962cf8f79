internal import PasskeyStorage

/// Migration 33: never edited once released.
extension Schema {
    /// Version 33: first-party apps' authorization challenge and backchannel authentication
    /// (CIBA). Clients gain `authorization_challenge`, `ciba_mode` and `notification_endpoint`;
    /// a push request says whether it asks for a sign-in or a CIBA approval (each kind replaces
    /// only its own kind's pending request); a CIBA request's own state is a table of its own,
    /// gone with its push request. Only adds.
    static let migration33: [String] = [
        """
        ALTER TABLE oauth_clients ADD COLUMN authorization_challenge INTEGER NOT NULL DEFAULT 0
            CHECK (authorization_challenge IN (0, 1))
        """,
        "ALTER TABLE oauth_clients ADD COLUMN ciba_mode TEXT CHECK (ciba_mode IN ('poll', 'ping'))",
        "ALTER TABLE oauth_clients ADD COLUMN notification_endpoint TEXT",
        "ALTER TABLE push_requests ADD COLUMN purpose TEXT NOT NULL DEFAULT 'sign_in' CHECK (purpose IN ('sign_in', 'ciba'))",
        """
        CREATE TABLE backchannel_requests (
            id_hash                BLOB    NOT NULL PRIMARY KEY CHECK (length(id_hash) = 32),
            push_id                TEXT    NOT NULL UNIQUE REFERENCES push_requests (id) ON DELETE CASCADE,
            client_id              TEXT    NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
            user_handle            BLOB    NOT NULL REFERENCES users (handle) ON DELETE CASCADE,
            scopes                 TEXT    NOT NULL,
            binding_message        TEXT,
            acr_values             TEXT,
            ip                     TEXT,
            notification_token     TEXT,
            interval_seconds       INTEGER NOT NULL,
            last_polled_at         INTEGER,
            redeemed               INTEGER NOT NULL DEFAULT 0 CHECK (redeemed IN (0, 1)),
            approved_credential_id BLOB,
            created_at             INTEGER NOT NULL,
            expires_at             INTEGER NOT NULL
        ) STRICT
        """,
        "CREATE INDEX backchannel_requests_by_user ON backchannel_requests (user_handle, client_id)",
        "CREATE INDEX backchannel_requests_by_expiry ON backchannel_requests (expires_at)",
    ]
}
