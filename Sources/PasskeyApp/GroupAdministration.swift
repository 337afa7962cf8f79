public import Foundation
public import Logging
public import PasskeyAccounts
internal import PasskeyJSON
internal import PasskeyStorage

/// `passkey-server users add-to-group|remove-from-group|disable|enable|revoke-sessions|show` and
/// `groups list`: accounts and their groups for operators, on the server's database while it runs. Each change is an event on the
/// account, by "command line".
public enum GroupAdministration {
    public enum Action: Sendable {
        case add(user: String, group: String)
        case remove(user: String, group: String)
        case list(json: Bool)
        case disable(user: String)
        case enable(user: String)
        case revokeSessions(user: String)
        case show(user: String)
        case delete(user: String)
        case listUsers(query: String?, group: String?, json: Bool)
        case invite(user: String, ttl: TimeInterval, origin: String, groups: [String])
        case createAdminToken(name: String)
        case listAdminTokens(json: Bool)
        case revokeAdminToken(name: String)
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
                case .disable(let user):
                    let changed = try await AccountAdministration(store: store).disable(userName: user, by: "command line", now: now)
                    write(changed ? "\(user) is disabled; its sessions and tokens have ended" : "\(user) was disabled already")
                case .enable(let user):
                    let changed = try await AccountAdministration(store: store).enable(userName: user, by: "command line", now: now)
                    write(changed ? "\(user) is enabled" : "\(user) was not disabled")
                case .revokeSessions(let user):
                    let count = try await AccountAdministration(store: store).revokeSessions(userName: user, by: "command line", now: now)
                    write("\(count) session\(count == 1 ? "" : "s") of \(user) ended, and its applications' tokens revoked")
                case .delete(let user):
                    let deleted = try await AccountAdministration(store: store).delete(userName: user, by: "command line", now: now)
                    var line = "\(user) is deleted: \(deleted.credentialIDs.count) passkey\(deleted.credentialIDs.count == 1 ? "" : "s"), its sessions and tokens"
                    // The command line does not call Apple: the token stays valid at Apple until it expires.
                    if deleted.appleRefreshToken != nil { line += "; its Apple ID was unlinked (revoke it at Apple, or delete from the page)" }
                    write(line)
                case .invite(let user, let ttl, let origin, let joining):
                    let link = try await AccountAdministration(store: store).invite(
                        userName: user, ttl: ttl, origin: origin, groups: joining, by: "command line", now: now)
                    // The link alone on the last line, for scripts.
                    write(link)
                case .listUsers(let query, let group, let json):
                    for user in try await AccountAdministration(store: store).list(query: query, group: group) {
                        guard !json else {
                            write(String(decoding: user.encoded(), as: UTF8.self))
                            continue
                        }
                        guard case .object(let o) = user, case .string(let name)? = o["user_name"], case .string(let sub)? = o["sub"] else { continue }
                        write("\(name)\t\(sub)" + (o["disabled"] == .bool(true) ? "\tdisabled" : ""))
                    }
                case .show(let user):
                    write(String(decoding: try await AccountAdministration(store: store).show(userName: user, now: now).encoded(), as: UTF8.self))
                case .createAdminToken(let name):
                    let token = try await AccountAdministration(store: store).createAdminToken(name: name, now: now)
                    write("admin token \(name) created; it is shown only now:")
                    // The token alone on the last line, for scripts.
                    write(token)
                case .listAdminTokens(let json):
                    for token in try await store.adminTokens() {
                        let created = PasskeySignIn.timestamp(token.createdAt)
                        let object: JSONValue = .object(["name": .string(token.name), "created_at": .string(created)])
                        write(json ? String(decoding: object.encoded(), as: UTF8.self) : "\(token.name)\tcreated \(created)")
                    }
                case .revokeAdminToken(let name):
                    guard try await AccountAdministration(store: store).revokeAdminToken(name: name, now: now) else {
                        throw Failure(description: "no admin token is named \(name)")
                    }
                    write("admin token \(name) revoked")
                case .list(let json):
                    for group in try await groups.list() {
                        let object: JSONValue = .object(["group": .string(group.name), "members": .integer(Int64(group.members))])
                        write(json ? String(decoding: object.encoded(), as: UTF8.self) : "\(group.name)\t\(group.members) member\(group.members == 1 ? "" : "s")")
                    }
                }
            } catch let failure as GroupMembership.Failure {
                throw Failure(description: failure.description)
            }
        }
    }
}
