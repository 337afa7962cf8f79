internal import Foundation
internal import Logging
internal import PasskeyAccounts
internal import PasskeyStorage

/// Why an operator's command failed, in a sentence for its standard error.
public struct CommandFailure: Error, CustomStringConvertible {
    public let description: String
}

/// The server's database as the operators' commands open it (`events`, `keys`, `clients`).
enum CommandDatabase {
    /// Opens the database of `configuration` (an SQLite file must exist already: a command never
    /// creates one; opening brings an older schema up to date), runs `body` and closes it, also
    /// when `body` throws.
    static func withExisting<T>(
        _ configuration: ServerConfiguration, logger: Logger, _ body: (any PasskeyStore) async throws -> T
    ) async throws -> T {
        if !PostgresLocation.isURL(configuration.database), !FileManager.default.fileExists(atPath: configuration.database) {
            throw CommandFailure(description: "no database at \(configuration.database). Fix: give --database the server's SQLite file or postgres:// URL.")
        }
        return try await opened(configuration, logger: logger, body)
    }

    /// Opens `configuration`'s database (making a missing SQLite file), runs `body` and closes
    /// it, also when `body` throws; then a file this call made is removed again.
    static func opened<T>(
        _ configuration: ServerConfiguration, logger: Logger, _ body: (any PasskeyStore) async throws -> T
    ) async throws -> T {
        let path = configuration.database
        let made = !PostgresLocation.isURL(path) && !FileManager.default.fileExists(atPath: path)
        let store: any PasskeyStore
        do {
            store = try await PasskeyApplication.openStore(configuration, logger: logger, onCommit: { _, _ in })
        } catch let error as PasskeyApplication.StartupError {
            throw CommandFailure(description: error.message)
        }
        do {
            let value = try await body(store)
            await store.close()
            return value
        } catch {
            await store.close()
            if made {
                for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            throw error
        }
    }
}
