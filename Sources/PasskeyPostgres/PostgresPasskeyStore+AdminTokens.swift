internal import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `AdminStore` on PostgreSQL.
extension PostgresPasskeyStore {
    public func insertAdminToken(_ token: AdminTokenRecord, event: AuditEvent?) async throws -> Bool {
        let hash = ByteBuffer(bytes: token.tokenHash)
        let created = try token.createdAt.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let inserted = try await Self.count(
                db.query(
                    """
                    INSERT INTO admin_tokens (name, token_hash, created_at) VALUES (\(token.name), \(hash), \(created))
                    ON CONFLICT (name) DO NOTHING RETURNING 1
                    """, logger: Self.quiet))
            guard inserted == 1 else { return false }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func adminTokens() async throws -> [AdminTokenRecord] {
        try await withConnection { db in
            try await Self.all(db.query("SELECT name, token_hash, created_at FROM admin_tokens ORDER BY name", logger: Self.quiet), Self.adminToken)
        }
    }

    public func adminToken(tokenHash: [UInt8]) async throws -> AdminTokenRecord? {
        let hash = ByteBuffer(bytes: tokenHash)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT name, token_hash, created_at FROM admin_tokens WHERE token_hash = \(hash)", logger: Self.quiet), Self.adminToken)
        }
    }

    public func deleteAdminToken(name: String, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let deleted = try await Self.count(db.query("DELETE FROM admin_tokens WHERE name = \(name) RETURNING 1", logger: Self.quiet))
            guard deleted == 1 else { return false }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    static func adminToken(_ row: PostgresRandomAccessRow) throws -> AdminTokenRecord {
        var c = Cursor(row)
        return AdminTokenRecord(name: try c.next(), tokenHash: try c.bytes(), createdAt: try c.date())
    }
}
