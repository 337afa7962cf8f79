public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `SessionStore` on PostgreSQL.
extension PostgresPasskeyStore {
    // MARK: Sessions

    public func insertSession(_ s: SessionRecord) async throws {
        let row = try SessionRow(s)
        try await write { db in try await Self.insert(db, row) }
    }

    static func insert(_ db: PostgresConnection, _ s: SessionRow) async throws {
        try await db.query(
            """
            INSERT INTO sessions (\(unescaped: SessionRow.columns))
            VALUES (\(s.tokenHash), \(s.userHandle), \(s.createdAt), \(s.expiresAt), \(s.credentialID), \(s.via), \(s.userVerified),
                \(s.ip), \(s.userAgent), \(s.lastSeenAt), \(s.verifiedAt))
            """, logger: quiet)
    }

    public func session(tokenHash: [UInt8], now: Date) async throws -> SessionRecord? {
        let hash = ByteBuffer(bytes: tokenHash)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    "SELECT \(unescaped: SessionRow.columns) FROM sessions WHERE token_hash = \(hash) AND expires_at > \(now)",
                    logger: Self.quiet),
                SessionRow.record)
        }
    }

    public func signedIn(tokenHash: [UInt8], now: Date) async throws -> (session: SessionRecord, user: UserRecord)? {
        let hash = ByteBuffer(bytes: tokenHash)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT \(unescaped: Self.signedInColumns) FROM sessions s JOIN users u ON u.handle = s.user_handle \
                    WHERE s.token_hash = \(hash) AND s.expires_at > \(now)
                    """,
                    logger: Self.quiet),
                { row in (try SessionRow.record(row), try UserRow.record(row, from: SessionRow.columnCount)) })
        }
    }

    public func insertEvent(_ event: AuditEvent) async throws {
        let row = try EventRow(event)
        try await write { db in try await Self.insert(db, row) }
    }

    public func sessions(userHandle: [UInt8], now: Date) async throws -> [SessionRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT \(unescaped: SessionRow.columns) FROM sessions WHERE user_handle = \(handle) AND expires_at > \(now)
                    ORDER BY created_at DESC, token_hash
                    """, logger: Self.quiet),
                SessionRow.record)
        }
    }

    public func deleteSession(tokenHash: [UInt8], event: AuditEvent?) async throws {
        let eventRow = try event.map(EventRow.init)
        let hash = ByteBuffer(bytes: tokenHash)
        try await transaction { db in
            if try await Self.count(db.query("DELETE FROM sessions WHERE token_hash = \(hash) RETURNING 1", logger: Self.quiet)) == 1 {
                try await Self.insert(db, eventRow)
            }
        }
    }

    public func touchSession(tokenHash: [UInt8], at: Date) async throws {
        let hash = ByteBuffer(bytes: tokenHash)
        let at = try at.storeMilliseconds()
        try await write { db in
            try await db.query("UPDATE sessions SET last_seen_at = \(at) WHERE token_hash = \(hash)", logger: Self.quiet)
        }
    }

    @discardableResult
    public func deleteSessions(userHandle: [UInt8], event: AuditEvent?) async throws -> Int {
        let eventRow = try event.map(EventRow.init)
        let handle = ByteBuffer(bytes: userHandle)
        return try await transaction { db in
            let count = try await Self.count(db.query("DELETE FROM sessions WHERE user_handle = \(handle) RETURNING 1", logger: Self.quiet))
            try await Self.insert(db, eventRow)
            return count
        }
    }

    // MARK: Audit events

    /// Inserts an event in the caller's transaction (nothing for nil).
    /// Inserts an event in the caller's transaction (nothing for nil). It joins the audit chain
    /// when `sealAuditChain` next runs (within a second, from any instance): linking it here
    /// would lock the chain's head until this transaction's commit, and every commit of every
    /// instance would wait for the one before it.
    static func insert(_ db: PostgresConnection, _ e: EventRow?) async throws {
        guard let e else { return }
        try await db.query(
            """
            INSERT INTO events (user_handle, type, at, ip, user_agent, details)
            VALUES (\(e.userHandle), \(e.type), \(e.at), \(e.ip), \(e.userAgent), \(e.details))
            """, logger: quiet)
    }

    public func queueLogoutNotices(_ notices: [LogoutNotice]) async throws {
        guard !notices.isEmpty else { return }
        let clients = notices.map(\.clientID), sids = notices.map(\.sid)
        let handles = notices.map { ByteBuffer(bytes: $0.userHandle) }
        let times = try notices.map { try $0.createdAt.storeMilliseconds() }
        try await write { db in
            try await db.query(
                """
                INSERT INTO logout_outbox (client_id, user_handle, sid, created_at)
                SELECT * FROM unnest(\(clients)::text[], \(handles)::bytea[], \(sids)::text[], \(times)::bigint[])
                """, logger: Self.quiet)
        }
    }

    public func takeLogoutNotices(limit: Int) async throws -> [LogoutNotice] {
        let limit = Int64(limit)
        let rows = try await write { db in
            try await Self.all(
                db.query(
                    """
                    DELETE FROM logout_outbox WHERE id IN (
                        SELECT id FROM logout_outbox ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                    RETURNING id, client_id, user_handle, sid, created_at
                    """, logger: Self.quiet)
            ) { row -> (Int64, LogoutNotice) in
                var c = Cursor(row)
                let id: Int64 = try c.next()
                return (id, LogoutNotice(clientID: try c.next(), userHandle: try c.bytes(), sid: try c.next(), createdAt: try c.date()))
            }
        }
        return rows.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
