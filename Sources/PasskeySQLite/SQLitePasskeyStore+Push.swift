public import Foundation
public import PasskeyStorage

/// The push authenticator on SQLite.
extension PushDeviceRecord {
    static let columns = "id, user_handle, name, model, device_token, public_key, created_at, last_used_at, disabled, apns_environment"

    init(row: SQLiteRow) {
        self.init(
            id: row.text(0), userHandle: row.blob(1), name: row.text(2), model: row.text(3), deviceToken: row.text(4),
            publicKey: row.blob(5), createdAt: Date(storeMilliseconds: row.int64(6)),
            lastUsedAt: row.optionalInt64(7).map(Date.init(storeMilliseconds:)), disabled: row.bool(8),
            apnsEnvironment: row.optionalText(9))
    }

    func arguments() throws -> [SQLiteValue] {
        [
            .text(id), .blob(userHandle), .text(name), .text(model), .text(deviceToken), .blob(publicKey), try .time(createdAt),
            try .optionalTime(lastUsedAt), .bool(disabled), apnsEnvironment.map { .text($0) } ?? .null,
        ]
    }
}

extension PushRequestRecord {
    static let columns = "id, user_handle, watch_hash, challenge, number, status, device_id, created_at, expires_at, session_issued, purpose"

    init(row: SQLiteRow) {
        self.init(
            id: row.text(0), userHandle: row.optionalBlob(1), watchHash: row.blob(2), challenge: row.text(3),
            number: row.optionalInt64(4).flatMap { Int(exactly: $0) }, status: row.text(5), deviceID: row.optionalText(6),
            createdAt: Date(storeMilliseconds: row.int64(7)), expiresAt: Date(storeMilliseconds: row.int64(8)), sessionIssued: row.bool(9),
            purpose: row.text(10))
    }

    func arguments() throws -> [SQLiteValue] {
        [
            .text(id), .optionalBlob(userHandle), .blob(watchHash), .text(challenge), number.map { .int($0) } ?? .null, .text(status),
            .optionalText(deviceID), try .time(createdAt), try .time(expiresAt), .bool(sessionIssued), .text(purpose),
        ]
    }
}

/// `PushStore` on SQLite.
extension SQLitePasskeyStore {
    public func insertPushDiscovery(_ d: PushDiscoveryRecord) async throws {
        let arguments: [SQLiteValue] = [.text(d.deviceID), .blob(d.userHandle), .text(d.challenge), try .time(d.expiresAt)]
        try await database.write { db in
            try db.execute("INSERT INTO push_discoveries (device_id, user_handle, challenge, expires_at) VALUES (?, ?, ?, ?)", arguments)
        }
    }

    public func pushDiscovery(deviceID: String, now: Date) async throws -> PushDiscoveryRecord? {
        let arguments: [SQLiteValue] = [.text(deviceID), try .time(now)]
        return try database.read { db in
            try db.row(
                "SELECT device_id, user_handle, challenge, expires_at FROM push_discoveries WHERE device_id = ? AND expires_at > ?",
                arguments,
                { PushDiscoveryRecord(deviceID: $0.text(0), userHandle: $0.blob(1), challenge: $0.text(2), expiresAt: Date(storeMilliseconds: $0.int64(3))) })
        }
    }

    public func registerPushDevice(_ device: PushDeviceRecord, now: Date, maxDevices: Int, event: AuditEvent?) async throws -> PushEnrolmentOutcome {
        let deviceArguments = try device.arguments()
        let eventArguments = try event?.insertArguments()
        let spend: [SQLiteValue] = [.text(device.id), .blob(device.userHandle), try .time(now)]
        return try await database.write { db in
            let count = try db.row("SELECT count(*) FROM push_devices WHERE user_handle = ?", [.blob(device.userHandle)]) { $0.int64(0) } ?? 0
            if count >= Int64(maxDevices) {
                let pending = try db.row(
                    "SELECT 1 FROM push_discoveries WHERE device_id = ? AND user_handle = ? AND expires_at > ?", spend, { _ in true })
                return pending == nil ? .discoveryGone : .tooManyDevices
            }
            try db.execute("DELETE FROM push_discoveries WHERE device_id = ? AND user_handle = ? AND expires_at > ?", spend)
            guard try db.changes() == 1 else { return .discoveryGone }
            try db.execute("INSERT INTO push_devices (\(PushDeviceRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", deviceArguments)
            try Self.insertEvent(db, eventArguments)
            return .registered
        }
    }

    public func pushDevice(id: String) async throws -> PushDeviceRecord? {
        try database.read { db in
            try db.row("SELECT \(PushDeviceRecord.columns) FROM push_devices WHERE id = ?", [.text(id)], PushDeviceRecord.init(row:))
        }
    }

    public func pushDevices(userHandle: [UInt8]) async throws -> [PushDeviceRecord] {
        try database.read { db in
            try db.rows(
                "SELECT \(PushDeviceRecord.columns) FROM push_devices WHERE user_handle = ? ORDER BY created_at, rowid",
                [.blob(userHandle)], PushDeviceRecord.init(row:))
        }
    }

    public func deletePushDevice(id: String, userHandle: [UInt8], event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("DELETE FROM push_devices WHERE id = ? AND user_handle = ?", [.text(id), .blob(userHandle)])
            guard try db.changes() == 1 else { return false }
            try db.execute("DELETE FROM sessions WHERE user_handle = ? AND via = ?", [.blob(userHandle), .text("push:" + id)])
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func disablePushDevice(id: String) async throws {
        try await database.write { db in
            try db.execute("UPDATE push_devices SET disabled = 1 WHERE id = ?", [.text(id)])
        }
    }

    public func insertPushRequest(_ r: PushRequestRecord) async throws {
        let arguments = try r.arguments()
        try await database.write { db in
            if let handle = r.userHandle {
                try db.execute(
                    "UPDATE push_requests SET status = 'replaced' WHERE user_handle = ? AND status = 'pending' AND purpose = ?",
                    [.blob(handle), .text(r.purpose)])
            }
            try db.execute("INSERT INTO push_requests (\(PushRequestRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments)
        }
    }

    public func pushRequest(id: String) async throws -> PushRequestRecord? {
        try database.read { db in
            try db.row("SELECT \(PushRequestRecord.columns) FROM push_requests WHERE id = ?", [.text(id)], PushRequestRecord.init(row:))
        }
    }

    public func pushRequest(watchHash: [UInt8]) async throws -> PushRequestRecord? {
        try database.read { db in
            try db.row(
                "SELECT \(PushRequestRecord.columns) FROM push_requests WHERE watch_hash = ?", [.blob(watchHash)], PushRequestRecord.init(row:))
        }
    }

    public func answerPushRequest(id: String, deviceID: String, status: String, now: Date, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        let at = try SQLiteValue.time(now)
        return try await database.write { db in
            // One statement: of two answers, only the first finds the request pending.
            try db.execute(
                """
                UPDATE push_requests SET status = ?, device_id = ?
                WHERE id = ? AND status = 'pending' AND expires_at > ?
                  AND user_handle = (SELECT user_handle FROM push_devices WHERE id = ?)
                """, [.text(status), .text(deviceID), .text(id), at, .text(deviceID)])
            guard try db.changes() == 1 else { return false }
            try db.execute("UPDATE push_devices SET last_used_at = ? WHERE id = ?", [at, .text(deviceID)])
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func issuePushSession(id: String, session: SessionRecord, event: AuditEvent?) async throws -> String? {
        let sessionArguments = try session.arguments()
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                "UPDATE push_requests SET session_issued = 1 WHERE id = ? AND status = 'approved' AND session_issued = 0 AND user_handle = ?",
                [.text(id), .blob(session.userHandle)])
            guard try db.changes() == 1 else { return nil }
            guard let name = try db.row("SELECT name FROM users WHERE handle = ?", [.blob(session.userHandle)], { $0.text(0) }) else {
                throw StoreError.database("the push request's account vanished")
            }
            try db.execute(SessionRecord.insert, sessionArguments)
            try Self.insertEvent(db, eventArguments)
            return name
        }
    }
}
