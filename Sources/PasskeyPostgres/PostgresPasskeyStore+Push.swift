public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `PushStore` on PostgreSQL.
extension PostgresPasskeyStore {
    public func insertPushDiscovery(_ d: PushDiscoveryRecord) async throws {
        let handle = ByteBuffer(bytes: d.userHandle)
        let expires = try d.expiresAt.storeMilliseconds()
        try await write { db in
            try await db.query(
                """
                INSERT INTO push_discoveries (device_id, user_handle, challenge, expires_at)
                VALUES (\(d.deviceID), \(handle), \(d.challenge), \(expires))
                """, logger: Self.quiet)
        }
    }

    public func pushDiscovery(deviceID: String, now: Date) async throws -> PushDiscoveryRecord? {
        let at = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT device_id, user_handle, challenge, expires_at FROM push_discoveries
                    WHERE device_id = \(deviceID) AND expires_at > \(at)
                    """, logger: Self.quiet),
                PushDiscoveryRow.record)
        }
    }

    public func registerPushDevice(_ device: PushDeviceRecord, now: Date, maxDevices: Int, event: AuditEvent?) async throws -> PushEnrolmentOutcome {
        let row = try PushDeviceRow(device)
        let eventRow = try event.map(EventRow.init)
        let at = try now.storeMilliseconds()
        let limit = Int64(maxDevices)
        return try await transaction { db in
            // The account's row, locked: two enrolments of one account count one after the other.
            try await db.query("SELECT 1 FROM users WHERE handle = \(row.userHandle) FOR UPDATE", logger: Self.quiet)
            let count = try await Self.first(
                db.query("SELECT count(*) FROM push_devices WHERE user_handle = \(row.userHandle)", logger: Self.quiet),
                { try $0.decode(Int64.self) }) ?? 0
            if count >= limit {
                let pending = try await Self.first(
                    db.query(
                        """
                        SELECT 1 FROM push_discoveries
                        WHERE device_id = \(row.id) AND user_handle = \(row.userHandle) AND expires_at > \(at)
                        """, logger: Self.quiet),
                    { _ in true })
                return pending == nil ? .discoveryGone : .tooManyDevices
            }
            let spent = try await Self.count(db.query(
                """
                DELETE FROM push_discoveries WHERE device_id = \(row.id) AND user_handle = \(row.userHandle) AND expires_at > \(at)
                RETURNING 1
                """, logger: Self.quiet))
            guard spent == 1 else { return .discoveryGone }
            try await db.query(
                """
                INSERT INTO push_devices (\(unescaped: PushDeviceRow.columns)) VALUES (
                \(row.id), \(row.userHandle), \(row.name), \(row.model), \(row.deviceToken), \(row.publicKey), \(row.createdAt),
                \(row.lastUsedAt), \(row.disabled), \(row.apnsEnvironment))
                """, logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return .registered
        }
    }

    public func pushDevice(id: String) async throws -> PushDeviceRecord? {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: PushDeviceRow.columns) FROM push_devices WHERE id = \(id)", logger: Self.quiet),
                PushDeviceRow.record)
        }
    }

    public func pushDevices(userHandle: [UInt8]) async throws -> [PushDeviceRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    "SELECT \(unescaped: PushDeviceRow.columns) FROM push_devices WHERE user_handle = \(handle) ORDER BY created_at, id",
                    logger: Self.quiet),
                PushDeviceRow.record)
        }
    }

    public func deletePushDevice(id: String, userHandle: [UInt8], event: AuditEvent?) async throws -> Bool {
        let handle = ByteBuffer(bytes: userHandle)
        let eventRow = try event.map(EventRow.init)
        let via = "push:" + id
        return try await transaction { db in
            let deleted = try await Self.count(db.query(
                "DELETE FROM push_devices WHERE id = \(id) AND user_handle = \(handle) RETURNING 1", logger: Self.quiet))
            guard deleted == 1 else { return false }
            try await db.query("DELETE FROM sessions WHERE user_handle = \(handle) AND via = \(via)", logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func disablePushDevice(id: String) async throws {
        try await write { db in
            try await db.query("UPDATE push_devices SET disabled = true WHERE id = \(id)", logger: Self.quiet)
        }
    }

    public func insertPushRequest(_ request: PushRequestRecord) async throws {
        let r = try PushRequestRow(request)
        try await transaction { db in
            if let handle = r.userHandle {
                try await db.query(
                    "UPDATE push_requests SET status = 'replaced' WHERE user_handle = \(handle) AND status = 'pending' AND purpose = \(r.purpose)",
                    logger: Self.quiet)
            }
            try await db.query(
                """
                INSERT INTO push_requests (\(unescaped: PushRequestRow.columns)) VALUES (
                \(r.id), \(r.userHandle), \(r.watchHash), \(r.challenge), \(r.number), \(r.status), \(r.deviceID), \(r.createdAt),
                \(r.expiresAt), \(r.sessionIssued), \(r.purpose))
                """, logger: Self.quiet)
        }
    }

    public func pushRequest(id: String) async throws -> PushRequestRecord? {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: PushRequestRow.columns) FROM push_requests WHERE id = \(id)", logger: Self.quiet),
                PushRequestRow.record)
        }
    }

    public func pushRequest(watchHash: [UInt8]) async throws -> PushRequestRecord? {
        let hash = ByteBuffer(bytes: watchHash)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: PushRequestRow.columns) FROM push_requests WHERE watch_hash = \(hash)", logger: Self.quiet),
                PushRequestRow.record)
        }
    }

    public func answerPushRequest(id: String, deviceID: String, status: String, now: Date, event: AuditEvent?) async throws -> Bool {
        let at = try now.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            // PostgreSQL re-checks `status = 'pending'` on the newest row after waiting: one answer wins.
            let changed = try await Self.count(db.query(
                """
                UPDATE push_requests SET status = \(status), device_id = \(deviceID)
                WHERE id = \(id) AND status = 'pending' AND expires_at > \(at)
                  AND user_handle = (SELECT user_handle FROM push_devices WHERE id = \(deviceID))
                RETURNING 1
                """, logger: Self.quiet))
            guard changed == 1 else { return false }
            try await db.query("UPDATE push_devices SET last_used_at = \(at) WHERE id = \(deviceID)", logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func issuePushSession(id: String, session: SessionRecord, event: AuditEvent?) async throws -> String? {
        let sessionRow = try SessionRow(session)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let issued = try await Self.count(db.query(
                """
                UPDATE push_requests SET session_issued = true
                WHERE id = \(id) AND status = 'approved' AND NOT session_issued AND user_handle = \(sessionRow.userHandle)
                RETURNING 1
                """, logger: Self.quiet))
            guard issued == 1 else { return nil }
            guard let name = try await Self.first(
                db.query("SELECT name FROM users WHERE handle = \(sessionRow.userHandle)", logger: Self.quiet),
                { try $0[0].decode(String.self) })
            else { throw StoreError.database("the push request's account vanished") }
            try await Self.insert(db, sessionRow)
            try await Self.insert(db, eventRow)
            return name
        }
    }
}
