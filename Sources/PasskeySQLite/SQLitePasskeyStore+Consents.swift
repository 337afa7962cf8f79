public import Foundation
public import PasskeyStorage

/// `ConsentStore` on SQLite.
extension SQLitePasskeyStore {
    public func consent(userHandle: [UInt8], clientID: String) async throws -> ConsentRecord? {
        try database.read { db in
            try db.row(
                "SELECT user_handle, client_id, scopes, granted_at FROM consents WHERE user_handle = ? AND client_id = ?",
                [.blob(userHandle), .text(clientID)], Self.consentRecord)
        }
    }

    public func consents(userHandle: [UInt8]) async throws -> [ConsentRecord] {
        try database.read { db in
            try db.rows(
                "SELECT user_handle, client_id, scopes, granted_at FROM consents WHERE user_handle = ? ORDER BY granted_at, client_id",
                [.blob(userHandle)], Self.consentRecord)
        }
    }

    public func saveConsent(_ consent: ConsentRecord, event: AuditEvent?) async throws -> Bool {
        let arguments: [SQLiteValue] = [.blob(consent.userHandle), .text(consent.clientID), try ListCoding.encode(strings: consent.scopes), try .time(consent.grantedAt)]
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            // The account and the client must still be there (a foreign key failure would throw).
            let present = try db.row(
                "SELECT (SELECT count(*) FROM users WHERE handle = ?) + (SELECT count(*) FROM oauth_clients WHERE id = ?)",
                [.blob(consent.userHandle), .text(consent.clientID)]) { try $0.int64(0) }
            guard present == 2 else { return false }
            try db.execute(
                """
                INSERT INTO consents (user_handle, client_id, scopes, granted_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_handle, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at
                """, arguments)
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func deleteConsent(userHandle: [UInt8], clientID: String, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("DELETE FROM consents WHERE user_handle = ? AND client_id = ?", [.blob(userHandle), .text(clientID)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    static func consentRecord(_ row: SQLiteRow) throws -> ConsentRecord {
        ConsentRecord(
            userHandle: row.blob(0), clientID: row.text(1), scopes: try ListCoding.strings(row.text(2), column: "scopes"),
            grantedAt: Date(storeMilliseconds: row.int64(3)))
    }
}
