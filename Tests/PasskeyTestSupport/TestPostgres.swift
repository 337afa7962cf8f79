public import Foundation
import Logging
import NIOCore
import PasskeyStorage
public import PostgresNIO

/// The throwaway PostgreSQL cluster `make test` starts (scripts/postgres-cluster): its URL is
/// in `PASSKEY_TEST_POSTGRES_URL`. Each test gets a database of its own, created here and
/// dropped afterwards, so tests run in parallel without seeing each other's rows.
public enum TestPostgres {
    /// The admin URL of the test cluster, or nil when the tests run without one (plain
    /// `swift test`): then only the SQLite half of each store test runs.
    public static let url: String? = ProcessInfo.processInfo.environment["PASSKEY_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    public static var isAvailable: Bool { url != nil }

    /// The test cluster's self-signed certificate (its own TLS root), when known.
    public static let certificateAuthority: String? = ProcessInfo.processInfo.environment["PASSKEY_TEST_POSTGRES_CA"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// The directory of the test cluster's Unix-domain socket (local connections are trusted
    /// there), when known.
    public static let socketDirectory: String? = ProcessInfo.processInfo.environment["PASSKEY_TEST_POSTGRES_SOCKET_DIR"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// The `scripts/postgres-cluster` helper, for tests that need a cluster of their own (to
    /// stop and start it).
    public static var clusterScript: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/postgres-cluster")
    }

    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String { "PASSKEY_TEST_POSTGRES_URL is not set (make test starts a cluster and sets it)" }
    }

    public struct CreationFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// How many test servers may be starting on the cluster at once (their database made, the
    /// schema migrated, the pool's first connections opened). The whole suite starts its
    /// servers together on two cores: unbounded, hundreds of TLS handshakes and migrations ran
    /// at once and a start could wait past its 60 s deadline for PostgreSQL.
    public static let starts = Gate(limit: 16)

    /// At most `limit` holders at once; the others wait their turn, in order.
    public actor Gate {
        private var free: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        public init(limit: Int) {
            free = limit
        }

        /// Takes a place, waiting for one when all are taken.
        public func enter() async {
            if free > 0 {
                free -= 1
            } else {
                await withCheckedContinuation { waiting.append($0) }
            }
        }

        /// Gives a place back (to the first waiting, if any).
        public func leave() {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
    }

    /// Creates a fresh, empty database and returns its URL.
    public static func createDatabase() async throws -> String {
        guard let url else { throw Unavailable() }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        // Many suites start servers at once, each making its database: under that load a
        // CREATE DATABASE can fail for a moment (it once did in a fresh-clone run, a PSQLError
        // at start-up). A few tries, then the error as PostgreSQL said it.
        var attempt = 0
        while true {
            attempt += 1
            do {
                try await admin(url) { connection in
                    // The name is ours (hex), never input.
                    try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: quiet)
                }
                return replacingDatabase(in: url, with: name)
            } catch let error as PSQLError {
                if attempt >= 4 { throw CreationFailed(description: "CREATE DATABASE failed \(attempt) times: \(String(reflecting: error))") }
                try await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }

    /// Drops a database made by `createDatabase`, ending its connections.
    public static func dropDatabase(_ databaseURL: String) async {
        guard let url, let name = try? PostgresLocation(url: databaseURL).database, name.hasPrefix("t_") else { return }
        try? await admin(url) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: quiet)
        }
    }

    /// Runs `body` with a fresh database's URL, dropping the database afterwards.
    public static func withDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
        let database = try await createDatabase()
        do {
            let result = try await body(database)
            await dropDatabase(database)
            return result
        } catch {
            await dropDatabase(database)
            throw error
        }
    }

    /// One statement on a direct connection to `url` (no pool), for tests that look inside.
    public static func query<T: PostgresDecodable & Sendable>(_ url: String, _ sql: String, as type: T.Type) async throws -> [T] {
        try await admin(url) { connection in
            var values: [T] = []
            for try await (value,) in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: quiet).decode((T,).self) {
                values.append(value)
            }
            return values
        }
    }

    public static func replacingDatabase(in url: String, with name: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.path = "/" + name
        return components.string ?? url
    }

    static let quiet = Logger(label: "TestPostgres", factory: { _ in SwiftLogNoOpLogHandler() })

    private static func admin<T>(_ url: String, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let location = try PostgresLocation(url: url)
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(10)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: quiet)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
