public import PasskeyStorage
public import Foundation
internal import NIOCore
internal import PostgresNIO

/// The OpenID provider's device authorizations (RFC 8628).
extension PostgresPasskeyStore {
    static let deviceColumns = """
        device_code_hash, user_code_hash, client_id, scopes, interval_seconds, last_polled_at, status, grant_id, created_at, expires_at
        """

    public func insertDeviceAuthorization(_ authorization: DeviceAuthorizationRecord) async throws -> Bool {
        let a = authorization
        let device = ByteBuffer(bytes: a.deviceCodeHash)
        let user = ByteBuffer(bytes: a.userCodeHash)
        let interval = Int32(clamping: a.interval)
        let polled = try a.lastPolledAt.map { try $0.storeMilliseconds() }
        let created = try a.createdAt.storeMilliseconds()
        let expires = try a.expiresAt.storeMilliseconds()
        return try await write { db in
            try await Self.count(
                db.query(
                    """
                    INSERT INTO oauth_device_authorizations (\(unescaped: Self.deviceColumns))
                    VALUES (\(device), \(user), \(a.clientID), \(a.scopes), \(interval), \(polled), \(a.status.rawValue), \(a.grantID),
                        \(created), \(expires))
                    ON CONFLICT (user_code_hash) DO NOTHING
                    RETURNING 1
                    """, logger: Self.quiet)) == 1
        }
    }

    public func deviceAuthorization(userCodeHash: [UInt8], now: Date) async throws -> DeviceAuthorizationRecord? {
        let hash = ByteBuffer(bytes: userCodeHash)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT \(unescaped: Self.deviceColumns) FROM oauth_device_authorizations
                    WHERE user_code_hash = \(hash) AND expires_at > \(now)
                    """, logger: Self.quiet), Self.deviceRecord)
        }
    }

    public func pollDeviceAuthorization(deviceCodeHash: [UInt8], now: Date, slowDownStep: Int) async throws -> DevicePoll? {
        let hash = ByteBuffer(bytes: deviceCodeHash)
        let at = try now.storeMilliseconds()
        return try await transaction { db in
            // Locked for the transaction: two polls at once are judged one after the other.
            guard var record = try await Self.first(
                db.query(
                    "SELECT \(unescaped: Self.deviceColumns) FROM oauth_device_authorizations WHERE device_code_hash = \(hash) FOR UPDATE",
                    logger: Self.quiet), Self.deviceRecord)
            else { return nil }
            // Compared as stored, in milliseconds: a poll exactly the interval later is not too fast.
            let tooFast = try record.lastPolledAt.map { at < (try $0.storeMilliseconds()) + Int64(record.interval) * 1000 } ?? false
            if tooFast { record.interval += slowDownStep }
            record.lastPolledAt = Date(storeMilliseconds: at)
            let interval = Int32(clamping: record.interval)
            try await db.query(
                """
                UPDATE oauth_device_authorizations SET last_polled_at = \(at), interval_seconds = \(interval)
                WHERE device_code_hash = \(hash)
                """, logger: Self.quiet)
            return DevicePoll(authorization: record, tooFast: tooFast)
        }
    }

    public func decideDeviceAuthorization(userCodeHash: [UInt8], grant: GrantRecord?, now: Date, event: AuditEvent?) async throws -> Bool {
        let hash = ByteBuffer(bytes: userCodeHash)
        let status = (grant == nil ? DeviceAuthorizationRecord.Status.denied : .approved).rawValue
        let grantID = grant?.id
        let at = try now.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let decided = try await Self.count(
                db.query(
                    """
                    UPDATE oauth_device_authorizations SET status = \(status), grant_id = \(grantID)
                    WHERE user_code_hash = \(hash) AND status = 'pending' AND expires_at > \(at)
                    RETURNING 1
                    """, logger: Self.quiet)) == 1
            guard decided else { return false }
            if let grant { try await Self.insertGrant(db, grant) }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    static func deviceRecord(_ row: PostgresRandomAccessRow) throws -> DeviceAuthorizationRecord {
        var c = Cursor(row)
        return DeviceAuthorizationRecord(
            deviceCodeHash: try c.bytes(), userCodeHash: try c.bytes(), clientID: try c.next(), scopes: try c.next(),
            interval: Int(try c.next(Int32.self)), lastPolledAt: try c.next(Int64?.self).map(Date.init(storeMilliseconds:)),
            status: DeviceAuthorizationRecord.Status(rawValue: try c.next(String.self)) ?? .denied, grantID: try c.next(),
            createdAt: try c.date(), expiresAt: try c.date())
    }
}
