import ArgumentParser
import Foundation
import PasskeyApp

/// `passkey-server backup FILE`: SQLite's online backup of the server's database.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database, even while a server is using it, to a new file that serve opens as it is.",
        discussion: """
            The copy is the database as of one moment (SQLite's online backup API), checked with \
            SQLite's quick_check; the file must not exist yet and is created readable by its \
            owner only. On PostgreSQL use pg_dump (exit 2).
            """)

    @Argument(help: ArgumentHelp("The new file to write; it must not exist.", valueName: "FILE"))
    var file: String

    @Option(help: ArgumentHelp("The server's SQLite file. (env: PASSKEY_DATABASE, default ./passkeys.sqlite)", valueName: "FILE"))
    var database: String?

    func run() throws {
        let database = database ?? ProcessInfo.processInfo.environment["PASSKEY_DATABASE"] ?? "./passkeys.sqlite"
        let outcome: DatabaseBackup.Outcome
        do {
            outcome = try DatabaseBackup.run(database: database, to: file)
        } catch {
            FileHandle.standardError.write(Data("passkey-server backup: \(error.description)\n".utf8))
            throw ExitCode.failure
        }
        switch outcome {
        case .usePostgresTools:
            FileHandle.standardError.write(Data("passkey-server backup: the database is PostgreSQL; back it up with pg_dump (and restore with pg_restore or psql).\n".utf8))
            throw ExitCode(2)
        case .copied(let pages, let bytes, let seconds):
            print("backup: \(file) written, \(pages) pages, \(bytes) bytes, in \(String(format: "%.2f", seconds)) s")
        }
    }
}
