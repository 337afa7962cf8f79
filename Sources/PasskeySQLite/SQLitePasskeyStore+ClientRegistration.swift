public import Foundation
public import PasskeyStorage

/// `ClientRegistrationStore` on SQLite.
extension SQLitePasskeyStore {
    public func insertRegistrationToken(_ token: RegistrationTokenRecord, event: AuditEvent?) async throws {
        let arguments: [SQLiteValue] = [.blob(token.tokenHash), .text(token.createdBy), try .time(token.createdAt), try .time(token.expiresAt)]
        let now = try SQLiteValue.time(token.createdAt)
        let eventArguments = try event?.insertArguments()
        try await database.write { db in
            try db.execute("DELETE FROM registration_tokens WHERE expires_at <= ?", [now])
            try db.execute("INSERT INTO registration_tokens (token_hash, created_by, created_at, expires_at) VALUES (?, ?, ?, ?)", arguments)
            try Self.insertEvent(db, eventArguments)
        }
    }

    public func registerClient(_ client: ClientRecord, spending tokenHash: [UInt8]?, now: Date, event: AuditEvent?) async throws -> Bool {
        let arguments = try Self.clientArguments(client)
        let at = try SQLiteValue.time(now)
        let eventArguments = try event?.insertArguments()
        do {
            return try await database.write { db in
            if let tokenHash {
                try db.execute("DELETE FROM registration_tokens WHERE token_hash = ? AND expires_at > ?", [.blob(tokenHash), at])
                guard try db.changes() == 1 else { return false }
            }
            try db.execute("INSERT OR IGNORE INTO oauth_clients (\(Self.clientColumns)) VALUES (\(Self.clientPlaceholders))", arguments)
            // A taken id leaves the token unspent: the job is rolled back alone.
            guard try db.changes() == 1 else { throw RegistrationRefused() }
            try Self.insertEvent(db, eventArguments)
            return true
            }
        } catch is RegistrationRefused {
            return false
        }
    }

    public func approveClient(id: String, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("UPDATE oauth_clients SET pending = 0 WHERE id = ? AND pending = 1", [.text(id)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }
}

/// Rolls a registration back when its client id is taken.
private struct RegistrationRefused: Error {}
