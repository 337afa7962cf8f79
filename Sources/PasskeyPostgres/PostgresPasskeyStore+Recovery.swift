public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `RecoveryStore` on PostgreSQL.
extension PostgresPasskeyStore {
    public func replaceRecoveryCodes(userHandle: [UInt8], codeHashes: [[UInt8]], at: Date, event: AuditEvent?) async throws {
        let handle = ByteBuffer(bytes: userHandle)
        let created = try at.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        try await transaction { db in
            try await db.query("DELETE FROM recovery_codes WHERE user_handle = \(handle)", logger: Self.quiet)
            for hash in codeHashes {
                let code = ByteBuffer(bytes: hash)
                try await db.query(
                    "INSERT INTO recovery_codes (user_handle, code_hash, created_at) VALUES (\(handle), \(code), \(created))", logger: Self.quiet)
            }
            try await Self.insert(db, eventRow)
        }
    }

    public func recoveryCodeCount(userHandle: [UInt8]) async throws -> Int {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.count(db.query("SELECT 1 FROM recovery_codes WHERE user_handle = \(handle)", logger: Self.quiet))
        }
    }

    public func redeemRecoveryCode(userHandle: [UInt8], codeHash: [UInt8], session: SessionRecord, event: AuditEvent?) async throws -> Bool {
        let handle = ByteBuffer(bytes: userHandle)
        let code = ByteBuffer(bytes: codeHash)
        let sessionRow = try SessionRow(session)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            guard try await Self.spendRecoveryCode(db, userHandle: handle, codeHash: code) else { return false }
            try await Self.insert(db, sessionRow)
            try await Self.insert(db, eventRow)
            return true
        }
    }

    /// Spends one recovery code in the caller's transaction; false when the account has no such code.
    static func spendRecoveryCode(_ db: PostgresConnection, userHandle: ByteBuffer, codeHash: ByteBuffer) async throws -> Bool {
        try await count(
            db.query("DELETE FROM recovery_codes WHERE user_handle = \(userHandle) AND code_hash = \(codeHash) RETURNING 1", logger: quiet)) == 1
    }

    public func startRecovery(_ request: RecoveryRequestRecord, codeHash: [UInt8], event: AuditEvent?) async throws -> Bool {
        let r = request
        let idHash = ByteBuffer(bytes: r.idHash), handle = ByteBuffer(bytes: r.userHandle), code = ByteBuffer(bytes: codeHash)
        let created = try r.createdAt.storeMilliseconds(), ready = try r.readyAt.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            guard try await Self.spendRecoveryCode(db, userHandle: handle, codeHash: code) else { return false }
            try await db.query(
                """
                INSERT INTO recovery_requests (id_hash, public_id, user_handle, created_at, ready_at, ip, user_agent, state)
                VALUES (\(idHash), \(r.publicID), \(handle), \(created), \(ready), \(r.ip), \(r.userAgent), \(r.state.rawValue))
                """, logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func recoveryRequest(idHash: [UInt8]) async throws -> RecoveryRequestRecord? {
        let hash = ByteBuffer(bytes: idHash)
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT id_hash, public_id, user_handle, created_at, ready_at, ip, user_agent, state FROM recovery_requests
                    WHERE id_hash = \(hash)
                    """, logger: Self.quiet), Self.recoveryRequest)
        }
    }

    public func waitingRecoveries(userHandle: [UInt8]) async throws -> [RecoveryRequestRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT id_hash, public_id, user_handle, created_at, ready_at, ip, user_agent, state FROM recovery_requests
                    WHERE user_handle = \(handle) AND state = 'waiting' ORDER BY created_at
                    """, logger: Self.quiet), Self.recoveryRequest)
        }
    }

    public func cancelRecovery(publicID: String, userHandle: [UInt8], event: AuditEvent?) async throws -> Bool {
        let handle = ByteBuffer(bytes: userHandle)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let cancelled = try await Self.count(
                db.query(
                    """
                    UPDATE recovery_requests SET state = 'cancelled'
                    WHERE public_id = \(publicID) AND user_handle = \(handle) AND state = 'waiting' RETURNING 1
                    """, logger: Self.quiet))
            guard cancelled == 1 else { return false }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func claimRecovery(idHash: [UInt8], now: Date, session: SessionRecord, event: AuditEvent?) async throws -> Bool {
        let hash = ByteBuffer(bytes: idHash), handle = ByteBuffer(bytes: session.userHandle)
        let at = try now.storeMilliseconds()
        let sessionRow = try SessionRow(session)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let claimed = try await Self.count(
                db.query(
                    """
                    UPDATE recovery_requests SET state = 'claimed'
                    WHERE id_hash = \(hash) AND user_handle = \(handle) AND state = 'waiting' AND ready_at <= \(at) RETURNING 1
                    """, logger: Self.quiet))
            guard claimed == 1 else { return false }
            try await Self.insert(db, sessionRow)
            try await Self.insert(db, eventRow)
            return true
        }
    }
}

extension PostgresPasskeyStore {
    static func recoveryRequest(_ row: PostgresRandomAccessRow) throws -> RecoveryRequestRecord {
        var c = Cursor(row)
        let idHash = try c.bytes(), publicID: String = try c.next(), userHandle = try c.bytes()
        let createdAt = try c.date(), readyAt = try c.date()
        let ip: String? = try c.next(), userAgent: String? = try c.next(), stateText: String = try c.next()
        guard let state = RecoveryRequestRecord.State(rawValue: stateText) else { throw StoreError.database("recovery_requests.state is not known") }
        return RecoveryRequestRecord(
            idHash: idHash, publicID: publicID, userHandle: userHandle, createdAt: createdAt, readyAt: readyAt, ip: ip, userAgent: userAgent,
            state: state)
    }
}
