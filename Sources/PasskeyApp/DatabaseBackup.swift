internal import Foundation
internal import PasskeyStorage
internal import PasskeySQLite

/// `passkey-server backup`: a consistent copy of a serving SQLite database.
public enum DatabaseBackup {
    public enum Outcome: Sendable {
        case copied(pages: Int, bytes: Int, seconds: Double)
        /// The database is PostgreSQL's, which has its own tools for this.
        case usePostgresTools
    }

    public static func run(database: String, to destination: String) throws(CommandFailure) -> Outcome {
        if PostgresLocation.isURL(database) { return .usePostgresTools }
        let started = Date()
        do {
            let copied = try SQLiteBackup.copy(from: database, to: destination)
            return .copied(pages: copied.pages, bytes: copied.bytes, seconds: Date().timeIntervalSince(started))
        } catch {
            throw CommandFailure(description: error.description)
        }
    }
}
