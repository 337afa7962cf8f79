import ArgumentParser
import Foundation
import Logging
import PasskeyAccounts
import PasskeyApp

/// `passkey-server keys`: the OpenID provider's signing keys.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List or rotate the signing keys the OpenID provider signs tokens with.",
        discussion: """
            The keys live in the database, so every instance signs with the same ones; the first \
            RS256 (RSA 2048) and ES256 (P-256) keys are made the first time a key is needed. Each \
            key is printed as one JSON object per line: kid, alg, generation, state (upcoming, \
            signing, retired, withdrawn), created_at, activates_at. Private keys are never printed. \
            The server may keep running.
            """,
        subcommands: [List.self, Rotate.self])

    struct DatabaseOptions: ParsableArguments {
        @Option(help: ArgumentHelp("The server's SQLite file or postgres:// URL, as for serve. (env: PASSKEY_DATABASE, default ./passkeys.sqlite)", valueName: "FILE|URL"))
        var database: String?

        @Option(name: .customLong("database-timeout"), help: ArgumentHelp("PostgreSQL: seconds a database call may take. (env: PASSKEY_DATABASE_TIMEOUT, default 5)", valueName: "SECONDS"))
        var databaseTimeout: Int?

        func configuration() throws -> ServerConfiguration {
            let environment = ProcessInfo.processInfo.environment
            var configuration = ServerConfiguration()
            configuration.database = database ?? environment["PASSKEY_DATABASE"] ?? configuration.database
            if let text = databaseTimeout.map(String.init) ?? environment["PASSKEY_DATABASE_TIMEOUT"] {
                guard let seconds = Int(text), (1...600).contains(seconds) else {
                    throw ValidationError("--database-timeout must be between 1 and 600, not \(text)")
                }
                configuration.databaseTimeout = TimeInterval(seconds)
            }
            configuration.databasePoolSize = 1
            return configuration
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print every signing key with its state.")

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await KeysCommand.run(options, .list, verb: "list")
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the next key of an algorithm: published at once, signing after --key-publish-ahead.",
            discussion: """
                The key it replaces stays published for a day after the new one starts signing, \
                so tokens it signed still verify. Prints the new key.
                """)

        @Option(help: ArgumentHelp("The algorithm whose key to rotate: RS256 or ES256.", valueName: "ALG"))
        var alg = "ES256"

        @Option(name: .customLong("key-publish-ahead"), help: ArgumentHelp("Seconds between publishing the new key and signing with it, so relying parties fetch it first.", valueName: "SECONDS"))
        var publishAhead = Int(SigningKeys.defaultPublishAhead)

        @OptionGroup var options: DatabaseOptions

        func validate() throws {
            guard ["RS256", "ES256"].contains(alg) else { throw ValidationError("--alg must be RS256 or ES256, not \(alg)") }
            guard (0...2_592_000).contains(publishAhead) else {
                throw ValidationError("--key-publish-ahead must be 0 to 2592000 seconds (30 days), not \(publishAhead)")
            }
        }

        func run() async throws {
            try await KeysCommand.run(options, .rotate(algorithm: alg, publishAhead: TimeInterval(publishAhead)), verb: "rotate")
        }
    }

    static func run(_ options: DatabaseOptions, _ action: KeyAdministration.Action, verb: String) async throws {
        let configuration = try options.configuration()
        // Standard output carries only the keys.
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "passkey-server.keys")
        logger.logLevel = .error
        let output = FileHandle.standardOutput
        do {
            try await KeyAdministration.run(
                configuration: configuration, action: action, now: Date(), logger: logger,
                write: { output.write(Data(($0 + "\n").utf8)) })
        } catch {
            FileHandle.standardError.write(Data("passkey-server keys \(verb): \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
