public import PasskeyStorage
public import Foundation

/// What operators do to accounts (accounts.md, "Administration").
extension SQLitePasskeyStore {
    public func setUserDisabled(handle: [UInt8], disabled: Bool, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("UPDATE users SET disabled = ? WHERE handle = ? AND disabled = ?", [.bool(disabled), .blob(handle), .bool(!disabled)])
            guard try db.changes() == 1 else { return false }
            if disabled { _ = try Self.revokeAccess(db, userHandle: handle) }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func revokeAccess(userHandle: [UInt8], event: AuditEvent?) async throws -> [[UInt8]] {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            let ended = try Self.revokeAccess(db, userHandle: userHandle)
            try Self.insertEvent(db, eventArguments)
            return ended
        }
    }

    static func revokeAccess(_ db: SQLiteConnection, userHandle: [UInt8]) throws -> [[UInt8]] {
        let ended = try db.rows("SELECT token_hash FROM sessions WHERE user_handle = ?", [.blob(userHandle)]) { $0.blob(0) }
        try db.execute("DELETE FROM sessions WHERE user_handle = ?", [.blob(userHandle)])
        try db.execute("UPDATE oauth_grants SET revoked = 1 WHERE user_handle = ? AND revoked = 0", [.blob(userHandle)])
        return ended
    }
}
