public import Foundation
internal import PasskeyStorage

/// Moving the stored name keys to a new rule, once.
extension SQLitePasskeyStore {
    public func rekeyNames(version: Int, _ key: @escaping @Sendable (String) -> String) async throws -> [String] {
        try await database.write { db in
            guard let (done, stored) = try db.row("SELECT version, collisions FROM name_key_rules WHERE id = 1", [], { ($0.int64(0), $0.text(1)) })
            else { throw StoreError.database("name_key_rules has no row") }
            if done >= Int64(version) { return try ListCoding.strings(stored, column: "name_key_rules.collisions") }
            let users = try db.rows("SELECT handle, name, name_key FROM users ORDER BY created_at, handle", []) { ($0.blob(0), $0.text(1), $0.text(2)) }
            let (moves, collisions) = NameKeyMove.plan(users.map { ($0.0, $0.1, $0.2) }, key)
            for move in moves {
                try db.execute("UPDATE users SET name_key = ? WHERE handle = ?", [.text(move.new), .blob(move.handle)])
            }
            let members = try db.rows("SELECT user_handle, name, name_key FROM group_members", []) { ($0.blob(0), $0.text(1), $0.text(2)) }
            for (handle, name, old) in members {
                let new = key(name)
                guard new != old else { continue }
                let exists = try db.row(
                    "SELECT 1 FROM group_members WHERE user_handle = ? AND name_key = ?", [.blob(handle), .text(new)]) { _ in true } ?? false
                if exists {
                    try db.execute("DELETE FROM group_members WHERE user_handle = ? AND name_key = ?", [.blob(handle), .text(old)])
                } else {
                    try db.execute(
                        "UPDATE group_members SET name_key = ? WHERE user_handle = ? AND name_key = ?", [.text(new), .blob(handle), .text(old)])
                }
            }
            let invitations = try db.rows("SELECT token_hash, user_name, group_names FROM invitations", []) { ($0.blob(0), $0.text(1), $0.text(2)) }
            for (hash, name, groups) in invitations {
                let keys = try ListCoding.strings(groups, column: "invitations.group_names").map(key)
                try db.execute(
                    "UPDATE invitations SET name_key = ?, group_keys = ? WHERE token_hash = ?",
                    [.text(key(name)), try ListCoding.encode(strings: keys), .blob(hash)])
            }
            try db.execute(
                "UPDATE name_key_rules SET version = ?, collisions = ? WHERE id = 1",
                [.integer(Int64(version)), try ListCoding.encode(strings: collisions)])
            return collisions
        }
    }
}
