import PasskeyJSON
public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
public import Logging
import PasskeyCore
import PasskeyCrypto
public import PasskeyApp
public import PasskeyAccounts
import PasskeyServer
public import PasskeyTestSupport
import Synchronization
import Testing

/// A clock tests can move.
public final class TestClock: Sendable {
    public init() {}
    private let offset = Mutex<TimeInterval>(0)
    private let frozen = Mutex<Date?>(nil)
    public func now() -> Date { frozen.withLock { $0 } ?? Date().addingTimeInterval(offset.withLock { $0 }) }
    /// Moves the clock on, frozen or not.
    public func advance(_ seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
        frozen.withLock { $0 = $0?.addingTimeInterval(seconds) }
    }
    /// Stops the clock where it is: a test that counts on time not passing (a rate limit's
    /// bucket not refilling) holds even when the machine is slow.
    public func freeze() {
        let current = now()
        frozen.withLock { $0 = current }
    }
}

/// The real server, in process, on a free port of 127.0.0.1, with a database in a fresh
/// temporary folder. Browsers' origin is http://localhost:PORT as in the default set-up.
///
/// With `PASSKEY_TEST_SERVER_DATABASE=postgres` (the second pass of `make test`), each server
/// gets a fresh PostgreSQL database of the test cluster instead of an SQLite file: the HTTP
/// tests run against both stores.
public final class TestServer: Sendable {
    public let app: PasskeyApplication
    public let port: Int
    public let directory: URL
    public let clock: TestClock
    /// The PostgreSQL database this server was given, dropped at `stop`.
    public let postgresDatabase: String?
    private let task: Task<Void, any Error>

    public static var onPostgres: Bool { ProcessInfo.processInfo.environment["PASSKEY_TEST_SERVER_DATABASE"] == "postgres" }

    public var origin: String { "http://localhost:\(port)" }
    public var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    public static func start(_ configure: (inout ServerConfiguration) -> Void = { _ in }, logger custom: Logger? = nil) async throws -> TestServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let listening = AsyncStream<Int>.makeStream()
        let clock = TestClock()
        // Port 0: the default origin follows the port the server binds.
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.database = directory.appendingPathComponent("db.sqlite").path
        if onPostgres { await TestPostgres.starts.enter() }
        let postgresDatabase: String?
        do {
            postgresDatabase = onPostgres ? try await TestPostgres.createDatabase() : nil
        } catch {
            await TestPostgres.starts.leave()
            throw error
        }
        if let postgresDatabase {
            configuration.database = postgresDatabase
            // Generous: every test runs at once on two cores (see PasskeyStoreTests.testTimeout).
            configuration.databaseTimeout = 60
            // Few connections each: the suite's servers all run at once against one cluster
            // (max_connections 800, scripts/postgres-cluster), and the default 10 each could exhaust it.
            configuration.databasePoolSize = 4
        }
        // Generous too: a key set or metadata document stand-in on loopback has been seen to take
        // more than the 3 s default to answer with every test running at once. The tests of that
        // limit set it back.
        configuration.clientDocumentTimeout = 30
        configuration.publicDirectory = directory.path
        configuration.associationFile = nil
        configure(&configuration)
        var logger = custom ?? Logger(label: "test-server")
        if custom == nil { logger.logLevel = .warning }
        let app: PasskeyApplication
        do {
            app = try await PasskeyApplication.build(configuration: configuration, logger: logger, now: { clock.now() }, onListening: { _, port in
                listening.continuation.yield(port)
            })
        } catch {
            if let postgresDatabase { await TestPostgres.dropDatabase(postgresDatabase) }
            if onPostgres { await TestPostgres.starts.leave() }
            throw error
        }
        let task = Task { try await app.run() }
        var port = 0
        for await p in listening.stream {
            port = p
            break
        }
        if onPostgres { await TestPostgres.starts.leave() }
        return TestServer(app: app, port: port, directory: directory, clock: clock, postgresDatabase: postgresDatabase, task: task)
    }

    private init(
        app: PasskeyApplication, port: Int, directory: URL, clock: TestClock, postgresDatabase: String?, task: Task<Void, any Error>
    ) {
        self.app = app
        self.port = port
        self.directory = directory
        self.clock = clock
        self.postgresDatabase = postgresDatabase
        self.task = task
    }

    public func stop() async {
        await stopKeepingData()
        await removeData()
    }

    /// The database this server was given: its SQLite file, or its PostgreSQL database.
    public var databasePath: String { postgresDatabase ?? directory.appendingPathComponent("db.sqlite").path }

    /// Stops serving, leaving the database for another server (a restart with other flags);
    /// `removeData` removes it afterwards.
    public func stopKeepingData() async {
        task.cancel()
        _ = try? await task.value
    }

    public func removeData() async {
        try? FileManager.default.removeItem(at: directory)
        if let postgresDatabase { await TestPostgres.dropDatabase(postgresDatabase) }
    }
}

/// Items appended by concurrent tasks.
public final class Gathered<Item: Sendable>: Sendable {
    public init() {}
    private let storage = Mutex<[Item]>([])
    public func append(_ item: Item) { storage.withLock { $0.append(item) } }
    public var items: [Item] { storage.withLock { $0 } }
    public var count: Int { storage.withLock { $0.count } }
}

/// A response as the tests look at it.
public struct HTTPResult: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    public var error: String? { json["error"] as? String }
    public var setCookie: String? { header("Set-Cookie") }

    /// A header field's value, its name compared without case.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// A client that keeps no cookies (as native apps) unless a token is passed explicitly.
public struct Client: Sendable {
    public let base: URL

    public init(base: URL) { self.base = base }

    public func send(_ method: String, _ path: String, body: Data? = nil, bearer: String? = nil, cookie: String? = nil, headers: [String: String] = [:]) async throws -> HTTPResult {
        var request = URLRequest(url: URL(string: path, relativeTo: base)!)
        request.httpMethod = method
        request.httpBody = body
        if body != nil, headers["Content-Type"] == nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let cookie { request.setValue("session=\(cookie)", forHTTPHeaderField: "Cookie") }
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (k, v) in http.allHeaderFields { fields["\(k)"] = "\(v)" }
        return HTTPResult(status: http.statusCode, headers: fields, body: data)
    }

    public func get(_ path: String, bearer: String? = nil, cookie: String? = nil) async throws -> HTTPResult {
        try await send("GET", path, bearer: bearer, cookie: cookie)
    }

    public func post(_ path: String, json: Any, bearer: String? = nil, cookie: String? = nil) async throws -> HTTPResult {
        try await send("POST", path, body: try JSONSerialization.data(withJSONObject: json), bearer: bearer, cookie: cookie)
    }

    public func post(_ path: String, bytes: [UInt8], bearer: String? = nil, cookie: String? = nil) async throws -> HTTPResult {
        try await send("POST", path, body: Data(bytes), bearer: bearer, cookie: cookie)
    }
}

/// Whole ceremonies over HTTP with the software authenticator.
public struct Ceremonies: Sendable {
    public let server: TestServer

    public init(server: TestServer) { self.server = server }
    public var client: Client { Client(base: server.base) }

    /// registration_initialize → authenticator → registration_finalize, with a hook to change
    /// the response before it is sent.
    public func register(
        _ name: String, credential: TestCredential? = nil, session: String? = nil,
        adjust: (inout RegistrationBuilder) -> Void = { _ in }
    ) async throws -> (result: HTTPResult, credential: TestCredential, options: [String: Any]) {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
        let initialize = try await client.get("/registration_initialize?user_name=\(encoded)", bearer: session)
        #expect(initialize.status == 200, "\(String(decoding: initialize.body, as: UTF8.self))")
        let options = initialize.json["publicKey"] as? [String: Any] ?? [:]
        let challenge = Base64URL.decode(options["challenge"] as? String ?? "") ?? []
        let user = options["user"] as? [String: Any] ?? [:]
        let handle = Base64URL.decode(user["id"] as? String ?? "") ?? []
        let credential = try credential ?? TestCredential(userHandle: handle)
        var builder = RegistrationBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge)
        adjust(&builder)
        let result = try await client.post("/registration_finalize", bytes: builder.json())
        return (result, credential, options)
    }

    /// authentication_initialize (with or without a name) → authenticator → finalize.
    public func signIn(
        _ name: String?, credential: TestCredential, signCount: UInt32,
        adjust: (inout AssertionBuilder) -> Void = { _ in }
    ) async throws -> (result: HTTPResult, options: [String: Any]) {
        let path = name.map { "/authentication_initialize?user_name=\($0.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)" }
            ?? "/authentication_initialize"
        let initialize = try await client.get(path)
        #expect(initialize.status == 200)
        let options = initialize.json["publicKey"] as? [String: Any] ?? [:]
        let challenge = Base64URL.decode(options["challenge"] as? String ?? "") ?? []
        var builder = AssertionBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge, signCount: signCount)
        adjust(&builder)
        return (try await client.post("/authentication_finalize", bytes: builder.json()), options)
    }
}

/// Runs `body` against a fresh server and stops it afterwards.
public func withServer(
    _ configure: (inout ServerConfiguration) -> Void = { _ in }, logger: Logger? = nil,
    _ body: (TestServer, Ceremonies, Client) async throws -> Void
) async throws {
    let server = try await TestServer.start(configure, logger: logger)
    do {
        try await body(server, Ceremonies(server: server), Client(base: server.base))
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
