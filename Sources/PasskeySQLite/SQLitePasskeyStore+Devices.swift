public import PasskeyStorage
public import Foundation

/// The OpenID provider's device authorizations (RFC 8628).
extension SQLitePasskeyStore {
    static let deviceColumns = """
        device_code_hash, user_code_hash, client_id, scopes, interval_seconds, last_polled_at, status, grant_id, created_at, expires_at
        """

    public func insertDeviceAuthorization(_ authorization: DeviceAuthorizationRecord) async throws -> Bool {
        let a = authorization
        let arguments: [SQLiteValue] = [
            .blob(a.deviceCodeHash), .blob(a.userCodeHash), .text(a.clientID), try ListCoding.encode(strings: a.scopes), .int(a.interval),
            try .optionalTime(a.lastPolledAt), .text(a.status.rawValue), .optionalText(a.grantID), try .time(a.createdAt), try .time(a.expiresAt),
        ]
        return try await database.write { db in
            try db.execute(
                """
                INSERT INTO oauth_device_authorizations (\(Self.deviceColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_code_hash) DO NOTHING
                """, arguments)
            return try db.changes() == 1
        }
    }

    public func deviceAuthorization(userCodeHash: [UInt8], now: Date) async throws -> DeviceAuthorizationRecord? {
        let arguments: [SQLiteValue] = [.blob(userCodeHash), try .time(now)]
        return try database.read { db in
            try db.row(
                "SELECT \(Self.deviceColumns) FROM oauth_device_authorizations WHERE user_code_hash = ? AND expires_at > ?", arguments,
                Self.deviceRecord)
        }
    }

    public func pollDeviceAuthorization(deviceCodeHash: [UInt8], now: Date, slowDownStep: Int) async throws -> DevicePoll? {
        let nowValue = try SQLiteValue.time(now)
        let at = try now.storeMilliseconds()
        return try await database.write { db in
            guard var record = try db.row(
                "SELECT \(Self.deviceColumns) FROM oauth_device_authorizations WHERE device_code_hash = ?", [.blob(deviceCodeHash)],
                Self.deviceRecord)
            else { return nil }
            // Compared as stored, in milliseconds: a poll exactly the interval later is not too fast.
            let tooFast = try record.lastPolledAt.map { at < (try $0.storeMilliseconds()) + Int64(record.interval) * 1000 } ?? false
            if tooFast { record.interval += slowDownStep }
            record.lastPolledAt = Date(storeMilliseconds: at)
            try db.execute(
                "UPDATE oauth_device_authorizations SET last_polled_at = ?, interval_seconds = ? WHERE device_code_hash = ?",
                [nowValue, .int(record.interval), .blob(deviceCodeHash)])
            return DevicePoll(authorization: record, tooFast: tooFast)
        }
    }

    public func decideDeviceAuthorization(userCodeHash: [UInt8], grant: GrantRecord?, now: Date, event: AuditEvent?) async throws -> Bool {
        let status = grant == nil ? DeviceAuthorizationRecord.Status.denied : .approved
        let arguments: [SQLiteValue] = [.text(status.rawValue), .optionalText(grant?.id), .blob(userCodeHash), try .time(now)]
        let grantArguments = try grant.map(Self.grantArguments)
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                """
                UPDATE oauth_device_authorizations SET status = ?, grant_id = ?
                WHERE user_code_hash = ? AND status = 'pending' AND expires_at > ?
                """, arguments)
            guard try db.changes() == 1 else { return false }
            if let grantArguments { try Self.insertGrant(db, grantArguments) }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    static func deviceRecord(_ row: SQLiteRow) throws -> DeviceAuthorizationRecord {
        DeviceAuthorizationRecord(
            deviceCodeHash: row.blob(0), userCodeHash: row.blob(1), clientID: row.text(2),
            scopes: try ListCoding.strings(row.text(3), column: "scopes"), interval: Int(row.int64(4)),
            lastPolledAt: row.optionalInt64(5).map(Date.init(storeMilliseconds:)),
            status: DeviceAuthorizationRecord.Status(rawValue: row.text(6)) ?? .denied, grantID: row.optionalText(7),
            createdAt: Date(storeMilliseconds: row.int64(8)), expiresAt: Date(storeMilliseconds: row.int64(9)))
    }
}
