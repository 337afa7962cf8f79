import ArgumentParser
import Foundation
import Logging
import PasskeyApp
import PasskeyAccounts
import PasskeyServer
import PasskeyStorage

/// `passkey-server events`: the audit trail for operators, as JSON lines.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print the audit events as JSON lines, oldest first.",
        discussion: """
            One object per line: id, type, at (ISO 8601 UTC), user, user_handle (base64url), ip, \
            user_agent, details. The server may keep running. As with serve, \
            opening the database brings an older schema up to date; a missing SQLite file is an \
            error, never created. Events older than the server's --audit-retention-days are gone. \
            `events verify` walks the tamper-evident chain instead.
            """,
        subcommands: [Export.self, VerifyChain.self, Checkpoints.self], defaultSubcommand: Export.self)

    /// The database from `--database` or the environment, one connection, and error-level logs
    /// on standard error: standard output carries only the command's answer.
    static func setUp(database: String?) -> (ServerConfiguration, Logger) {
        var configuration = ServerConfiguration()
        configuration.database = database ?? ProcessInfo.processInfo.environment["PASSKEY_DATABASE"] ?? configuration.database
        configuration.databasePoolSize = 1
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "passkey-server.events")
        logger.logLevel = .error
        return (configuration, logger)
    }

    /// `passkey-server events checkpoints`: the signed checkpoints, to keep elsewhere.
    struct Checkpoints: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "checkpoints",
            abstract: "Print the audit chain's signed checkpoints as JSON lines, oldest first, to keep elsewhere.",
            discussion: """
                The objects of GET /admin/api/events/checkpoints: id, event_id, hash, at, jws. Keep the output \
                away from the database; `events verify --checkpoints FILE` then checks the database \
                against it, so that checkpoint rows deleted from the database are found too.
                """)

        @Option(help: ArgumentHelp("The server's SQLite file or postgres:// URL, as for serve. (env: PASSKEY_DATABASE, default ./passkeys.sqlite)", valueName: "FILE|URL"))
        var database: String?

        func run() async throws {
            let (configuration, logger) = EventsCommand.setUp(database: database)
            let output = FileHandle.standardOutput
            do {
                _ = try await EventExport.checkpoints(configuration: configuration, logger: logger, write: { output.write(Data(($0 + "\n").utf8)) })
            } catch {
                FileHandle.standardError.write(Data("passkey-server events checkpoints: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    struct VerifyChain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Walk the audit chain and its signed checkpoints; report the first break.",
            discussion: """
                Every event must follow from the one before it (SHA-256 over the previous hash and its \
                canonical JSON), the last must be the chain's recorded head, and every checkpoint's \
                signature must verify with the signing key it names and match the event it signed. \
                The signed starts must follow one another (only a signed retention record moves the \
                start), the chain must start where the last one says, and no event after the first \
                chained one may be without a hash. With --checkpoints, every kept copy must verify and \
                still be in the database. Exit 0 when all of it holds, 1 at the first break (printed with the event's id), 2 for \
                a wrong command line. The server may keep running.
                """)

        @Option(help: ArgumentHelp("The server's SQLite file or postgres:// URL, as for serve. (env: PASSKEY_DATABASE, default ./passkeys.sqlite)", valueName: "FILE|URL"))
        var database: String?

        @Option(help: ArgumentHelp("Checkpoints kept elsewhere (what `events checkpoints` printed, or the admin API's list): each must verify and still be in the database.", valueName: "FILE"))
        var checkpoints: String?

        func run() async throws {
            let (configuration, logger) = EventsCommand.setUp(database: database)
            let output = FileHandle.standardOutput
            var copies: [AuditCheckpoint] = []
            if let checkpoints {
                guard let data = FileManager.default.contents(atPath: checkpoints) else {
                    FileHandle.standardError.write(Data("passkey-server events verify: --checkpoints \(checkpoints) cannot be read\n".utf8))
                    throw ExitCode(2)
                }
                do { copies = try AuditCheckpoint.copies(Array(data)) } catch {
                    FileHandle.standardError.write(Data("passkey-server events verify: --checkpoints \(checkpoints): \(error)\n".utf8))
                    throw ExitCode(2)
                }
            }
            let holds: Bool
            do {
                holds = try await EventExport.verify(
                    configuration: configuration, copies: copies, logger: logger, write: { output.write(Data(($0 + "\n").utf8)) })
            } catch {
                FileHandle.standardError.write(Data("passkey-server events verify: \(error)\n".utf8))
                throw ExitCode(1)
            }
            if !holds { throw ExitCode(1) }
        }
    }

    /// `passkey-server events [export] [--user] [--since]`: the default.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Print the audit events as JSON lines, oldest first (what `events` alone does).")

        @Option(help: ArgumentHelp("Only this account's events (its user name, any case).", valueName: "NAME"))
        var user: String?

        @Option(help: ArgumentHelp("Only events at or after this time: 2026-11-01T08:00:00Z (an offset or fractional seconds are fine) or a date, 2026-11-01 (midnight UTC).", valueName: "ISO8601"))
        var since: String?

        @Option(help: ArgumentHelp("The server's SQLite file or postgres:// URL, as for serve. (env: PASSKEY_DATABASE, default ./passkeys.sqlite)", valueName: "FILE|URL"))
        var database: String?

        @Option(name: .customLong("database-timeout"), help: ArgumentHelp("PostgreSQL: seconds a database call may take. (env: PASSKEY_DATABASE_TIMEOUT, default 5)", valueName: "SECONDS"))
        var databaseTimeout: Int?

        func validate() throws {
            if let since, EventsCommand.time(since) == nil {
                throw ValidationError("--since must be an ISO 8601 time such as 2026-11-01T08:00:00Z, or a date such as 2026-11-01, not \(since)")
            }
        }

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            var configuration = ServerConfiguration()
            configuration.database = database ?? environment["PASSKEY_DATABASE"] ?? configuration.database
            let timeoutText = databaseTimeout.map(String.init) ?? environment["PASSKEY_DATABASE_TIMEOUT"]
            if let timeoutText {
                guard let seconds = Int(timeoutText), (1...600).contains(seconds) else {
                    throw ValidationError("--database-timeout must be between 1 and 600, not \(timeoutText)")
                }
                configuration.databaseTimeout = TimeInterval(seconds)
            }
            configuration.databasePoolSize = 1
            // Standard output carries only the events.
            LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
            var logger = Logger(label: "passkey-server.events")
            logger.logLevel = .error
            let output = FileHandle.standardOutput
            do {
                _ = try await EventExport.run(
                    configuration: configuration, userName: user, since: since.flatMap(EventsCommand.time), logger: logger,
                    write: { output.write(Data(($0 + "\n").utf8)) })
            } catch let failure as EventExport.Failure {
                FileHandle.standardError.write(Data("passkey-server events: \(failure.description)\n".utf8))
                throw ExitCode(1)
            } catch {
                FileHandle.standardError.write(Data("passkey-server events: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    /// An ISO 8601 date-time (with or without fractional seconds), or a calendar date at
    /// midnight UTC.
    static func time(_ text: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = ISO8601DateFormatter()
        date.formatOptions = [.withFullDate]
        return ISO8601DateFormatter().date(from: text) ?? withFraction.date(from: text) ?? date.date(from: text)
    }
}
