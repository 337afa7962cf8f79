public import Foundation
public import Logging
public import PasskeyAccounts
internal import PasskeyJSON
internal import PasskeyStorage

/// `passkey-server users add-to-group|remove-from-group` and `groups list`: group memberships
/// for operators, on the server's database while it runs. Each change is an event on the
/// account, by "command line".
public enum GroupAdministration {
    public enum Action: Sendable {
        case add(user: String, group: String)
        case remove(user: String, group: String)
        case list
    }

    public typealias Failure = CommandFailure

    public static func run(
        configuration: ServerConfiguration, action: Action, now: Date, logger: Logger, write: (String) -> Void
    ) async throws {
        try await CommandDatabase.withExisting(configuration, logger: logger) { store in
            let groups = GroupMembership(store: store)
            do {
                switch action {
                case .add(let user, let group):
                    let added = try await groups.add(userName: user, group: group, by: "command line", now: now)
                    write(added ? "\(user) is now a member of \(group)" : "\(user) was a member of \(group) already")
                case .remove(let user, let group):
                    guard try await groups.remove(userName: user, group: group, by: "command line", now: now) else {
                        throw Failure(description: "\(user) is not a member of \(group)")
                    }
                    write("\(user) is no longer a member of \(group)")
                case .list:
                    for group in try await groups.list() {
                        let object: JSONValue = .object(["group": .string(group.name), "members": .integer(Int64(group.members))])
                        write(String(decoding: object.encoded(), as: UTF8.self))
                    }
                }
            } catch let failure as GroupMembership.Failure {
                throw Failure(description: failure.description)
            }
        }
    }
}
