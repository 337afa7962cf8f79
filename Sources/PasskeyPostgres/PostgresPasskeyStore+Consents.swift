public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `ConsentStore` on PostgreSQL.
extension PostgresPasskeyStore {
    public func consent(userHandle: [UInt8], clientID: String) async throws -> ConsentRecord? {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    "SELECT user_handle, client_id, scopes, granted_at FROM consents WHERE user_handle = \(handle) AND client_id = \(clientID)",
                    logger: Self.quiet), Self.consentRecord)
        }
    }

    public func consents(userHandle: [UInt8]) async throws -> [ConsentRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT user_handle, client_id, scopes, granted_at FROM consents WHERE user_handle = \(handle)
                    ORDER BY granted_at, client_id
                    """, logger: Self.quiet), Self.consentRecord)
        }
    }

    public func saveConsent(_ consent: ConsentRecord, event: AuditEvent?) async throws -> Bool {
        let handle = ByteBuffer(bytes: consent.userHandle)
        let granted = try consent.grantedAt.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            // Inserted only while the account and the client are there; a foreign key failure
            // would end the transaction.
            let saved = try await Self.count(
                db.query(
                    """
                    INSERT INTO consents (user_handle, client_id, scopes, granted_at)
                    SELECT \(handle), \(consent.clientID), \(consent.scopes), \(granted)
                    WHERE EXISTS (SELECT 1 FROM users WHERE handle = \(handle))
                        AND EXISTS (SELECT 1 FROM oauth_clients WHERE id = \(consent.clientID))
                    ON CONFLICT (user_handle, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at
                    RETURNING 1
                    """, logger: Self.quiet)) == 1
            if saved { try await Self.insert(db, eventRow) }
            return saved
        }
    }

    public func deleteConsent(userHandle: [UInt8], clientID: String, event: AuditEvent?) async throws -> Bool {
        let handle = ByteBuffer(bytes: userHandle)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let deleted = try await Self.count(
                db.query("DELETE FROM consents WHERE user_handle = \(handle) AND client_id = \(clientID) RETURNING 1", logger: Self.quiet)) == 1
            if deleted { try await Self.insert(db, eventRow) }
            return deleted
        }
    }

    static func consentRecord(_ row: PostgresRandomAccessRow) throws -> ConsentRecord {
        var c = Cursor(row)
        return ConsentRecord(userHandle: try c.bytes(), clientID: try c.next(), scopes: try c.next(), grantedAt: try c.date())
    }
}
