import ArgumentParser
import Foundation
import Logging
import PasskeyAccounts
import PasskeyApp

/// `passkey-server users`: accounts for operators (so far, their groups).
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage accounts from the command line (so far: their groups).",
        discussion: """
            Works on the server's database while it runs. Each change is an audit event on the \
            account, made "by command line".
            """,
        subcommands: [AddToGroup.self, RemoveFromGroup.self])

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
        static let configuration = CommandConfiguration(abstract: "Print each group with its number of members, one JSON object per line.")
        @OptionGroup var options: KeysCommand.DatabaseOptions
        func run() async throws { try await GroupsCommand.run(options, .list, verb: "groups list") }
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
