internal import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `GroupStore` on PostgreSQL.
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

    public func groups(userHandle: [UInt8]) async throws -> [GroupName] {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.all(
                db.query("SELECT name, name_key FROM group_members WHERE user_handle = \(handle) ORDER BY name_key COLLATE \"C\"", logger: Self.quiet),
                { row in
                    var c = Cursor(row)
                    return GroupName(name: try c.next(), key: try c.next())
                })
        }
    }

    public func remoteUserFacts(userHandle: [UInt8]) async throws -> RemoteUserFacts {
        let handle = ByteBuffer(bytes: userHandle)
        // One row with the email even without groups: the groups are joined onto the one-row
        // select, not the other way round.
        let rows = try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT a.email, g.name, g.name_key FROM (SELECT \(handle)::bytea AS handle) one \
                    LEFT JOIN apple_links a ON a.user_handle = one.handle \
                    LEFT JOIN group_members g ON g.user_handle = one.handle ORDER BY g.name_key COLLATE "C"
                    """, logger: Self.quiet),
                { row -> (String?, GroupName?) in
                    var c = Cursor(row)
                    let email = try c.next(String?.self)
                    let name = try c.next(String?.self)
                    let key = try c.next(String?.self)
                    return (email, name.flatMap { name in key.map { GroupName(name: name, key: $0) } })
                })
        }
        return RemoteUserFacts(groups: rows.compactMap(\.1), email: rows.first?.0)
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
