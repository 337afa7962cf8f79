public import Foundation
public import PasskeyStorage

/// `ServerStateStore` on SQLite.
extension SQLitePasskeyStore {
    public func cachedDocument(named name: String) async throws -> CachedDocument? {
        try database.read { db in
            try db.row(
                "SELECT name, body, fetched_at, max_age FROM cached_documents WHERE name = ?", [.text(name)],
                { CachedDocument(name: $0.text(0), body: $0.blob(1), fetchedAt: Date(storeMilliseconds: $0.int64(2)), maxAge: Int($0.int64(3))) })
        }
    }

    public func saveCachedDocument(_ document: CachedDocument) async throws {
        let arguments: [SQLiteValue] = [.text(document.name), .blob(document.body), try .time(document.fetchedAt), .int(document.maxAge)]
        try await database.write { db in
            try db.execute(
                """
                INSERT INTO cached_documents (name, body, fetched_at, max_age) VALUES (?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at, max_age = excluded.max_age
                """, arguments)
        }
    }

    public func countAttempts(keys: [String], limit: Int, window: Int64, now: Date, counting: Bool) async throws -> Int64? {
        guard let attempt = try AttemptWindow(keys: keys, limit: limit, window: window, now: now) else { return nil }
        let (keys, start, end) = (attempt.keys, attempt.start, attempt.end)
        if !counting {
            let counts = try database.read { db in
                try keys.map { key in
                    try db.row("SELECT count FROM attempt_counters WHERE key = ? AND window_start = ?", [.text(key), .integer(start)]) { $0.int64(0) } ?? 0
                }
            }
            return counts.contains { $0 >= Int64(limit) } ? end : nil
        }
        let reached: Bool = try await database.write { db in
            var reached = false
            for key in keys {
                let counted = try db.row(
                    """
                    INSERT INTO attempt_counters (key, window_start, count) VALUES (?, ?, 1)
                    ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1 WHERE count < ?
                    RETURNING count
                    """, [.text(key), .integer(start), .integer(Int64(limit))]) { $0.int64(0) }
                if counted == nil { reached = true }
            }
            return reached
        }
        return reached ? end : nil
    }

    /// The server secret stored under `name`: the first call stores `candidate` (fresh random
    /// bytes from the caller), every later call — also after a restart — returns what was
    /// stored. Keeps values derived from it (decoy credential ids) stable across restarts.
    public func secret(named name: String, candidate: [UInt8]) async throws -> [UInt8] {
        try await database.write { db in
            try db.execute("INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)", [.text(name), .blob(candidate)])
            guard let value = try db.row("SELECT value FROM secrets WHERE name = ?", [.text(name)], { $0.blob(0) }) else {
                throw StoreError.database("secret \(name) vanished inside its transaction")
            }
            return value
        }
    }

    /// Records that the metadata BLOB numbered `number` is being loaded, unless a BLOB with a
    /// higher number was loaded before: then nothing changes and the higher number is returned
    /// (FIDO MDS3 §3.1.6: `no` grows with each BLOB, so a lower one is a replayed old BLOB).
    /// Returns nil when `number` is accepted.
    public func acceptMetadataNumber(_ number: Int) async throws -> Int? {
        let name = MetadataNumber.secretName
        return try await database.write { db in
            let stored = try db.row("SELECT value FROM secrets WHERE name = ?", [.text(name)]) { $0.blob(0) }
            if let previous = stored.flatMap(MetadataNumber.decode), number < previous { return previous }
            try db.execute(
                "INSERT OR REPLACE INTO secrets (name, value) VALUES (?, ?)", [.text(name), .blob(MetadataNumber.encode(number))])
            return nil
        }
    }

    // MARK: Maintenance

    /// Deletes expired ceremonies and sessions; returns how many of each.
    public func sweepExpired(now: Date) async throws -> (ceremonies: Int, sessions: Int) {
        let cutoff = try SQLiteValue.time(now)
        let counts: [Int] = try await database.write { db in
            try db.execute("DELETE FROM ceremonies WHERE expires_at <= ?", [cutoff])
            let ceremonies = try db.changes()
            try db.execute("DELETE FROM apple_nonces WHERE expires_at <= ?", [cutoff])
            let nonces = try db.changes()
            try db.execute("DELETE FROM apple_spent_tokens WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM spent_ids WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM apple_notifications WHERE received_at <= ?", [try .time(now.addingTimeInterval(-30 * 86400))])
            try db.execute("DELETE FROM push_discoveries WHERE expires_at <= ?", [cutoff])
            let discoveries = try db.changes()
            let dayAgo = try SQLiteValue.time(now.addingTimeInterval(-86400))
            try db.execute("DELETE FROM push_requests WHERE expires_at <= ?", [dayAgo])
            // Every limit's window is an hour at most: a day-old counter counts nothing.
            try db.execute("DELETE FROM attempt_counters WHERE window_start <= ?", [dayAgo])
            // Messages for Business: an expired request's key goes at once, the request a day later.
            try db.execute("UPDATE mfb_requests SET private_key = NULL WHERE expires_at <= ? AND private_key IS NOT NULL", [cutoff])
            try db.execute("DELETE FROM mfb_grants WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM mfb_requests WHERE expires_at <= ?", [dayAgo])
            try db.execute("DELETE FROM oauth_authorizations WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM oauth_device_authorizations WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM invitations WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM oauth_grants WHERE expires_at <= ?", [cutoff])
            try db.execute("DELETE FROM sessions WHERE expires_at <= ?", [cutoff])
            return [ceremonies + nonces + discoveries, try db.changes()]
        }
        return (counts[0], counts[1])
    }

    public func spendOnce(keyHash: [UInt8], expiresAt: Date, now: Date) async throws -> Bool {
        let arguments: [SQLiteValue] = [.blob(keyHash), try .time(expiresAt), try .time(now)]
        return try await database.write { db in
            try Self.spend(db, arguments)
        }
    }
}
