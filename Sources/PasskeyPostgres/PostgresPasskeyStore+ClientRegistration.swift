public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `ClientRegistrationStore` on PostgreSQL.
extension PostgresPasskeyStore {
    public func insertRegistrationToken(_ token: RegistrationTokenRecord, event: AuditEvent?) async throws {
        let hash = ByteBuffer(bytes: token.tokenHash)
        let created = try token.createdAt.storeMilliseconds()
        let expires = try token.expiresAt.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        try await transaction { db in
            try await db.query("DELETE FROM registration_tokens WHERE expires_at <= \(created)", logger: Self.quiet)
            try await db.query(
                """
                INSERT INTO registration_tokens (token_hash, created_by, created_at, expires_at)
                VALUES (\(hash), \(token.createdBy), \(created), \(expires))
                """, logger: Self.quiet)
            try await Self.insert(db, eventRow)
        }
    }

    public func registerClient(_ client: ClientRecord, spending tokenHash: [UInt8]?, now: Date, event: AuditEvent?) async throws -> Bool {
        let token = tokenHash.map { ByteBuffer(bytes: $0) }
        let at = try now.storeMilliseconds()
        let created = try client.createdAt.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        do {
            return try await transaction { db in
                if let token {
                    let spent = try await Self.count(
                        db.query(
                            "DELETE FROM registration_tokens WHERE token_hash = \(token) AND expires_at > \(at) RETURNING 1",
                            logger: Self.quiet))
                    guard spent == 1 else { return false }
                }
                // A taken id leaves the token unspent: the transaction is rolled back.
                guard try await Self.insertClientRow(db, client, createdAt: created) else { throw RegistrationRefused() }
                try await Self.insert(db, eventRow)
                return true
            }
        } catch is RegistrationRefused {
            return false
        }
    }

    public func approveClient(id: String, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let approved = try await Self.count(
                db.query("UPDATE oauth_clients SET pending = false WHERE id = \(id) AND pending RETURNING id", logger: Self.quiet)) == 1
            if approved { try await Self.insert(db, eventRow) }
            return approved
        }
    }
}

/// Rolls a registration back when its client id is taken.
private struct RegistrationRefused: PostgresPasskeyStore.RollbackOutcome {}
