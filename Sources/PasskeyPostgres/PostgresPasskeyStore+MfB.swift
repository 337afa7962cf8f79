public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `MfBStore` on PostgreSQL.
extension PostgresPasskeyStore {
    public func insertMfBRequest(_ request: MfBRequestRecord) async throws {
        let r = try MfBRequestRow(request)
        try await write { db in
            try await db.query(
                """
                INSERT INTO mfb_requests (\(unescaped: MfBRequestRow.columns)) VALUES (
                \(r.id), \(r.privateKey), \(r.publicPoint), \(r.pointHash), \(r.deviceUserHandle), \(r.status), \(r.userHandle),
                \(r.errors), \(r.createdAt), \(r.expiresAt), \(r.gatewayMessageID), \(r.gatewayStatus))
                """, logger: Self.quiet)
        }
    }

    public func mfbRequest(id: String) async throws -> MfBRequestRecord? {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: MfBRequestRow.columns) FROM mfb_requests WHERE id = \(id)", logger: Self.quiet),
                MfBRequestRow.record)
        }
    }

    public func mfbRequest(pointHash: [UInt8]) async throws -> MfBRequestRecord? {
        let hash = ByteBuffer(bytes: pointHash)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: MfBRequestRow.columns) FROM mfb_requests WHERE point_hash = \(hash)", logger: Self.quiet),
                MfBRequestRow.record)
        }
    }

    public func auditMfBDevice(requestID: String?, deviceUserHandle: String, now: Date, mismatch: AuditEvent) async throws -> Bool {
        let eventRow = try EventRow(mismatch)
        let at = try now.storeMilliseconds()
        return try await transaction { db in
            if let requestID {
                // Binds the first visitor's handle; a concurrent first visit waits for the row, then reads it bound.
                try await db.query(
                    """
                    UPDATE mfb_requests SET device_user_handle = \(deviceUserHandle)
                    WHERE id = \(requestID) AND device_user_handle IS NULL AND status = 'pending' AND expires_at > \(at)
                    """, logger: Self.quiet)
                let bound = try await Self.first(
                    db.query(
                        """
                        SELECT device_user_handle FROM mfb_requests
                        WHERE id = \(requestID) AND status = 'pending' AND expires_at > \(at)
                        """, logger: Self.quiet),
                    { try $0[0].decode(String?.self) })
                if bound == .some(deviceUserHandle) { return true }
            }
            try await Self.insert(db, eventRow)
            return false
        }
    }

    public func insertMfBGrant(_ grant: MfBGrantRecord, now: Date) async throws -> Bool {
        let g = try MfBGrantRow(grant)
        let at = try now.storeMilliseconds()
        return try await transaction { db in
            let inserted = try await Self.count(db.query(
                """
                INSERT INTO mfb_grants (\(unescaped: MfBGrantRow.columns))
                SELECT \(g.hash), \(g.kind), \(g.requestID), \(g.userHandle), \(g.clientID), \(g.redirectURI), \(g.expiresAt)
                WHERE EXISTS (SELECT 1 FROM mfb_requests WHERE id = \(g.requestID) AND status = 'pending' AND expires_at > \(at))
                RETURNING 1
                """, logger: Self.quiet))
            return inserted == 1
        }
    }

    public func exchangeMfBCode(
        hash: [UInt8], clientID: String, redirectURI: String, now: Date, accessTokenHash: [UInt8], accessTokenExpiresAt: Date
    ) async throws -> Bool {
        let code = ByteBuffer(bytes: hash)
        let token = ByteBuffer(bytes: accessTokenHash)
        let tokenExpiry = try accessTokenExpiresAt.storeMilliseconds()
        let at = try now.storeMilliseconds()
        return try await transaction { db in
            // The access token takes the code's request and account, in the statement that spends the code.
            let inserted = try await Self.count(db.query(
                """
                WITH spent AS (
                    DELETE FROM mfb_grants
                    WHERE hash = \(code) AND kind = 'code' AND client_id = \(clientID) AND redirect_uri = \(redirectURI)
                      AND expires_at > \(at)
                      AND request_id IN (SELECT id FROM mfb_requests WHERE status = 'pending' AND expires_at > \(at))
                    RETURNING request_id, user_handle
                )
                INSERT INTO mfb_grants (\(unescaped: MfBGrantRow.columns))
                SELECT \(token), 'access_token', request_id, user_handle, \(clientID), \(redirectURI), \(tokenExpiry)
                FROM spent
                RETURNING 1
                """, logger: Self.quiet))
            return inserted == 1
        }
    }

    public func completeMfBRequest(id: String, grantHash: [UInt8], now: Date, signedIn: AuditEvent) async throws -> MfBReplyOutcome {
        let hash = ByteBuffer(bytes: grantHash)
        let at = try now.storeMilliseconds()
        return try await transaction { db in
            if let outcome = try await Self.unanswered(db, id: id, at: at) { return outcome }
            guard let handle = try await Self.first(
                db.query(
                    "DELETE FROM mfb_grants WHERE hash = \(hash) AND request_id = \(id) AND expires_at > \(at) RETURNING user_handle",
                    logger: Self.quiet),
                { try $0[0].decode(ByteBuffer.self) })
            else { return .grantUnknown }
            guard let name = try await Self.first(
                db.query("SELECT name FROM users WHERE handle = \(handle)", logger: Self.quiet), { try $0[0].decode(String.self) })
            else { throw StoreError.database("the grant's account vanished") }
            try await db.query(
                "UPDATE mfb_requests SET status = 'authenticated', user_handle = \(handle), private_key = NULL WHERE id = \(id)",
                logger: Self.quiet)
            try await db.query("DELETE FROM mfb_grants WHERE request_id = \(id)", logger: Self.quiet)
            var event = signedIn
            event.userHandle = Array(handle.readableBytesView)
            try await Self.insert(db, try EventRow(event))
            return .authenticated(userName: name, userHandle: event.userHandle)
        }
    }

    public func failMfBRequest(id: String, errors: String, now: Date, event: AuditEvent?) async throws -> MfBReplyOutcome {
        let at = try now.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            if let outcome = try await Self.unanswered(db, id: id, at: at) { return outcome }
            try await db.query(
                "UPDATE mfb_requests SET status = 'failed', errors = \(errors), private_key = NULL WHERE id = \(id)", logger: Self.quiet)
            try await db.query("DELETE FROM mfb_grants WHERE request_id = \(id)", logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return .failed
        }
    }

    public func recordMfBSend(id: String, messageID: String, gatewayStatus: Int?, failure: String?, event: AuditEvent?) async throws {
        let eventRow = try event.map(EventRow.init)
        let status = gatewayStatus.map(Int64.init)
        try await transaction { db in
            if let failure {
                let failed = try await Self.first(
                    db.query(
                        """
                        UPDATE mfb_requests SET status = 'failed', errors = \(failure), private_key = NULL,
                            gateway_message_id = \(messageID), gateway_status = \(status)
                        WHERE id = \(id) AND status = 'pending' RETURNING 1
                        """, logger: Self.quiet), { _ in true }) ?? false
                guard failed else { return }
                try await db.query("DELETE FROM mfb_grants WHERE request_id = \(id)", logger: Self.quiet)
            } else {
                try await db.query(
                    """
                    UPDATE mfb_requests SET gateway_message_id = \(messageID), gateway_status = \(status)
                    WHERE id = \(id) AND status = 'pending'
                    """, logger: Self.quiet)
            }
            try await Self.insert(db, eventRow)
        }
    }

    /// Nil when the request is pending and unexpired (its row then locked for this
    /// transaction: of two replies, the second waits and finds it answered).
    private static func unanswered(_ db: PostgresConnection, id: String, at: Int64) async throws -> MfBReplyOutcome? {
        let state = try await first(
            db.query("SELECT status, expires_at > \(at) FROM mfb_requests WHERE id = \(id) FOR UPDATE", logger: quiet),
            { (try $0[0].decode(String.self), try $0[1].decode(Bool.self)) })
        guard let (status, live) = state, live || status != "pending" else { return .notFound }
        return status == "pending" ? nil : .alreadyAnswered
    }
}
