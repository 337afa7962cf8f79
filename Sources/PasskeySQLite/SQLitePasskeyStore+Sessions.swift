public import PasskeyStorage
public import Foundation

/// Sessions and the audit trail.
extension SQLitePasskeyStore {
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
    static func insertEvent(_ db: SQLiteConnection, _ arguments: [SQLiteValue]?) throws {
        guard let arguments else { return }
        try db.execute("INSERT INTO events (user_handle, type, at, ip, user_agent, details) VALUES (?, ?, ?, ?, ?, ?)", arguments)
    }

    public func events(userHandle: [UInt8], before: Int64?, limit: Int) async throws -> [AuditEvent] {
        try database.read { db in
            try db.rows(
                "SELECT \(AuditEvent.columns) FROM events WHERE user_handle = ? AND id < ? ORDER BY id DESC LIMIT ?",
                [.blob(userHandle), .integer(before ?? Int64.max), .int(max(0, limit))], AuditEvent.init(row:))
        }
    }

    public func events(userHandle: [UInt8]?, since: Date?, after: Int64?, limit: Int) async throws -> [AuditEvent] {
        let arguments: [SQLiteValue] = [
            .optionalBlob(userHandle), .optionalBlob(userHandle), try .time(since ?? Date(timeIntervalSince1970: 0)),
            .integer(after ?? 0), .int(max(0, limit)),
        ]
        return try database.read { db in
            try db.rows(
                """
                SELECT \(AuditEvent.columns) FROM events
                WHERE (? IS NULL OR user_handle = ?) AND at >= ? AND id > ? ORDER BY id LIMIT ?
                """, arguments, AuditEvent.init(row:))
        }
    }

    public func deleteEvents(olderThan cutoff: Date) async throws -> Int {
        let cutoff = try SQLiteValue.time(cutoff)
        return try await database.write { db in
            try db.execute("DELETE FROM events WHERE at < ?", [cutoff])
            return try db.changes()
        }
    }
}
