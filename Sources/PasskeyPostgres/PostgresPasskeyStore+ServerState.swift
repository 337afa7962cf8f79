public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `ServerStateStore` on PostgreSQL.
extension PostgresPasskeyStore {
    public func cachedDocument(named name: String) async throws -> CachedDocument? {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT name, body, fetched_at, max_age FROM cached_documents WHERE name = \(name)", logger: Self.quiet),
                CachedDocumentRow.record)
        }
    }

    public func saveCachedDocument(_ document: CachedDocument) async throws {
        let name = document.name
        let body = ByteBuffer(bytes: document.body)
        let fetched = try document.fetchedAt.storeMilliseconds()
        let maxAge = Int64(document.maxAge)
        try await write { db in
            try await db.query(
                """
                INSERT INTO cached_documents (name, body, fetched_at, max_age) VALUES (\(name), \(body), \(fetched), \(maxAge))
                ON CONFLICT (name) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at, max_age = excluded.max_age
                """, logger: Self.quiet)
        }
    }

    public func countAttempts(keys: [String], limit: Int, window: Int64, now: Date, counting: Bool) async throws -> Int64? {
        guard let attempt = try AttemptWindow(keys: keys, limit: limit, window: window, now: now) else { return nil }
        let (keys, start, end) = (attempt.keys, attempt.start, attempt.end)
        let limit = Int64(limit)
        guard counting else {
            let reached = try await withConnection { db in
                try await Self.first(
                    db.query(
                        "SELECT EXISTS (SELECT 1 FROM attempt_counters WHERE key = ANY(\(keys)) AND window_start = \(start) AND count >= \(limit))",
                        logger: Self.quiet)
                ) { try $0[0].decode(Bool.self) } ?? false
            }
            return reached ? end : nil
        }
        let counted = try await write { db in
            try await Self.all(
                db.query(
                    """
                    INSERT INTO attempt_counters AS c (key, window_start, count)
                    SELECT k, \(start), 1 FROM unnest(\(keys)::text[]) AS k
                    ON CONFLICT (key, window_start) DO UPDATE SET count = c.count + 1 WHERE c.count < \(limit)
                    RETURNING key
                    """, logger: Self.quiet)
            ) { try $0[0].decode(String.self) }
        }
        return Set(counted).count < Set(keys).count ? end : nil
    }

    // MARK: Secrets and maintenance

    public func secret(named name: String, candidate: [UInt8]) async throws -> [UInt8] {
        let candidate = ByteBuffer(bytes: candidate)
        return try await transaction { db in
            try await db.query(
                "INSERT INTO secrets (name, value) VALUES (\(name), \(candidate)) ON CONFLICT (name) DO NOTHING",
                logger: Self.quiet)
            guard let value = try await Self.first(
                db.query("SELECT value FROM secrets WHERE name = \(name)", logger: Self.quiet),
                { Array(try $0.decode(ByteBuffer.self).readableBytesView) })
            else {
                throw StoreError.database("secret \(name) vanished inside its transaction")
            }
            return value
        }
    }

    public func acceptMetadataNumber(_ number: Int) async throws -> Int? {
        let name = MetadataNumber.secretName
        let value = ByteBuffer(bytes: MetadataNumber.encode(number))
        return try await transaction { db in
            // Two instances starting at once with different BLOBs: one waits for the other.
            try await db.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.metadataLock))", logger: Self.quiet)
            let stored = try await Self.first(
                db.query("SELECT value FROM secrets WHERE name = \(name)", logger: Self.quiet),
                { Array(try $0.decode(ByteBuffer.self).readableBytesView) })
            if let previous = stored.flatMap(MetadataNumber.decode), number < previous { return previous }
            try await db.query(
                """
                INSERT INTO secrets (name, value) VALUES (\(name), \(value))
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, logger: Self.quiet)
            return nil
        }
    }

    /// One instance sweeps at a time (a try-lock); the others skip the round and report 0.
    public func sweepExpired(now: Date) async throws -> (ceremonies: Int, sessions: Int) {
        let cutoff = try now.storeMilliseconds()
        let counts: [Int] = try await transaction { db in
            let locked = try await Self.first(
                db.query("SELECT pg_try_advisory_xact_lock(\(PostgresSchema.sweepLock))", logger: Self.quiet),
                { try $0.decode(Bool.self) })
            guard locked == true else { return [0, 0] }
            let ceremonies = try await Self.count(db.query(
                "DELETE FROM ceremonies WHERE expires_at <= \(cutoff) RETURNING 1", logger: Self.quiet))
            let nonces = try await Self.count(db.query(
                "DELETE FROM apple_nonces WHERE expires_at <= \(cutoff) RETURNING 1", logger: Self.quiet))
            try await db.query("DELETE FROM apple_spent_tokens WHERE expires_at <= \(cutoff)", logger: Self.quiet)
            try await db.query("DELETE FROM spent_ids WHERE expires_at <= \(cutoff)", logger: Self.quiet)
            let old = cutoff - 30 * 86_400_000
            try await db.query("DELETE FROM apple_notifications WHERE received_at <= \(old)", logger: Self.quiet)
            let discoveries = try await Self.count(db.query(
                "DELETE FROM push_discoveries WHERE expires_at <= \(cutoff) RETURNING 1", logger: Self.quiet))
            let dayAgo = cutoff - 86_400_000
            try await db.query("DELETE FROM push_requests WHERE expires_at <= \(dayAgo)", logger: Self.quiet)
            // Every limit's window is an hour at most: a day-old counter counts nothing.
            try await db.query("DELETE FROM attempt_counters WHERE window_start <= \(dayAgo)", logger: Self.quiet)
            // Messages for Business: an expired request's key goes at once, the request a day later.
            try await db.query(
                "UPDATE mfb_requests SET private_key = NULL WHERE expires_at <= \(cutoff) AND private_key IS NOT NULL", logger: Self.quiet)
            try await db.query("DELETE FROM mfb_grants WHERE expires_at <= \(cutoff)", logger: Self.quiet)
            try await db.query("DELETE FROM mfb_requests WHERE expires_at <= \(dayAgo)", logger: Self.quiet)
            try await db.query("DELETE FROM oauth_authorizations WHERE expires_at <= \(cutoff)", logger: Self.quiet)
            try await db.query("DELETE FROM oauth_device_authorizations WHERE expires_at <= \(cutoff)", logger: Self.quiet)
            try await db.query("DELETE FROM invitations WHERE expires_at <= \(cutoff)", logger: Self.quiet)
            try await db.query("DELETE FROM oauth_grants WHERE expires_at <= \(cutoff)", logger: Self.quiet)
            let sessions = try await Self.count(db.query(
                "DELETE FROM sessions WHERE expires_at <= \(cutoff) RETURNING 1", logger: Self.quiet))
            return [ceremonies + nonces + discoveries, sessions]
        }
        return (counts[0], counts[1])
    }

    public func spendOnce(keyHash: [UInt8], expiresAt: Date, now: Date) async throws -> Bool {
        let key = ByteBuffer(bytes: keyHash)
        let expiry = try expiresAt.storeMilliseconds()
        let at = try now.storeMilliseconds()
        return try await write { db in
            try await Self.spend(db, key, expiry, at)
        }
    }

    /// Adds a spent id unless a live one is there: whether it was added. `spendOnce`'s
    /// statement, and a refused sign-in's spending of its challenge inside its transaction. A
    /// concurrent spend of the same id waits on the row, then finds it live.
    static func spend(_ db: PostgresConnection, _ key: ByteBuffer, _ expiry: Int64, _ at: Int64) async throws -> Bool {
        try await count(db.query(
            """
            INSERT INTO spent_ids (key_hash, expires_at) VALUES (\(key), \(expiry))
            ON CONFLICT (key_hash) DO UPDATE SET expires_at = excluded.expires_at WHERE spent_ids.expires_at <= \(at)
            RETURNING 1
            """, logger: quiet)) == 1
    }
}
