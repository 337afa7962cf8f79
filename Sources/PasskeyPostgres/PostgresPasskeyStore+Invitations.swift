public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// Invitations and reset links, and the groups they give (docs/contracts/accounts.md, "Administration").
extension PostgresPasskeyStore {
    static func invitationGroups(names: [String], keys: [String]) throws -> [InvitationGroup] {
        guard names.count == keys.count else { throw StoreError.database("invitations.group_names and group_keys differ in length") }
        return zip(names, keys).map { InvitationGroup(name: $0, nameKey: $1) }
    }

    /// Spends an invitation in the caller's transaction: the groups its account joins, or nil
    /// when it is gone or expired.
    static func spendInvitation(_ db: PostgresConnection, _ hash: ByteBuffer, now: Int64) async throws -> [InvitationGroup]? {
        try await first(
            db.query(
                "DELETE FROM invitations WHERE token_hash = \(hash) AND expires_at > \(now) RETURNING group_names, group_keys",
                logger: quiet)
        ) { row in
            var c = Cursor(row)
            return try invitationGroups(names: c.next(), keys: c.next())
        }
    }

    /// Adds the account to these groups in the caller's transaction (one it is in already is kept).
    static func addMemberships(_ db: PostgresConnection, userHandle: ByteBuffer, _ groups: [InvitationGroup]) async throws {
        for group in groups {
            try await db.query(
                """
                INSERT INTO group_members (user_handle, name_key, name) VALUES (\(userHandle), \(group.nameKey), \(group.name))
                ON CONFLICT DO NOTHING
                """, logger: quiet)
        }
    }
}
