import ArgumentParser
import Foundation
import Logging
import PasskeyAccounts
import PasskeyApp

/// `passkey-server users`: accounts for operators (so far, their groups).
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage accounts from the command line: their groups, disabling them, ending their sessions.",
        discussion: """
            Works on the server's database while it runs. Each change is an audit event on the \
            account, made "by command line".
            """,
        subcommands: [List.self, Show.self, AddToGroup.self, RemoveFromGroup.self, Disable.self, Enable.self, RevokeSessions.self, Invite.self, Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the accounts in the order of their names, a line each: name, sub and whether disabled (--json: one JSON object per line).")
        @Option(help: "Only names starting with this text (without case).") var query: String?
        @Option(help: "Only members of this group.") var group: String?
        @OptionGroup var options: KeysCommand.DatabaseOptions
        @Flag(help: "One JSON object per line (user_name, display_name, sub, disabled, created_at) instead of name, sub and whether disabled.")
        var json = false
        func run() async throws { try await GroupsCommand.run(options, .listUsers(query: query, group: group, json: json), verb: "users list") }
    }

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a one-time link: for a new name it creates the account, for an existing one it registers a new passkey and ends the other sessions (a reset). Prints the link alone on the last line.")
        @Argument(help: ArgumentHelp("The user name (any case).", valueName: "NAME")) var name: String
        @Option(help: "How long the link works: 90s, 10m, 24h, 7d (at least 1 minute, at most 30 days).") var ttl = "24h"
        @Option(help: "The server's origin for the link. (env: PASSKEY_ORIGIN, its first entry; default http://localhost:8080)")
        var origin: String?
        @Option(help: ArgumentHelp("A group the new account joins when the link is used; repeatable.", valueName: "GROUP")) var group: [String] = []
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws {
            guard let seconds = AccountAdministration.duration(ttl) else {
                throw ValidationError("--ttl must be a number with s, m, h or d, like 24h, not \(ttl)")
            }
            let environment = ProcessInfo.processInfo.environment["PASSKEY_ORIGIN"]?.split(separator: ",").first.map(String.init)
            var base = origin ?? environment ?? "http://localhost:8080"
            while base.hasSuffix("/") { base.removeLast() }
            try await GroupsCommand.run(options, .invite(user: name, ttl: seconds, origin: base, groups: group), verb: "users invite")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an account and all of it (passkeys, sessions, tokens, phones, Apple link, groups); its audit events stay, without names.")
        @Argument(help: ArgumentHelp("The account's user name (any case).", valueName: "NAME")) var name: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await GroupsCommand.run(options, .delete(user: name), verb: "users delete") }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable an account: it signs in by no method, and its sessions and applications' tokens end at once.")
        @Argument(help: ArgumentHelp("The account's user name (any case).", valueName: "NAME")) var name: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await GroupsCommand.run(options, .disable(user: name), verb: "users disable") }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled account again (its old sessions stay ended).")
        @Argument(help: ArgumentHelp("The account's user name (any case).", valueName: "NAME")) var name: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await GroupsCommand.run(options, .enable(user: name), verb: "users enable") }
    }

    struct RevokeSessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-sessions", abstract: "End every session of an account and revoke its applications' tokens.")
        @Argument(help: ArgumentHelp("The account's user name (any case).", valueName: "NAME")) var name: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await GroupsCommand.run(options, .revokeSessions(user: name), verb: "users revoke-sessions") }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print an account as one JSON object: name, sub, disabled, passkeys, open sessions, groups.")
        @Argument(help: ArgumentHelp("The account's user name (any case).", valueName: "NAME")) var name: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await GroupsCommand.run(options, .show(user: name), verb: "users show") }
    }

    struct AddToGroup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-to-group", abstract: "Make an account a member of a group (a group name follows the rules of a user name).")
        @Argument(help: ArgumentHelp("The account's user name (any case).", valueName: "NAME")) var name: String
        @Argument(help: ArgumentHelp("The group.", valueName: "GROUP")) var group: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws {
            try await GroupsCommand.run(options, .add(user: name, group: group), verb: "users add-to-group")
        }
    }

    struct RemoveFromGroup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-from-group", abstract: "End an account's membership of a group.")
        @Argument(help: ArgumentHelp("The account's user name (any case).", valueName: "NAME")) var name: String
        @Argument(help: ArgumentHelp("The group.", valueName: "GROUP")) var group: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws {
            try await GroupsCommand.run(options, .remove(user: name, group: group), verb: "users remove-from-group")
        }
    }
}

/// `passkey-server groups list`.
struct GroupsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groups", abstract: "List the groups that have members.", subcommands: [List.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print each group with its number of members, a line each (--json: one JSON object per line).")
        @OptionGroup var options: KeysCommand.DatabaseOptions
        @Flag(help: "One JSON object per line (group, members).") var json = false
        func run() async throws { try await GroupsCommand.run(options, .list(json: json), verb: "groups list") }
    }

    static func run(_ options: KeysCommand.DatabaseOptions, _ action: GroupAdministration.Action, verb: String) async throws {
        let configuration = try options.configuration()
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "passkey-server.groups")
        logger.logLevel = .error
        let output = FileHandle.standardOutput
        do {
            try await GroupAdministration.run(
                configuration: configuration, action: action, now: Date(), logger: logger,
                write: { output.write(Data(($0 + "\n").utf8)) })
        } catch {
            FileHandle.standardError.write(Data("passkey-server \(verb): \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

struct AdminTokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin-tokens", abstract: "Tokens for the admin API (/admin/api/, Authorization: Bearer): create, list, revoke.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make an admin token; it is printed once, alone on the last line, and only its hash is kept.")
        @Option(help: "The token's name, unique, to list and revoke it by.") var name: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await GroupsCommand.run(options, .createAdminToken(name: name), verb: "admin-tokens create") }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print each admin token's name and creation time, a line each (--json: one JSON object per line); never the token.")
        @OptionGroup var options: KeysCommand.DatabaseOptions
        @Flag(help: "One JSON object per line (name, created_at).") var json = false
        func run() async throws { try await GroupsCommand.run(options, .listAdminTokens(json: json), verb: "admin-tokens list") }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an admin token by name; it stops working at once, in every instance.")
        @Argument(help: ArgumentHelp("The token's name.", valueName: "NAME")) var name: String
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await GroupsCommand.run(options, .revokeAdminToken(name: name), verb: "admin-tokens revoke") }
    }
}
