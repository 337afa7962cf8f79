public import PasskeyStorage
public import Foundation
internal import NIOCore
internal import PostgresNIO

/// What operators do to accounts (accounts.md, "Administration").
extension PostgresPasskeyStore {
    public func setUserDisabled(handle: [UInt8], disabled: Bool, event: AuditEvent?) async throws -> Bool {
        let user = ByteBuffer(bytes: handle)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let changed = try await Self.count(
                db.query(
                    "UPDATE users SET disabled = \(disabled) WHERE handle = \(user) AND disabled = \(!disabled) RETURNING 1",
                    logger: Self.quiet)) == 1
            guard changed else { return false }
            if disabled { _ = try await Self.revokeAccess(db, userHandle: user) }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func revokeAccess(userHandle: [UInt8], event: AuditEvent?) async throws -> [[UInt8]] {
        let user = ByteBuffer(bytes: userHandle)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let ended = try await Self.revokeAccess(db, userHandle: user)
            try await Self.insert(db, eventRow)
            return ended
        }
    }

    static func revokeAccess(_ db: PostgresConnection, userHandle: ByteBuffer) async throws -> [[UInt8]] {
        let ended = try await all(
            db.query("DELETE FROM sessions WHERE user_handle = \(userHandle) RETURNING token_hash", logger: quiet)
        ) { row in
            var c = Cursor(row)
            return try c.bytes()
        }
        try await db.query("UPDATE oauth_grants SET revoked = true WHERE user_handle = \(userHandle) AND NOT revoked", logger: quiet)
        return ended
    }
}
