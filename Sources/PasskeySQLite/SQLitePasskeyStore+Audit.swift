public import Foundation
public import PasskeyStorage

/// `AuditStore` on SQLite.
extension SQLitePasskeyStore {
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
            // A whole prefix: the events before the first one that is not older than the cutoff
            // (an older event after it stays until the next sweep that reaches it).
            let keptFrom = try db.row("SELECT min(id) FROM events WHERE at >= ?", [cutoff], { $0.optionalInt64(0) }) ?? nil
            guard let last = try db.row("SELECT max(id) FROM events WHERE id < ?", [.integer(keptFrom ?? Int64.max)], { $0.optionalInt64(0) }) ?? nil
            else { return 0 }
            let startHash = try db.row("SELECT hash FROM events WHERE id = ?", [.integer(last)]) { $0.optionalBlob(0) } ?? nil
            try db.execute("DELETE FROM events WHERE id <= ?", [.integer(last)])
            let deleted = try db.changes()
            if let startHash { try db.execute("UPDATE audit_chain SET start_hash = ? WHERE id = 1", [.blob(startHash)]) }
            return deleted
        }
    }

    public func auditChainState() async throws -> AuditChainState {
        try database.read { db in
            try db.row("SELECT start_hash, head_id, head_hash FROM audit_chain WHERE id = 1") { row in
                AuditChainState(startHash: row.blob(0), headID: row.int64(1), headHash: row.blob(2))
            } ?? AuditChainState(startHash: AuditChain.genesis, headID: 0, headHash: AuditChain.genesis)
        }
    }

    public func chainedEvents(after: Int64, limit: Int) async throws -> [ChainedEvent] {
        try database.read { db in
            try db.rows(
                "SELECT id, user_handle, type, at, ip, user_agent, details, prev_hash, hash FROM events WHERE id > ? ORDER BY id LIMIT ?",
                [.integer(after), .int(max(0, limit))]
            ) { row in
                ChainedEvent(
                    id: row.int64(0), userHandle: row.blob(1), type: row.text(2), atMilliseconds: row.int64(3), ip: row.optionalText(4),
                    userAgent: row.optionalText(5), details: row.text(6), prevHash: row.optionalBlob(7), hash: row.optionalBlob(8))
            }
        }
    }

    /// Events are linked in the write that stores them (the one writer orders them).
    public func sealAuditChain() async throws -> Int { 0 }

    public func insertCheckpoint(_ checkpoint: AuditCheckpoint) async throws {
        let arguments: [SQLiteValue] = [.integer(checkpoint.eventID), .blob(checkpoint.hash), try .time(checkpoint.at), .text(checkpoint.jws)]
        try await database.write { db in
            try db.execute("INSERT INTO audit_checkpoints (event_id, hash, at, jws) VALUES (?, ?, ?, ?)", arguments)
        }
    }

    public func checkpoints() async throws -> [AuditCheckpoint] {
        try database.read { db in
            try db.rows("SELECT id, event_id, hash, at, jws FROM audit_checkpoints ORDER BY id", []) { row in
                AuditCheckpoint(id: row.int64(0), eventID: row.int64(1), hash: row.blob(2), at: Date(storeMilliseconds: row.int64(3)), jws: row.text(4))
            }
        }
    }
}
