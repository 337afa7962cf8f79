import ArgumentParser
import Foundation
import Logging
import PasskeyAccounts
import PasskeyApp
import Synchronization

/// The database options of `export`, `import` and `migrate`: as `serve`'s, with a timeout long
/// enough for a whole database in one transaction.
struct TransferDatabaseOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The SQLite file or postgres:// URL, as for serve. (env: PASSKEY_DATABASE, default ./passkeys.sqlite)", valueName: "FILE|URL"))
    var database: String?

    @Option(name: .customLong("database-password-file"), help: ArgumentHelp("Secret. The PostgreSQL password, read from this file, for a postgres:// URL that names none. (env: PASSKEY_DATABASE_PASSWORD_FILE)", valueName: "PATH"))
    var databasePasswordFile: String?

    @Flag(name: .customLong("with-sessions"), help: "Carry the signed-in sessions too (by default users sign in again afterwards).")
    var withSessions = false

    func configuration(database override: String? = nil) throws -> ServerConfiguration {
        let environment = ProcessInfo.processInfo.environment
        var configuration = ServerConfiguration()
        configuration.database = override ?? database ?? environment["PASSKEY_DATABASE"] ?? configuration.database
        if let path = databasePasswordFile ?? environment["PASSKEY_DATABASE_PASSWORD_FILE"] {
            configuration.databasePassword = try ConfigurationResolver.readSecret(path, option: "--database-password-file")
        }
        configuration.databaseTimeout = 3600
        configuration.databasePoolSize = 2
        return configuration
    }

    static func logger() -> Logger {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "passkey-server.transfer")
        logger.logLevel = .error
        return logger
    }

    /// A line on standard error when it is a terminal; nothing in a pipe.
    static func progress(_ line: String) {
        if isatty(2) == 1 { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// The bar a transfer draws on standard error when it is a terminal (nothing in a pipe):
    /// its phase, the rows done of all, and the time left at the rate so far.
    static let bar: DataTransfer.Progress = {
        guard isatty(2) == 1 else { return { _, _, _ in } }
        let bar = ProgressBar()
        return { phase, done, total in bar.draw(phase: phase, done: done, total: total) }
    }()

    static func fail(_ verb: String, _ error: any Error) -> ExitCode {
        fail(verb, "\(error)")
    }

    static func fail(_ verb: String, _ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("passkey-server \(verb): \(message)\n".utf8))
        return ExitCode(1)
    }
}

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write everything in the database to standard output as JSON lines, for import into an empty database of either engine.",
        discussion: """
            Users, passkeys, Apple links, push devices, groups, clients (their secrets hashed), \
            signing keys, grants, recovery codes' hashes and the keys they are hashed with, admin \
            tokens' hashes, open invitations, the audit events with their chain and checkpoints; \
            not pending ceremonies, nor sessions unless --with-sessions. The first line names the \
            format and the schema, the last counts the rows. Treat the output as a secret.
            """)

    @OptionGroup var options: TransferDatabaseOptions

    @Option(help: ArgumentHelp("Write to this new file (made readable by its owner only) instead of standard output.", valueName: "FILE"))
    var output: String?

    func run() async throws {
        let logger = TransferDatabaseOptions.logger()
        var handle = FileHandle.standardOutput
        if let output {
            let descriptor = open(output, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw TransferDatabaseOptions.fail("export", "cannot create \(output): \(String(cString: strerror(errno)))") }
            handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        }
        do {
            var buffer = Data()
            let counts = try await DataTransfer.export(
                configuration: try options.configuration(), withSessions: options.withSessions, logger: logger, now: Date(),
                progress: output == nil ? { _, _, _ in } : TransferDatabaseOptions.bar
            ) { line in
                buffer.append(contentsOf: Array(line.utf8))
                buffer.append(0x0A)
                if buffer.count >= 1 << 20 { handle.write(buffer); buffer.removeAll(keepingCapacity: true) }
            }
            handle.write(buffer)
            if output != nil { try handle.synchronize() }
            for (table, rows) in counts.tables { TransferDatabaseOptions.progress("\(table): \(rows) rows") }
        } catch {
            if let output { unlink(output) }
            throw TransferDatabaseOptions.fail("export", error)
        }
    }
}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read an export (standard input, or --from FILE) into an empty database of either engine.",
        discussion: """
            A missing SQLite file is made. A database that holds anything is refused, and so is a \
            cut or altered export; either way nothing is written. All rows are written in one \
            transaction.
            """)

    @OptionGroup var options: TransferDatabaseOptions

    @Option(help: ArgumentHelp("Read the export from this file instead of standard input.", valueName: "FILE"))
    var from: String?

    func run() async throws {
        let logger = TransferDatabaseOptions.logger()
        let data: Data
        if let from {
            guard let read = FileManager.default.contents(atPath: from) else { throw TransferDatabaseOptions.fail("import", "\(from) cannot be read") }
            data = read
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        do {
            let started = Date()
            let counts = try await DataTransfer.importing(
                String(decoding: data, as: UTF8.self), configuration: try options.configuration(), logger: logger,
                progress: TransferDatabaseOptions.bar)
            for (table, rows) in counts.tables { TransferDatabaseOptions.progress("\(table): \(rows) rows") }
            print("import: \(counts.total) rows in \(counts.tables.count) tables, in \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        } catch {
            throw TransferDatabaseOptions.fail("import", error)
        }
    }
}

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move a database to the other engine in one run: --database FILE --to postgres://… (or back), then compare every row.",
        discussion: """
            The target must be empty (a missing SQLite file is made). Afterwards the same passkeys \
            sign in, refresh tokens refresh, ID tokens verify with the same keys and events verify \
            passes; stop the servers on the old database first, and point them at the new one.
            """)

    @OptionGroup var options: TransferDatabaseOptions

    @Option(help: ArgumentHelp("The database to write: a postgres:// URL or an SQLite file.", valueName: "FILE|URL"))
    var to: String

    func run() async throws {
        let logger = TransferDatabaseOptions.logger()
        do {
            let started = Date()
            let counts = try await DataTransfer.migrate(
                source: try options.configuration(), target: try options.configuration(database: to), withSessions: options.withSessions,
                logger: logger, progress: TransferDatabaseOptions.bar)
            print("migrate: \(counts.total) rows in \(counts.tables.count) tables, compared, in \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        } catch {
            throw TransferDatabaseOptions.fail("migrate", error)
        }
    }
}

/// One line redrawn in place: `writing   [#########...........]  10000/22002 rows, 6 s left`.
final class ProgressBar: Sendable {
    private struct State {
        var phase = ""
        var started = Date()
        var drawn = Date.distantPast
        /// A line is drawn and not ended yet.
        var open = false
    }

    private let state = Mutex(State())
    static let width = 30

    func draw(phase: String, done: Int, total: Int) {
        let line: String? = state.withLock { state in
            let now = Date()
            var prefix = ""
            if phase != state.phase {
                prefix = state.open ? "\n" : ""
                state.phase = phase
                state.started = now
            } else if !state.open || (done < total && now.timeIntervalSince(state.drawn) < 0.1) {
                return nil   // this phase's line is ended, or was drawn a moment ago
            }
            state.drawn = now
            let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
            let filled = Int(fraction * Double(Self.width))
            let elapsed = now.timeIntervalSince(state.started)
            let left = fraction > 0 && fraction < 1 ? ", \(Int((elapsed / fraction - elapsed).rounded())) s left" : ""
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: Self.width - filled)
            state.open = done < total
            return prefix + "\r\u{1B}[2K" + phase.padding(toLength: 10, withPad: " ", startingAt: 0)
                + "[\(bar)] \(done)/\(total) rows\(left)" + (done >= total ? "\n" : "")
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }
}
