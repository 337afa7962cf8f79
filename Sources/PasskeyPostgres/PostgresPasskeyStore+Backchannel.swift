public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `BackchannelStore` on PostgreSQL. The fatigue limits are counted under a lock on the
/// user's row, so that two instances starting requests for one user take turns.
extension PostgresPasskeyStore {
    static let backchannelColumns = """
        b.id_hash, b.push_id, b.client_id, b.user_handle, b.scopes, b.binding_message, b.acr_values, b.ip, b.notification_token, \
        b.interval_seconds, b.last_polled_at, b.redeemed, b.approved_credential_id, b.created_at, b.expires_at, p.status, p.device_id
        """
    static let backchannelFrom = "backchannel_requests AS b JOIN push_requests AS p ON p.id = b.push_id"

    public func startBackchannel(
        _ request: BackchannelRequestRecord, push: PushRequestRecord, hourlyLimit: Int, hourStart: Date, event: AuditEvent?
    ) async throws -> BackchannelStartOutcome {
        let r = request
        let p = try PushRequestRow(push)
        let idHash = ByteBuffer(bytes: r.idHash), handle = ByteBuffer(bytes: r.userHandle)
        let created = try r.createdAt.storeMilliseconds(), expires = try r.expiresAt.storeMilliseconds()
        let since = try hourStart.storeMilliseconds()
        let interval = Int64(r.interval)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            // One user's requests are started one at a time, whichever instance starts them.
            try await db.query("SELECT 1 FROM users WHERE handle = \(handle) FOR UPDATE", logger: Self.quiet)
            let open = try await Self.first(
                db.query(
                    """
                    SELECT count(*) FROM \(unescaped: Self.backchannelFrom)
                    WHERE b.user_handle = \(handle) AND b.client_id = \(r.clientID) AND p.status = 'pending' AND b.expires_at > \(created)
                    """, logger: Self.quiet), { try $0[0].decode(Int64.self) }) ?? 0
            guard open == 0 else { return .pendingForClient }
            let recent = try await Self.first(
                db.query(
                    "SELECT count(*) FROM backchannel_requests WHERE user_handle = \(handle) AND created_at >= \(since)", logger: Self.quiet),
                { try $0[0].decode(Int64.self) }) ?? 0
            guard recent < Int64(hourlyLimit) else { return .hourlyLimit }
            try await db.query(
                """
                INSERT INTO push_requests (\(unescaped: PushRequestRow.columns)) VALUES (
                \(p.id), \(p.userHandle), \(p.watchHash), \(p.challenge), \(p.number), \(p.status), \(p.deviceID), \(p.createdAt),
                \(p.expiresAt), \(p.sessionIssued), \(p.purpose))
                """, logger: Self.quiet)
            try await db.query(
                """
                INSERT INTO backchannel_requests (
                    id_hash, push_id, client_id, user_handle, scopes, binding_message, acr_values, ip, notification_token,
                    interval_seconds, created_at, expires_at)
                VALUES (
                    \(idHash), \(r.pushID), \(r.clientID), \(handle), \(r.scopes), \(r.bindingMessage), \(r.acrValues), \(r.ip),
                    \(r.notificationToken), \(interval), \(created), \(expires))
                """, logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return .started
        }
    }

    public func backchannelRequest(idHash: [UInt8]) async throws -> BackchannelRequestRecord? {
        let hash = ByteBuffer(bytes: idHash)
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    "SELECT \(unescaped: Self.backchannelColumns) FROM \(unescaped: Self.backchannelFrom) WHERE b.id_hash = \(hash)",
                    logger: Self.quiet), Self.backchannelRecord)
        }
    }

    public func backchannelRequest(pushID: String) async throws -> BackchannelRequestRecord? {
        try await withConnection { db in
            try await Self.first(
                db.query(
                    "SELECT \(unescaped: Self.backchannelColumns) FROM \(unescaped: Self.backchannelFrom) WHERE b.push_id = \(pushID)",
                    logger: Self.quiet), Self.backchannelRecord)
        }
    }

    public func recordBackchannelPoll(idHash: [UInt8], at: Date, interval: Int) async throws {
        let hash = ByteBuffer(bytes: idHash)
        let polled = try at.storeMilliseconds()
        let seconds = Int64(interval)
        try await write { db in
            try await db.query(
                "UPDATE backchannel_requests SET last_polled_at = \(polled), interval_seconds = \(seconds) WHERE id_hash = \(hash)",
                logger: Self.quiet)
        }
    }

    public func redeemBackchannel(idHash: [UInt8], session: SessionRecord, grant: GrantRecord, event: AuditEvent?) async throws -> Bool {
        let hash = ByteBuffer(bytes: idHash)
        let sessionRow = try SessionRow(session)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let redeemed = try await Self.count(
                db.query(
                    """
                    UPDATE backchannel_requests AS b SET redeemed = true
                    FROM push_requests AS p
                    WHERE b.id_hash = \(hash) AND NOT b.redeemed AND p.id = b.push_id AND p.status = 'approved'
                    RETURNING 1
                    """, logger: Self.quiet))
            guard redeemed == 1 else { return false }
            try await Self.insert(db, sessionRow)
            try await Self.insertGrant(db, grant)
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func answerBackchannel(
        pushID: String, userHandle: [UInt8], approve: Bool, credentialID: [UInt8]?, now: Date, event: AuditEvent?
    ) async throws -> Bool {
        let handle = ByteBuffer(bytes: userHandle)
        let credential = credentialID.map { ByteBuffer(bytes: $0) }
        let at = try now.storeMilliseconds()
        let status = approve ? "approved" : "denied"
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let answered = try await Self.count(
                db.query(
                    """
                    UPDATE push_requests SET status = \(status)
                    WHERE id = \(pushID) AND user_handle = \(handle) AND purpose = 'ciba' AND status = 'pending' AND expires_at > \(at)
                    RETURNING 1
                    """, logger: Self.quiet))
            guard answered == 1 else { return false }
            if let credential {
                try await db.query(
                    "UPDATE backchannel_requests SET approved_credential_id = \(credential) WHERE push_id = \(pushID)", logger: Self.quiet)
            }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func pendingBackchannel(userHandle: [UInt8], now: Date) async throws -> [BackchannelRequestRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        let at = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT \(unescaped: Self.backchannelColumns) FROM \(unescaped: Self.backchannelFrom)
                    WHERE b.user_handle = \(handle) AND p.status = 'pending' AND b.expires_at > \(at)
                    ORDER BY b.created_at, b.push_id
                    """, logger: Self.quiet), Self.backchannelRecord)
        }
    }

    static func backchannelRecord(_ row: PostgresRandomAccessRow) throws -> BackchannelRequestRecord {
        var c = Cursor(row)
        let idHash = try c.bytes(), pushID: String = try c.next(), clientID: String = try c.next(), userHandle = try c.bytes()
        let scopes: [String] = try c.next(), bindingMessage: String? = try c.next(), acrValues: String? = try c.next()
        let ip: String? = try c.next(), notificationToken: String? = try c.next(), interval: Int64 = try c.next()
        let lastPolled: Int64? = try c.next(), redeemed: Bool = try c.next(), approvedCredential = try c.optionalBytes()
        return BackchannelRequestRecord(
            idHash: idHash, pushID: pushID, clientID: clientID, userHandle: userHandle, scopes: scopes, bindingMessage: bindingMessage,
            acrValues: acrValues, ip: ip, notificationToken: notificationToken, interval: Int(clamping: interval),
            lastPolledAt: lastPolled.map(Date.init(storeMilliseconds:)), redeemed: redeemed, approvedCredentialID: approvedCredential,
            createdAt: try c.date(), expiresAt: try c.date(), status: try c.next(), deviceID: try c.next())
    }
}
