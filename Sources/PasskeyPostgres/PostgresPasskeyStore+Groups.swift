public import PasskeyStorage
internal import Foundation
internal import NIOCore
internal import PostgresNIO

/// Group memberships.
extension PostgresPasskeyStore {
    public func addToGroup(userHandle: [UInt8], name: String, nameKey: String, event: AuditEvent?) async throws -> Bool {
        let handle = ByteBuffer(bytes: userHandle)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let added = try await Self.count(
                db.query(
                    """
                    INSERT INTO group_members (user_handle, name_key, name) VALUES (\(handle), \(nameKey), \(name))
                    ON CONFLICT DO NOTHING RETURNING name_key
                    """, logger: Self.quiet)) == 1
            if added { try await Self.insert(db, eventRow) }
            return added
        }
    }

    public func removeFromGroup(userHandle: [UInt8], nameKey: String, event: AuditEvent?) async throws -> Bool {
        let handle = ByteBuffer(bytes: userHandle)
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let removed = try await Self.count(
                db.query(
                    "DELETE FROM group_members WHERE user_handle = \(handle) AND name_key = \(nameKey) RETURNING name_key",
                    logger: Self.quiet)) == 1
            if removed { try await Self.insert(db, eventRow) }
            return removed
        }
    }

    public func groups(userHandle: [UInt8]) async throws -> [String] {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.all(
                db.query("SELECT name FROM group_members WHERE user_handle = \(handle) ORDER BY name_key COLLATE \"C\"", logger: Self.quiet),
                { try $0.decode(String.self) })
        }
    }

    public func groupSizes() async throws -> [GroupSize] {
        try await withConnection { db in
            try await Self.all(
                db.query(
                    "SELECT min(name COLLATE \"C\"), count(*) FROM group_members GROUP BY name_key ORDER BY name_key COLLATE \"C\"",
                    logger: Self.quiet),
                { row in
                    var c = Cursor(row)
                    let name: String = try c.next()
                    let members: Int64 = try c.next()
                    return GroupSize(name: name, members: Int(members))
                })
        }
    }
}
