public import Foundation
public import PasskeyStorage

/// Messages for Business on SQLite.
extension MfBRequestRecord {
    static let columns =
        "id, private_key, public_point, point_hash, device_user_handle, status, user_handle, errors, created_at, expires_at, "
        + "gateway_message_id, gateway_status"

    init(row: SQLiteRow) {
        self.init(
            id: row.text(0), privateKey: row.optionalBlob(1), publicPoint: row.blob(2), pointHash: row.blob(3),
            deviceUserHandle: row.optionalText(4), status: row.text(5), userHandle: row.optionalBlob(6), errors: row.optionalText(7),
            createdAt: Date(storeMilliseconds: row.int64(8)), expiresAt: Date(storeMilliseconds: row.int64(9)),
            gatewayMessageID: row.optionalText(10), gatewayStatus: row.optionalInt64(11).flatMap { Int(exactly: $0) })
    }

    func arguments() throws -> [SQLiteValue] {
        [
            .text(id), .optionalBlob(privateKey), .blob(publicPoint), .blob(pointHash), .optionalText(deviceUserHandle), .text(status),
            .optionalBlob(userHandle), .optionalText(errors), try .time(createdAt), try .time(expiresAt), .optionalText(gatewayMessageID),
            gatewayStatus.map { .int($0) } ?? .null,
        ]
    }
}

extension MfBGrantRecord {
    static let columns = "hash, kind, request_id, user_handle, client_id, redirect_uri, expires_at"

    func arguments() throws -> [SQLiteValue] {
        [.blob(hash), .text(kind.rawValue), .text(requestID), .blob(userHandle), .text(clientID), .text(redirectURI), try .time(expiresAt)]
    }
}

/// `MfBStore` on SQLite.
extension SQLitePasskeyStore {
    public func insertMfBRequest(_ request: MfBRequestRecord) async throws {
        let arguments = try request.arguments()
        try await database.write { db in
            try db.execute("INSERT INTO mfb_requests (\(MfBRequestRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments)
        }
    }

    public func mfbRequest(id: String) async throws -> MfBRequestRecord? {
        try database.read { db in
            try db.row("SELECT \(MfBRequestRecord.columns) FROM mfb_requests WHERE id = ?", [.text(id)], MfBRequestRecord.init(row:))
        }
    }

    public func mfbRequest(pointHash: [UInt8]) async throws -> MfBRequestRecord? {
        try database.read { db in
            try db.row(
                "SELECT \(MfBRequestRecord.columns) FROM mfb_requests WHERE point_hash = ?", [.blob(pointHash)], MfBRequestRecord.init(row:))
        }
    }

    public func auditMfBDevice(requestID: String?, deviceUserHandle: String, now: Date, mismatch: AuditEvent) async throws -> Bool {
        let eventArguments = try mismatch.insertArguments()
        let at = try SQLiteValue.time(now)
        return try await database.write { db in
            if let requestID {
                try db.execute(
                    """
                    UPDATE mfb_requests SET device_user_handle = ?
                    WHERE id = ? AND device_user_handle IS NULL AND status = 'pending' AND expires_at > ?
                    """, [.text(deviceUserHandle), .text(requestID), at])
                let bound = try db.row(
                    "SELECT device_user_handle FROM mfb_requests WHERE id = ? AND status = 'pending' AND expires_at > ?",
                    [.text(requestID), at], { $0.optionalText(0) })
                if bound == deviceUserHandle { return true }
            }
            try Self.insertEvent(db, eventArguments)
            return false
        }
    }

    public func insertMfBGrant(_ grant: MfBGrantRecord, now: Date) async throws -> Bool {
        let arguments = try grant.arguments()
        let at = try SQLiteValue.time(now)
        return try await database.write { db in
            let pending = try db.row(
                "SELECT 1 FROM mfb_requests WHERE id = ? AND status = 'pending' AND expires_at > ?", [.text(grant.requestID), at], { _ in true })
            guard pending == true else { return false }
            try db.execute("INSERT INTO mfb_grants (\(MfBGrantRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?)", arguments)
            return true
        }
    }

    public func exchangeMfBCode(
        hash: [UInt8], clientID: String, redirectURI: String, now: Date, accessTokenHash: [UInt8], accessTokenExpiresAt: Date
    ) async throws -> Bool {
        let at = try SQLiteValue.time(now)
        let tokenExpiry = try SQLiteValue.time(accessTokenExpiresAt)
        return try await database.write { db in
            let code = try db.row(
                """
                DELETE FROM mfb_grants
                WHERE hash = ? AND kind = 'code' AND client_id = ? AND redirect_uri = ? AND expires_at > ?
                  AND request_id IN (SELECT id FROM mfb_requests WHERE status = 'pending' AND expires_at > ?)
                RETURNING request_id, user_handle
                """, [.blob(hash), .text(clientID), .text(redirectURI), at, at], { ($0.text(0), $0.blob(1)) })
            guard let (requestID, userHandle) = code else { return false }
            try db.execute(
                "INSERT INTO mfb_grants (\(MfBGrantRecord.columns)) VALUES (?, 'access_token', ?, ?, ?, ?, ?)",
                [.blob(accessTokenHash), .text(requestID), .blob(userHandle), .text(clientID), .text(redirectURI), tokenExpiry])
            return true
        }
    }

    public func completeMfBRequest(id: String, grantHash: [UInt8], now: Date, signedIn: AuditEvent) async throws -> MfBReplyOutcome {
        let at = try SQLiteValue.time(now)
        return try await database.write { db in
            if let outcome = try Self.unanswered(db, id: id, at: at) { return outcome }
            guard let userHandle = try db.row(
                "DELETE FROM mfb_grants WHERE hash = ? AND request_id = ? AND expires_at > ? RETURNING user_handle",
                [.blob(grantHash), .text(id), at], { $0.blob(0) })
            else { return .grantUnknown }
            guard let name = try db.row("SELECT name FROM users WHERE handle = ?", [.blob(userHandle)], { $0.text(0) }) else {
                throw StoreError.database("the grant's account vanished")
            }
            try db.execute(
                "UPDATE mfb_requests SET status = 'authenticated', user_handle = ?, private_key = NULL WHERE id = ?",
                [.blob(userHandle), .text(id)])
            try db.execute("DELETE FROM mfb_grants WHERE request_id = ?", [.text(id)])
            var event = signedIn
            event.userHandle = userHandle
            try Self.insertEvent(db, try event.insertArguments())
            return .authenticated(userName: name, userHandle: userHandle)
        }
    }

    public func failMfBRequest(id: String, errors: String, now: Date, event: AuditEvent?) async throws -> MfBReplyOutcome {
        let at = try SQLiteValue.time(now)
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            if let outcome = try Self.unanswered(db, id: id, at: at) { return outcome }
            try db.execute(
                "UPDATE mfb_requests SET status = 'failed', errors = ?, private_key = NULL WHERE id = ?", [.text(errors), .text(id)])
            try db.execute("DELETE FROM mfb_grants WHERE request_id = ?", [.text(id)])
            if let eventArguments { try Self.insertEvent(db, eventArguments) }
            return .failed
        }
    }

    public func recordMfBSend(id: String, messageID: String, gatewayStatus: Int?, failure: String?, event: AuditEvent?) async throws {
        let eventArguments = try event?.insertArguments()
        let status: SQLiteValue = gatewayStatus.map { .int($0) } ?? .null
        try await database.write { db in
            if let failure {
                try db.execute(
                    """
                    UPDATE mfb_requests SET status = 'failed', errors = ?, private_key = NULL, gateway_message_id = ?, gateway_status = ?
                    WHERE id = ? AND status = 'pending'
                    """, [.text(failure), .text(messageID), status, .text(id)])
                guard try db.changes() > 0 else { return }
                try db.execute("DELETE FROM mfb_grants WHERE request_id = ?", [.text(id)])
                if let eventArguments { try Self.insertEvent(db, eventArguments) }
            } else {
                try db.execute(
                    "UPDATE mfb_requests SET gateway_message_id = ?, gateway_status = ? WHERE id = ? AND status = 'pending'",
                    [.text(messageID), status, .text(id)])
                if let eventArguments { try Self.insertEvent(db, eventArguments) }
            }
        }
    }

    /// Nil when the request is pending and unexpired; otherwise why a reply cannot change it.
    private static func unanswered(_ db: SQLiteConnection, id: String, at: SQLiteValue) throws -> MfBReplyOutcome? {
        let state = try db.row(
            "SELECT status, expires_at > ? FROM mfb_requests WHERE id = ?", [at, .text(id)], { ($0.text(0), $0.bool(1)) })
        guard let (status, live) = state, live || status != "pending" else { return .notFound }
        return status == "pending" ? nil : .alreadyAnswered
    }
}
