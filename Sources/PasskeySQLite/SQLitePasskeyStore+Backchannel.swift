public import Foundation
public import PasskeyStorage

/// `BackchannelStore` on SQLite.
extension SQLitePasskeyStore {
    static let backchannelColumns = """
        b.id_hash, b.push_id, b.client_id, b.user_handle, b.scopes, b.binding_message, b.acr_values, b.ip, b.notification_token, \
        b.interval_seconds, b.last_polled_at, b.redeemed, b.approved_credential_id, b.created_at, b.expires_at, p.status, p.device_id
        """
    static let backchannelFrom = "backchannel_requests AS b JOIN push_requests AS p ON p.id = b.push_id"

    public func startBackchannel(
        _ request: BackchannelRequestRecord, push: PushRequestRecord, hourlyLimit: Int, hourStart: Date, event: AuditEvent?
    ) async throws -> BackchannelStartOutcome {
        let r = request
        let pushArguments = try push.arguments()
        let arguments: [SQLiteValue] = [
            .blob(r.idHash), .text(r.pushID), .text(r.clientID), .blob(r.userHandle), try ListCoding.encode(strings: r.scopes),
            .optionalText(r.bindingMessage), .optionalText(r.acrValues), .optionalText(r.ip), .optionalText(r.notificationToken),
            .int(r.interval), try .time(r.createdAt), try .time(r.expiresAt),
        ]
        let pending: [SQLiteValue] = [.blob(r.userHandle), .text(r.clientID), try .time(r.createdAt)]
        let hourly: [SQLiteValue] = [.blob(r.userHandle), try .time(hourStart)]
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            let open = try db.row(
                """
                SELECT count(*) FROM \(Self.backchannelFrom)
                WHERE b.user_handle = ? AND b.client_id = ? AND p.status = 'pending' AND b.expires_at > ?
                """, pending) { $0.int64(0) } ?? 0
            guard open == 0 else { return .pendingForClient }
            let recent = try db.row(
                "SELECT count(*) FROM backchannel_requests WHERE user_handle = ? AND created_at >= ?", hourly) { $0.int64(0) } ?? 0
            guard recent < Int64(hourlyLimit) else { return .hourlyLimit }
            try db.execute("INSERT INTO push_requests (\(PushRequestRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", pushArguments)
            try db.execute(
                """
                INSERT INTO backchannel_requests (
                    id_hash, push_id, client_id, user_handle, scopes, binding_message, acr_values, ip, notification_token,
                    interval_seconds, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments)
            try Self.insertEvent(db, eventArguments)
            return .started
        }
    }

    public func backchannelRequest(idHash: [UInt8]) async throws -> BackchannelRequestRecord? {
        try database.read { db in
            try db.row("SELECT \(Self.backchannelColumns) FROM \(Self.backchannelFrom) WHERE b.id_hash = ?", [.blob(idHash)], Self.backchannelRecord)
        }
    }

    public func backchannelRequest(pushID: String) async throws -> BackchannelRequestRecord? {
        try database.read { db in
            try db.row("SELECT \(Self.backchannelColumns) FROM \(Self.backchannelFrom) WHERE b.push_id = ?", [.text(pushID)], Self.backchannelRecord)
        }
    }

    public func recordBackchannelPoll(idHash: [UInt8], at: Date, interval: Int) async throws {
        let arguments: [SQLiteValue] = [try .time(at), .int(interval), .blob(idHash)]
        try await database.write { db in
            try db.execute("UPDATE backchannel_requests SET last_polled_at = ?, interval_seconds = ? WHERE id_hash = ?", arguments)
        }
    }

    public func redeemBackchannel(idHash: [UInt8], session: SessionRecord, grant: GrantRecord, event: AuditEvent?) async throws -> Bool {
        let sessionArguments = try session.arguments()
        let grantArguments = try Self.grantArguments(grant)
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                """
                UPDATE backchannel_requests SET redeemed = 1
                WHERE id_hash = ? AND redeemed = 0
                  AND (SELECT status FROM push_requests WHERE id = backchannel_requests.push_id) = 'approved'
                """, [.blob(idHash)])
            guard try db.changes() == 1 else { return false }
            try db.execute(SessionRecord.insert, sessionArguments)
            try Self.insertGrant(db, grantArguments)
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func answerBackchannel(
        pushID: String, userHandle: [UInt8], approve: Bool, credentialID: [UInt8]?, now: Date, event: AuditEvent?
    ) async throws -> Bool {
        let arguments: [SQLiteValue] = [.text(approve ? "approved" : "denied"), .text(pushID), .blob(userHandle), try .time(now)]
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                """
                UPDATE push_requests SET status = ?
                WHERE id = ? AND user_handle = ? AND purpose = 'ciba' AND status = 'pending' AND expires_at > ?
                """, arguments)
            guard try db.changes() == 1 else { return false }
            if let credentialID {
                try db.execute("UPDATE backchannel_requests SET approved_credential_id = ? WHERE push_id = ?", [.blob(credentialID), .text(pushID)])
            }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func pendingBackchannel(userHandle: [UInt8], now: Date) async throws -> [BackchannelRequestRecord] {
        let arguments: [SQLiteValue] = [.blob(userHandle), try .time(now)]
        return try database.read { db in
            try db.rows(
                """
                SELECT \(Self.backchannelColumns) FROM \(Self.backchannelFrom)
                WHERE b.user_handle = ? AND p.status = 'pending' AND b.expires_at > ?
                ORDER BY b.created_at, b.push_id
                """, arguments, Self.backchannelRecord)
        }
    }

    static func backchannelRecord(_ row: SQLiteRow) throws -> BackchannelRequestRecord {
        BackchannelRequestRecord(
            idHash: row.blob(0), pushID: row.text(1), clientID: row.text(2), userHandle: row.blob(3),
            scopes: try ListCoding.strings(row.text(4), column: "scopes"), bindingMessage: row.optionalText(5), acrValues: row.optionalText(6),
            ip: row.optionalText(7), notificationToken: row.optionalText(8), interval: Int(clamping: row.int64(9)),
            lastPolledAt: row.optionalInt64(10).map(Date.init(storeMilliseconds:)), redeemed: row.bool(11),
            approvedCredentialID: row.optionalBlob(12), createdAt: Date(storeMilliseconds: row.int64(13)),
            expiresAt: Date(storeMilliseconds: row.int64(14)), status: row.text(15), deviceID: row.optionalText(16))
    }
}
