internal import Foundation
public import PasskeyStorage

/// `AdminStore` on SQLite.
extension SQLitePasskeyStore {
    public func insertAdminToken(_ token: AdminTokenRecord, event: AuditEvent?) async throws -> Bool {
        let arguments: [SQLiteValue] = [.text(token.name), .blob(token.tokenHash), try .time(token.createdAt)]
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("INSERT INTO admin_tokens (name, token_hash, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", arguments)
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func adminTokens() async throws -> [AdminTokenRecord] {
        try database.read { db in
            try db.rows("SELECT name, token_hash, created_at FROM admin_tokens ORDER BY name", [], Self.adminToken(row:))
        }
    }

    public func adminToken(tokenHash: [UInt8]) async throws -> AdminTokenRecord? {
        try database.read { db in
            try db.row("SELECT name, token_hash, created_at FROM admin_tokens WHERE token_hash = ?", [.blob(tokenHash)], Self.adminToken(row:))
        }
    }

    public func deleteAdminToken(name: String, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("DELETE FROM admin_tokens WHERE name = ?", [.text(name)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    static func adminToken(row: SQLiteRow) throws -> AdminTokenRecord {
        AdminTokenRecord(name: row.text(0), tokenHash: row.blob(1), createdAt: Date(storeMilliseconds: row.int64(2)))
    }
}
