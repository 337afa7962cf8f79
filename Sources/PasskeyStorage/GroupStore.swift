public import Foundation

/// Groups and their members (docs/contracts/accounts.md, "Groups").
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol GroupStore: Sendable {
    // MARK: Groups

    /// Makes the user a member of the group keyed `nameKey` (`name` as given), with `event`;
    /// false (nothing written) when it is a member already. A user that does not exist fails
    /// with `.database` (foreign key).
    func addToGroup(userHandle: [UInt8], name: String, nameKey: String, event: AuditEvent?) async throws -> Bool
    /// Ends a membership, with `event`; false (nothing written) when there was none.
    func removeFromGroup(userHandle: [UInt8], nameKey: String, event: AuditEvent?) async throws -> Bool
    /// The user's groups, names as given with their keys, by key.
    func groups(userHandle: [UInt8]) async throws -> [GroupName]
    /// The user's groups (names and keys, by key) and its Apple ID's email, in one read: what a
    /// forward-auth check needs on every request a proxy passes.
    func remoteUserFacts(userHandle: [UInt8]) async throws -> RemoteUserFacts
    /// Every group that has a member, with how many, by key.
    func groupSizes() async throws -> [GroupSize]
}
