internal import Foundation
public import PasskeyStorage

/// `GroupStore` on SQLite.
extension SQLitePasskeyStore {
    public func addToGroup(userHandle: [UInt8], name: String, nameKey: String, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                "INSERT OR IGNORE INTO group_members (user_handle, name_key, name) VALUES (?, ?, ?)",
                [.blob(userHandle), .text(nameKey), .text(name)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func removeFromGroup(userHandle: [UInt8], nameKey: String, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("DELETE FROM group_members WHERE user_handle = ? AND name_key = ?", [.blob(userHandle), .text(nameKey)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func groups(userHandle: [UInt8]) async throws -> [GroupName] {
        try database.read { db in
            try db.rows(
                "SELECT name, name_key FROM group_members WHERE user_handle = ? ORDER BY name_key", [.blob(userHandle)],
                { GroupName(name: $0.text(0), key: $0.text(1)) })
        }
    }

    public func remoteUserFacts(userHandle: [UInt8]) async throws -> RemoteUserFacts {
        // One row with the email even without groups: the groups are joined onto the one-row
        // select, not the other way round.
        let rows = try database.read { db in
            try db.rows(
                """
                SELECT a.email, g.name, g.name_key FROM (SELECT ? AS handle) one \
                LEFT JOIN apple_links a ON a.user_handle = one.handle \
                LEFT JOIN group_members g ON g.user_handle = one.handle ORDER BY g.name_key
                """,
                [.blob(userHandle)]) { row in
                    (row.optionalText(0), row.isNull(1) ? nil : GroupName(name: row.text(1), key: row.text(2)))
                }
        }
        return RemoteUserFacts(groups: rows.compactMap(\.1), email: rows.first?.0)
    }

    public func groupSizes() async throws -> [GroupSize] {
        try database.read { db in
            try db.rows(
                "SELECT min(name), count(*) FROM group_members GROUP BY name_key ORDER BY name_key", [],
                { GroupSize(name: $0.text(0), members: Int($0.int64(1))) })
        }
    }
}
