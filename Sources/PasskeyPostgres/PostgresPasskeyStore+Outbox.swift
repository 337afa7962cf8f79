public import Foundation
public import PasskeyStorage
internal import PostgresNIO

/// Back-channel logouts queued by another process, in `logout_outbox`: each taken by one
/// instance (the rows it deletes are locked, and the others skip them).
extension PostgresPasskeyStore {
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
