public import Foundation
public import PasskeyStorage

/// Back-channel logouts queued by another process, in `logout_outbox`.
extension SQLitePasskeyStore {
    public func queueLogoutNotices(_ notices: [LogoutNotice]) async throws {
        guard !notices.isEmpty else { return }
        let rows: [[SQLiteValue]] = try notices.map { [.text($0.clientID), .blob($0.userHandle), .text($0.sid), try .time($0.createdAt)] }
        try await database.write { db in
            for row in rows {
                try db.execute("INSERT INTO logout_outbox (client_id, user_handle, sid, created_at) VALUES (?, ?, ?, ?)", row)
            }
        }
    }

    public func takeLogoutNotices(limit: Int) async throws -> [LogoutNotice] {
        // A read first: the serving instance asks every two seconds, and an idle server writes
        // nothing.
        guard try database.read({ db in try db.row("SELECT 1 FROM logout_outbox LIMIT 1", []) { _ in true } }) == true else { return [] }
        return try await database.write { db in
            try db.rows(
                """
                DELETE FROM logout_outbox WHERE id IN (SELECT id FROM logout_outbox ORDER BY id LIMIT ?)
                RETURNING id, client_id, user_handle, sid, created_at
                """, [.integer(Int64(limit))]
            ) { row in
                (row.int64(0), LogoutNotice(
                    clientID: row.text(1), userHandle: row.blob(2), sid: row.text(3), createdAt: Date(storeMilliseconds: row.int64(4))))
            }.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
