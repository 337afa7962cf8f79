public import Foundation

/// Accounts, their passkeys and their name keys.
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol AccountStore: Sendable {
    // MARK: Users

    func user(nameKey: String) async throws -> UserRecord?
    func user(handle: [UInt8]) async throws -> UserRecord?

    /// Disables an account, or enables it again, with `event`; false (nothing written) when
    /// there is no such account or it is so already. Disabling also ends every session of the
    /// account and revokes every grant (OpenID tokens), in the same transaction.
    func setUserDisabled(handle: [UInt8], disabled: Bool, event: AuditEvent?) async throws -> Bool
    /// Keeps an invitation or reset link, with `event`.
    func insertInvitation(_ invitation: InvitationRecord, event: AuditEvent?) async throws
    /// The unexpired invitation with this token hash.
    func invitation(tokenHash: [UInt8], now: Date) async throws -> InvitationRecord?
    /// Accounts in the order of their name keys, after `afterNameKey` (a page's cursor), at most
    /// `limit`: those whose name key starts with `nameKeyPrefix` (already folded as name keys
    /// are; compared byte by byte, a range of the name-key index), members of the group
    /// `groupKey` when given.
    func users(nameKeyPrefix: String?, groupKey: String?, afterNameKey: String?, limit: Int) async throws -> [UserRecord]
    /// Ends every session of the account and revokes every grant, in one transaction, with
    /// `event`; the token hashes of the sessions it ended.
    func revokeAccess(userHandle: [UInt8], event: AuditEvent?) async throws -> [[UInt8]]
    /// Deletes the account and everything of it, in one transaction (docs/contracts/accounts.md, "Deleting the
    /// account"): passkeys, sessions, grants, push devices, the Apple link, groups, pending
    /// ceremonies. Its audit events stay under its handle with the `name` details removed, and
    /// `event` (`account_deleted`) is added. Answers what the caller still has to act on, read
    /// in the same transaction; nil when there is no such account.
    func deleteAccount(handle: [UInt8], event: AuditEvent?) async throws -> DeletedAccount?

    // MARK: Credentials

    /// Inserts many new accounts with their passkeys in one transaction, without audit events:
    /// how `passkey-bench populate` fills a database with a million accounts in minutes rather
    /// than a million durable commits. All or nothing: a name, handle or credential id already
    /// stored (or repeated in the batch) fails the whole batch with `.database` and writes nothing.
    func loadAccounts(_ accounts: [NewAccount]) async throws

    func credential(id: [UInt8]) async throws -> CredentialRecord?

    /// The user's credentials, oldest first (by createdAt, then insertion order).
    func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord]

    /// Renames the credential if it belongs to `userHandle` (storing `event` with it); false if
    /// there is no such credential.
    func renameCredential(id: [UInt8], userHandle: [UInt8], name: String, event: AuditEvent?) async throws -> Bool

    /// Sets the user's display name, and its `updatedAt` to `event`'s time (now without one),
    /// storing `event` with it; false (nothing changed) if there is no such user.
    func updateDisplayName(userHandle: [UInt8], displayName: String, event: AuditEvent?) async throws -> Bool

    /// Deletes the credential if it belongs to `userHandle`, and atomically with it every session
    /// that credential opened (storing `event`); false (nothing changed) if there is no such
    /// credential.
    func deleteCredential(id: [UInt8], userHandle: [UInt8], event: AuditEvent?) async throws -> Bool

    // MARK: Name keys

    /// Recomputes every stored name key with `key` once the store's keys were made by an older
    /// rule than `version`: accounts', group memberships' and invitations', in one transaction
    /// that one process runs (the others then find the version done). An account whose new key
    /// another account holds keeps its old key, which no name can produce any more, so it keeps
    /// working and its key cannot be taken again; memberships that become one are merged.
    /// Answers the names of the accounts that kept their old key, now and at every later call.
    func rekeyNames(version: Int, _ key: @escaping @Sendable (String) -> String) async throws -> [String]
}

/// The calls without an audit event, for callers that have none to store.
extension AccountStore {
    public func renameCredential(id: [UInt8], userHandle: [UInt8], name: String) async throws -> Bool {
        try await renameCredential(id: id, userHandle: userHandle, name: name, event: nil)
    }

    public func deleteCredential(id: [UInt8], userHandle: [UInt8]) async throws -> Bool {
        try await deleteCredential(id: id, userHandle: userHandle, event: nil)
    }
}
