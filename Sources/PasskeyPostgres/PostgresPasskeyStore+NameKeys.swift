public import Foundation
internal import PasskeyStorage
internal import PostgresNIO

/// Moving the stored name keys to a new rule, once: the rules row is locked for the
/// transaction, so of instances starting together one moves them and the others find it done.
extension PostgresPasskeyStore {
    public func rekeyNames(version: Int, _ key: @escaping @Sendable (String) -> String) async throws -> [String] {
        let wanted = Int32(version)
        return try await transaction { db in
            guard let (done, stored) = try await Self.first(
                db.query("SELECT version, collisions FROM name_key_rules WHERE id = 1 FOR UPDATE", logger: Self.quiet),
                { (try $0[0].decode(Int32.self), try $0[1].decode([String].self)) })
            else { throw StoreError.database("name_key_rules has no row") }
            if done >= wanted { return stored }
            let users = try await Self.all(
                db.query("SELECT handle, name, name_key FROM users ORDER BY created_at, handle", logger: Self.quiet)
            ) { row -> ([UInt8], String, String) in
                var c = Cursor(row)
                return (try c.bytes(), try c.next(), try c.next())
            }
            let (moves, collisions) = NameKeyMove.plan(users.map { ($0.0, $0.1, $0.2) }, key)
            for move in moves {
                try await db.query("UPDATE users SET name_key = \(move.new) WHERE handle = \(ByteBuffer(bytes: move.handle))", logger: Self.quiet)
            }
            let members = try await Self.all(db.query("SELECT user_handle, name, name_key FROM group_members", logger: Self.quiet)) { row -> ([UInt8], String, String) in
                var c = Cursor(row)
                return (try c.bytes(), try c.next(), try c.next())
            }
            for (handle, name, old) in members {
                let new = key(name)
                guard new != old else { continue }
                let owner = ByteBuffer(bytes: handle)
                let exists = try await Self.count(db.query(
                    "SELECT 1 FROM group_members WHERE user_handle = \(owner) AND name_key = \(new)", logger: Self.quiet)) > 0
                if exists {
                    try await db.query("DELETE FROM group_members WHERE user_handle = \(owner) AND name_key = \(old)", logger: Self.quiet)
                } else {
                    try await db.query(
                        "UPDATE group_members SET name_key = \(new) WHERE user_handle = \(owner) AND name_key = \(old)", logger: Self.quiet)
                }
            }
            let invitations = try await Self.all(db.query("SELECT token_hash, user_name, group_names FROM invitations", logger: Self.quiet)) { row -> ([UInt8], String, [String]) in
                var c = Cursor(row)
                return (try c.bytes(), try c.next(), try c.next())
            }
            for (hash, name, groups) in invitations {
                let keys = groups.map(key)
                try await db.query(
                    "UPDATE invitations SET name_key = \(key(name)), group_keys = \(keys) WHERE token_hash = \(ByteBuffer(bytes: hash))", logger: Self.quiet)
            }
            try await db.query("UPDATE name_key_rules SET version = \(wanted), collisions = \(collisions) WHERE id = 1", logger: Self.quiet)
            return collisions
        }
    }
}
