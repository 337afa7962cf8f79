public import Foundation
public import PasskeyStorage

/// `RecoveryStore` on SQLite.
extension SQLitePasskeyStore {
    public func replaceRecoveryCodes(userHandle: [UInt8], codeHashes: [[UInt8]], at: Date, event: AuditEvent?) async throws {
        let created = try SQLiteValue.time(at)
        let eventArguments = try event?.insertArguments()
        try await database.write { db in
            try db.execute("DELETE FROM recovery_codes WHERE user_handle = ?", [.blob(userHandle)])
            for hash in codeHashes {
                try db.execute("INSERT INTO recovery_codes (user_handle, code_hash, created_at) VALUES (?, ?, ?)", [.blob(userHandle), .blob(hash), created])
            }
            try Self.insertEvent(db, eventArguments)
        }
    }

    public func recoveryCodeCount(userHandle: [UInt8]) async throws -> Int {
        try database.read { db in
            Int(try db.row("SELECT count(*) FROM recovery_codes WHERE user_handle = ?", [.blob(userHandle)]) { $0.int64(0) } ?? 0)
        }
    }

    public func redeemRecoveryCode(userHandle: [UInt8], codeHash: [UInt8], session: SessionRecord, event: AuditEvent?) async throws -> Bool {
        let sessionArguments = try session.arguments()
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            guard try Self.spendRecoveryCode(db, userHandle: userHandle, codeHash: codeHash) else { return false }
            try db.execute(SessionRecord.insert, sessionArguments)
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    /// Spends one recovery code in the caller's write; false when the account has no such code.
    static func spendRecoveryCode(_ db: SQLiteConnection, userHandle: [UInt8], codeHash: [UInt8]) throws -> Bool {
        try db.execute("DELETE FROM recovery_codes WHERE user_handle = ? AND code_hash = ?", [.blob(userHandle), .blob(codeHash)])
        return try db.changes() == 1
    }

    public func startRecovery(_ request: RecoveryRequestRecord, codeHash: [UInt8], event: AuditEvent?) async throws -> Bool {
        let r = request
        let arguments: [SQLiteValue] = [
            .blob(r.idHash), .text(r.publicID), .blob(r.userHandle), try .time(r.createdAt), try .time(r.readyAt), .optionalText(r.ip),
            .optionalText(r.userAgent), .text(r.state.rawValue),
        ]
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            guard try Self.spendRecoveryCode(db, userHandle: r.userHandle, codeHash: codeHash) else { return false }
            try db.execute("INSERT INTO recovery_requests (\(Self.recoveryColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", arguments)
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func recoveryRequest(idHash: [UInt8]) async throws -> RecoveryRequestRecord? {
        try database.read { db in
            try db.row("SELECT \(Self.recoveryColumns) FROM recovery_requests WHERE id_hash = ?", [.blob(idHash)], Self.recoveryRequest(row:))
        }
    }

    public func waitingRecoveries(userHandle: [UInt8]) async throws -> [RecoveryRequestRecord] {
        try database.read { db in
            try db.rows(
                "SELECT \(Self.recoveryColumns) FROM recovery_requests WHERE user_handle = ? AND state = 'waiting' ORDER BY created_at",
                [.blob(userHandle)], Self.recoveryRequest(row:))
        }
    }

    public func cancelRecovery(publicID: String, userHandle: [UInt8], event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                "UPDATE recovery_requests SET state = 'cancelled' WHERE public_id = ? AND user_handle = ? AND state = 'waiting'",
                [.text(publicID), .blob(userHandle)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func claimRecovery(idHash: [UInt8], now: Date, session: SessionRecord, event: AuditEvent?) async throws -> Bool {
        let sessionArguments = try session.arguments()
        let eventArguments = try event?.insertArguments()
        let at = try SQLiteValue.time(now)
        return try await database.write { db in
            try db.execute(
                "UPDATE recovery_requests SET state = 'claimed' WHERE id_hash = ? AND user_handle = ? AND state = 'waiting' AND ready_at <= ?",
                [.blob(idHash), .blob(session.userHandle), at])
            guard try db.changes() == 1 else { return false }
            try db.execute(SessionRecord.insert, sessionArguments)
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }
}

extension SQLitePasskeyStore {
    static let recoveryColumns = "id_hash, public_id, user_handle, created_at, ready_at, ip, user_agent, state"

    static func recoveryRequest(row: SQLiteRow) throws -> RecoveryRequestRecord {
        guard let state = RecoveryRequestRecord.State(rawValue: row.text(7)) else { throw StoreError.database("recovery_requests.state is not known") }
        return RecoveryRequestRecord(
            idHash: row.blob(0), publicID: row.text(1), userHandle: row.blob(2), createdAt: Date(storeMilliseconds: row.int64(3)),
            readyAt: Date(storeMilliseconds: row.int64(4)), ip: row.optionalText(5), userAgent: row.optionalText(6), state: state)
    }
}
