public import Foundation
public import PasskeyStorage

/// Groups (docs/contracts/accounts.md, "Groups"): an account belongs to any number of them; they will feed the
/// OpenID `groups` claim, the forward-auth rules and the admin role. A group's name follows the
/// rules of a user name (trimmed, 1–64 characters, nothing invisible) and is matched without
/// case, as user names are.
public struct GroupMembership: Sendable {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    let store: any GroupStore & AccountStore

    public init(store: any GroupStore & AccountStore) {
        self.store = store
    }

    /// Adds the account named `userName` to `group`; false when it was a member already.
    /// Writes a `group_added` event on the account, saying who did it.
    public func add(userName: String, group: String, by actor: String, now: Date) async throws -> Bool {
        let (user, name) = try await Self.resolve(userName: userName, group: group, store: store)
        let event = AuditEvent(
            userHandle: user.handle, type: "group_added", at: now, ip: nil, userAgent: nil, details: ["group": name.value, "by": actor])
        return try await store.addToGroup(userHandle: user.handle, name: name.value, nameKey: name.key, event: event)
    }

    /// Removes the account named `userName` from `group`; false when it was not a member.
    public func remove(userName: String, group: String, by actor: String, now: Date) async throws -> Bool {
        let (user, name) = try await Self.resolve(userName: userName, group: group, store: store)
        let event = AuditEvent(
            userHandle: user.handle, type: "group_removed", at: now, ip: nil, userAgent: nil, details: ["group": name.value, "by": actor])
        return try await store.removeFromGroup(userHandle: user.handle, nameKey: name.key, event: event)
    }

    /// Every group with a member, with how many.
    public func list() async throws -> [GroupSize] { try await store.groupSizes() }

    /// The names of an account's groups.
    public func groups(of userHandle: [UInt8]) async throws -> [String] { try await store.groups(userHandle: userHandle).map(\.name) }

    static func resolve(userName: String, group: String, store: any GroupStore & AccountStore) async throws -> (UserRecord, UserName) {
        let account: UserName, name: UserName
        do { account = try UserName(userName) } catch { throw Failure(description: "the user name: \(error.message)") }
        do { name = try UserName.group(group) } catch { throw Failure(description: error.message) }
        guard let user = try await store.user(nameKey: account.key) else {
            throw Failure(description: "no account is named \(account.value)")
        }
        return (user, name)
    }
}
