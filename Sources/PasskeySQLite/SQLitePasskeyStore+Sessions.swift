public import Foundation
public import PasskeyStorage

/// Sessions and the audit trail.
extension SQLitePasskeyStore {
    static let signedInQuery = """
        SELECT \(SessionRecord.columns(of: "s")), \(UserRecord.selectColumns(of: "u")) FROM sessions s JOIN users u ON u.handle = s.user_handle \
        WHERE s.token_hash = ? AND s.expires_at > ?
        """

}

/// `SessionStore` on SQLite.
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

    // MARK: Sessions

    public func insertSession(_ s: SessionRecord) async throws {
        let arguments = try s.arguments()
        try await database.write { db in
            try db.execute(SessionRecord.insert, arguments)
        }
    }

    /// The session with this token hash, or nil if absent or expired at `now`.
    public func session(tokenHash: [UInt8], now: Date) async throws -> SessionRecord? {
        let arguments: [SQLiteValue] = [.blob(tokenHash), try .time(now)]
        return try database.read { db in
            try db.row(
                "SELECT \(SessionRecord.columns) FROM sessions WHERE token_hash = ? AND expires_at > ?",
                arguments, SessionRecord.init(row:))
        }
    }

    public func signedIn(tokenHash: [UInt8], now: Date) async throws -> (session: SessionRecord, user: UserRecord)? {
        let arguments: [SQLiteValue] = [.blob(tokenHash), try .time(now)]
        return try database.read { db in
            try db.row(Self.signedInQuery, arguments) { row in
                (SessionRecord(row: row), UserRecord(row: row.columns(from: SessionRecord.columnCount)))
            }
        }
    }

    public func insertEvent(_ event: AuditEvent) async throws {
        let arguments = try event.insertArguments()
        try await database.write { db in try Self.insertEvent(db, arguments) }
    }

    public func sessions(userHandle: [UInt8], now: Date) async throws -> [SessionRecord] {
        let arguments: [SQLiteValue] = [.blob(userHandle), try .time(now)]
        return try database.read { db in
            try db.rows(
                "SELECT \(SessionRecord.columns) FROM sessions WHERE user_handle = ? AND expires_at > ? ORDER BY created_at DESC, token_hash",
                arguments, SessionRecord.init(row:))
        }
    }

    public func deleteSession(tokenHash: [UInt8], event: AuditEvent?) async throws {
        let eventArguments = try event?.insertArguments()
        try await database.write { db in
            try db.execute("DELETE FROM sessions WHERE token_hash = ?", [.blob(tokenHash)])
            if try db.changes() == 1 { try Self.insertEvent(db, eventArguments) }
        }
    }

    public func touchSession(tokenHash: [UInt8], at: Date) async throws {
        let arguments: [SQLiteValue] = [try .time(at), .blob(tokenHash)]
        // Not fsynced on its own: the next durable write of the group carries it.
        try await database.write(durable: false) { db in
            try db.execute("UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?", arguments)
        }
    }

    /// Ends every session of the user ("sign out everywhere"); returns how many there were.
    @discardableResult
    public func deleteSessions(userHandle: [UInt8], event: AuditEvent?) async throws -> Int {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("DELETE FROM sessions WHERE user_handle = ?", [.blob(userHandle)])
            let count = try db.changes()
            try Self.insertEvent(db, eventArguments)
            return count
        }
    }

    // MARK: Audit events

    /// Inserts an event in the caller's transaction (nothing for nil).
    /// Inserts an event in the caller's write, linked to the chain's head, and moves the head
    /// to it (the one writer orders the chain).
    static func insertEvent(_ db: SQLiteConnection, _ pending: PendingEvent?) throws {
        guard let pending else { return }
        let previous = try db.row("SELECT head_hash FROM audit_chain WHERE id = 1") { $0.blob(0) } ?? AuditChain.genesis
        let hash = AuditChain.link(previous: previous, canonical: pending.canonical)
        try db.execute(
            "INSERT INTO events (user_handle, type, at, ip, user_agent, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            pending.arguments + [.blob(previous), .blob(hash)])
        try db.execute("UPDATE audit_chain SET head_id = last_insert_rowid(), head_hash = ? WHERE id = 1", [.blob(hash)])
    }
}
