import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyServerTestSupport
import PasskeyTestSupport
import Synchronization
import Testing

/// Two real `passkey-server` processes on one PostgreSQL database behave as one server.
@Suite(.serialized, .enabled(if: TestPostgres.isAvailable))
struct MultiInstanceTests {
    static let origin = "http://localhost:1"

    /// Both instances on `database`, rate limits off (the tests are one client address), a
    /// generous database timeout (every test runs at once on two cores) unless `extra` sets one.
    /// Two instances on `database`. A start is tried up to `attempts` times: with a short
    /// `--database-timeout`, opening the database at start-up can miss it on a machine busy
    /// with the whole suite.
    static func instances(_ database: String, extra: [String] = ["--database-timeout", "60"], attempts: Int = 1) async throws -> (ServerProcess, ServerProcess) {
        let arguments = ["--port", "0", "--database", database, "--origin", origin, "--rate-limit-ip", "0", "--rate-limit-user", "0",
                         "--database-pool-size", "4"] + extra
        func start() async throws -> ServerProcess {
            for attempt in 1... {
                do { return try await ServerProcess.start(arguments: arguments) } catch where attempt < attempts {
                    try await Task.sleep(for: .milliseconds(500))
                }
            }
            fatalError("unreachable")
        }
        let first = try await start()
        do {
            return (first, try await start())
        } catch {
            first.kill9()
            throw error
        }
    }

    static func challenge(_ result: HTTPResult) throws -> [UInt8] {
        let options = try #require(result.json["publicKey"] as? [String: Any], "\(String(decoding: result.body, as: UTF8.self))")
        return try #require(Base64URL.decode(options["challenge"] as? String ?? ""))
    }

    /// Registers `name` with initialize on `start` and finalize on `finish`.
    static func register(_ name: String, start: Client, finish: Client) async throws -> (credential: TestCredential, token: String) {
        let initialize = try await start.get("/registration_initialize?user_name=\(name)")
        let options = try #require(initialize.json["publicKey"] as? [String: Any])
        let handle = try #require(Base64URL.decode((options["user"] as? [String: Any])?["id"] as? String ?? ""))
        let credential = try TestCredential(userHandle: handle)
        let body = try RegistrationBuilder(credential: credential, rpID: "localhost", origin: origin, challenge: try challenge(initialize)).json()
        let result = try await finish.post("/registration_finalize", bytes: body)
        try #require(result.status == 200, "\(String(decoding: result.body, as: UTF8.self))")
        return (credential, try #require(result.json["session"] as? String))
    }

    @Test("a ceremony started on one instance finishes on the other; sessions and logout are shared")
    func crossInstanceCeremonies() async throws {
        try await TestPostgres.withDatabase { database in
            let (a, b) = try await Self.instances(database)
            defer { _ = a.terminate(); _ = b.terminate() }
            let (ca, cb) = (Client(base: a.base), Client(base: b.base))

            let (credential, token) = try await Self.register("erin", start: ca, finish: cb)
            #expect(try await ca.get("/me", bearer: token).status == 200)

            let start = try await cb.get("/authentication_initialize?user_name=erin")
            let assertion = try AssertionBuilder(
                credential: credential, rpID: "localhost", origin: Self.origin, challenge: try Self.challenge(start), signCount: 7).json()
            let signedIn = try await ca.post("/authentication_finalize", bytes: assertion)
            #expect(signedIn.status == 200)
            let second = try #require(signedIn.json["session"] as? String)
            let me = try await cb.get("/me", bearer: second)
            #expect(me.status == 200)
            #expect((me.json["credentials"] as? [[String: Any]])?.first?["sign_count"] as? Int == 7)

            // The same assertion again, on either instance: its challenge is spent.
            #expect(try await cb.post("/authentication_finalize", bytes: assertion).error == "unknown_challenge")
            #expect(try await ca.post("/authentication_finalize", bytes: assertion).error == "unknown_challenge")

            #expect(try await cb.send("POST", "/logout", body: Data("{}".utf8), bearer: second).status == 200)
            #expect(try await ca.get("/me", bearer: second).status == 401)
            #expect(try await ca.get("/me", bearer: token).status == 200)
        }
    }

    @Test("recovery attempts and wrong device codes are limited across both instances, not per instance")
    func limitsHoldAcrossInstances() async throws {
        try await TestPostgres.withDatabase { database in
            let (a, b) = try await Self.instances(database, extra: ["--database-timeout", "60", "--rate-limit-recovery", "3"])
            defer { _ = a.terminate(); _ = b.terminate() }
            let clients = [Client(base: a.base), Client(base: b.base)]
            _ = try await Self.register("erin", start: clients[0], finish: clients[1])
            // Three wrong codes an hour per name, whichever instance is asked: alternating
            // between them, the fourth is 429 (per instance it would have been the seventh).
            try await Self.waitForRoom(inWindowsOf: 3600, seconds: 20)
            var answers: [Int] = []
            for attempt in 0..<6 {
                let result = try await clients[attempt % 2].post("/recovery", json: ["user_name": "erin", "code": "AAAA-BBBB-CCCC-DDDD"])
                answers.append(result.status)
            }
            #expect(answers == [400, 400, 400, 429, 429, 429], "\(answers)")
            // Five wrong device user codes a minute per address, across both.
            try await Self.waitForRoom(inWindowsOf: 60, seconds: 20)
            var device: [Int] = []
            for attempt in 0..<8 {
                device.append(try await clients[attempt % 2].post("/device/lookup", json: ["user_code": "BCDF-GHJK"]).status)
            }
            #expect(device == [404, 404, 404, 404, 404, 429, 429, 429], "\(device)")
        }
    }

    /// The shared limits count in fixed windows of the clock (a minute, an hour from the
    /// epoch): a run of attempts that a window's end splits starts its count again half-way.
    /// Waits, when fewer than `seconds` are left in the current window, for the next to begin.
    static func waitForRoom(inWindowsOf window: Double, seconds: Double) async throws {
        let left = window - Date().timeIntervalSince1970.truncatingRemainder(dividingBy: window)
        if left < seconds { try await Task.sleep(for: .seconds(left + 0.5)) }
    }

    @Test("the PostgreSQL password from --database-password-file, never on the command line; given twice, refused")
    func databasePasswordFromAFile() async throws {
        try await TestPostgres.withDatabase { database in
            var parts = try #require(URLComponents(string: database))
            let password = try #require(parts.password)
            parts.password = nil
            let withoutPassword = try #require(parts.string)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-pw-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("password")
            try Data((password + "\n").utf8).write(to: file)
            let server = try await ServerProcess.start(arguments: [
                "--port", "0", "--database", withoutPassword, "--database-password-file", file.path, "--database-timeout", "60",
            ])
            #expect(try await Client(base: server.base).get("/healthz").status == 200)
            #expect(server.terminate() == 0)
            let twice = try await CommandRun.run(["serve", "--port", "0", "--database", database, "--database-password-file", file.path])
            #expect(twice.status != 0 && twice.errors.contains("given twice"), "\(twice.errors)")
        }
    }

    @Test("20 racing finalizes of one assertion spread over both instances: exactly one 200")
    func racingFinalizes() async throws {
        try await TestPostgres.withDatabase { database in
            let (a, b) = try await Self.instances(database)
            defer { _ = a.terminate(); _ = b.terminate() }
            let clients = [Client(base: a.base), Client(base: b.base)]
            let (credential, _) = try await Self.register("frank", start: clients[0], finish: clients[1])

            let start = try await clients[1].get("/authentication_initialize?user_name=frank")
            let assertion = try AssertionBuilder(
                credential: credential, rpID: "localhost", origin: Self.origin, challenge: try Self.challenge(start), signCount: 1).json()
            let results = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
                for index in 0..<20 {
                    let client = clients[index % 2]
                    group.addTask { try await client.post("/authentication_finalize", bytes: assertion) }
                }
                return try await group.reduce(into: [HTTPResult]()) { $0.append($1) }
            }
            #expect(results.filter { $0.status == 200 }.count == 1)
            #expect(results.filter { $0.error == "unknown_challenge" }.count == 19)
        }
    }

    @Test("concurrent registrations of one name on both instances: one account, the rest 409")
    func concurrentRegistrationsOfOneName() async throws {
        try await TestPostgres.withDatabase { database in
            let (a, b) = try await Self.instances(database)
            defer { _ = a.terminate(); _ = b.terminate() }
            let clients = [Client(base: a.base), Client(base: b.base)]
            // Every ceremony is started before any finishes: all see a free name.
            var bodies: [[UInt8]] = []
            for index in 0..<10 {
                let initialize = try await clients[index % 2].get("/registration_initialize?user_name=grace")
                let options = try #require(initialize.json["publicKey"] as? [String: Any])
                let handle = try #require(Base64URL.decode((options["user"] as? [String: Any])?["id"] as? String ?? ""))
                bodies.append(try RegistrationBuilder(
                    credential: try TestCredential(userHandle: handle), rpID: "localhost", origin: Self.origin,
                    challenge: try Self.challenge(initialize)).json())
            }
            let results = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
                for (index, body) in bodies.enumerated() {
                    let client = clients[(index + 1) % 2]
                    group.addTask { try await client.post("/registration_finalize", bytes: body) }
                }
                return try await group.reduce(into: [HTTPResult]()) { $0.append($1) }
            }
            #expect(results.filter { $0.status == 200 }.count == 1)
            #expect(results.filter { $0.status == 409 && $0.error == "user_exists" }.count == 9)
        }
    }

    @Test("kill -9 of one instance in a burst: every 200 survives, the other keeps serving")
    func killOneInstance() async throws {
        try await TestPostgres.withDatabase { database in
            let (a, b) = try await Self.instances(database)
            defer { _ = b.terminate() }
            let clients = [Client(base: a.base), Client(base: b.base)]
            let answered = Gathered<(name: String, token: String)>()
            // A flag, not Task.cancel: cancelling URLSession tasks in flight trips
            // FoundationNetworking on Linux.
            let stop = Gathered<Bool>()
            let workers = Task {
                await withTaskGroup(of: Void.self) { group in
                    for worker in 0..<8 {
                        group.addTask {
                            for round in 0..<500 where stop.count == 0 {
                                let name = "k\(worker)r\(round)"
                                // Start on one, finish on the other: A's death hits both halves.
                                guard let result = try? await Self.register(name, start: clients[round % 2], finish: clients[(round + 1) % 2])
                                else { continue }
                                answered.append((name, result.token))
                            }
                        }
                    }
                }
            }
            let deadline = Date().addingTimeInterval(120)
            while answered.count < 40, Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            a.kill9()
            // B goes on serving while the workers are still at it.
            let after = try await Self.register("after-the-kill", start: clients[1], finish: clients[1])
            stop.append(true)
            await workers.value
            let records = answered.items
            #expect(records.count >= 40)
            for record in records {
                #expect(try await clients[1].get("/me", bearer: record.token).status == 200, "\(record.name): answered 200, then lost")
            }
            #expect(try await clients[1].get("/me", bearer: after.token).status == 200)
        }
    }

    @Test("PostgreSQL stopped under load: 503 unavailable within the timeout, no hang; started again: serving again")
    func databaseDownAndUp() async throws {
        let cluster = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-pg-\(UUID().uuidString)")
        let url = try await Self.cluster("init", cluster)
        defer { _ = try? Self.clusterBlocking("destroy", cluster) }
        // The schema first, by an instance with a generous timeout: the two below get 2 s for
        // every call, start-up's migrations included, and under the whole suite's load creating
        // the schema on a fresh cluster has taken longer (they exited at start in every try).
        let migrated = try await ServerProcess.start(arguments: ["--port", "0", "--database", url, "--origin", Self.origin, "--database-timeout", "60"])
        #expect(migrated.terminate() == 0)
        let (a, b) = try await Self.instances(url, extra: ["--database-timeout", "2"], attempts: 3)
        defer { _ = a.terminate(); _ = b.terminate() }
        let clients = [Client(base: a.base), Client(base: b.base)]
        let (credential, token) = try await Self.register("heidi", start: clients[0], finish: clients[1])

        // Load: both instances keep starting ceremonies; every answer is timed.
        let statuses = Gathered<(status: Int, error: String?, seconds: Double)>()
        let stop = Gathered<Bool>()
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        while stop.count == 0 {
                            let started = Date()
                            if let result = try? await clients[worker % 2].get("/authentication_initialize?user_name=heidi") {
                                statuses.append((result.status, result.error, Date().timeIntervalSince(started)))
                            }
                            try? await Task.sleep(for: .milliseconds(20))
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        _ = try await Self.cluster("stop", cluster)
        try await Task.sleep(for: .seconds(4))
        let whileDown = statuses.items
        let health = try await clients[0].get("/healthz")
        #expect(health.status == 503)
        #expect(health.error == "unavailable")

        _ = try await Self.cluster("start", cluster)
        // Recovery by itself: within a few seconds both instances answer 200 again.
        var recovered = false
        let deadline = Date().addingTimeInterval(30)
        while !recovered, Date() < deadline {
            try await Task.sleep(for: .milliseconds(250))
            let first = try await clients[0].get("/healthz").status
            let second = try await clients[1].get("/healthz").status
            recovered = first == 200 && second == 200
        }
        stop.append(true)
        await load.value
        #expect(recovered, "the instances did not recover after PostgreSQL came back")

        let unavailable = whileDown.filter { $0.status == 503 }
        #expect(!unavailable.isEmpty, "no 503 while the database was down")
        #expect(unavailable.allSatisfy { $0.error == "unavailable" })
        // Nothing but 200 and 503 (no 500, no hang): each answer bounded by the 2 s timeout and a
        // margin for a machine busy with every other test.
        #expect(whileDown.allSatisfy { [200, 503].contains($0.status) }, "\(Set(whileDown.map(\.status)))")
        #expect(whileDown.allSatisfy { $0.seconds < 15 }, "slowest answer \(whileDown.map(\.seconds).max() ?? 0) s")

        // Data from before the outage is there, and a whole sign-in works on each instance.
        #expect(try await clients[1].get("/me", bearer: token).status == 200)
        for (index, client) in clients.enumerated() {
            let start = try await client.get("/authentication_initialize?user_name=heidi")
            let assertion = try AssertionBuilder(
                credential: credential, rpID: "localhost", origin: Self.origin, challenge: try Self.challenge(start),
                signCount: UInt32(10 + index)).json()
            #expect(try await clients[(index + 1) % 2].post("/authentication_finalize", bytes: assertion).status == 200)
        }
    }

    /// scripts/postgres-cluster COMMAND DIR; for init, the cluster's URL. Read from DIR/url, not
    /// from a pipe: the server started inherits descriptors and would hold a pipe open.
    @discardableResult
    static func cluster(_ command: String, _ directory: URL) async throws -> String {
        try await onOwnThread { try clusterBlocking(command, directory) }
    }

    static func clusterBlocking(_ command: String, _ directory: URL) throws -> String {
        let run = try ChildProcess.runBlocking(
            "/bin/bash", [TestPostgres.clusterScript.path, command, directory.path], environment: ChildProcess.environment(),
            stdout: .null, stderr: .inherit)
        guard run.status == 0 else { throw ChildProcess.Failed(description: "postgres-cluster \(command) failed") }
        guard command == "init" else { return "" }
        return try String(contentsOf: directory.appendingPathComponent("url"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The OpenID provider on two instances of one PostgreSQL database (docs/contracts/identity.md).
@Suite(.serialized, .enabled(if: TestPostgres.isAvailable))
struct MultiInstanceOpenIDTests {
    static func raw(_ port: Int, _ method: String, _ path: String, headers: [String: String] = [:], form: String? = nil) async throws -> HTTPResult {
        try await RawHTTP.request(port: port, method, path, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, form: form)
    }

    @Test("an authorization started on one instance finishes on the other; a code is spent once across both; one key set")
    func crossInstanceFlow() async throws {
        try await TestPostgres.withDatabase { database in
            let (a, b) = try await MultiInstanceTests.instances(database)
            defer { _ = a.terminate(); _ = b.terminate() }
            let (_, session) = try await MultiInstanceTests.register("olga", start: Client(base: a.base), finish: Client(base: b.base))
            let added = try await CommandRun.run([
                "clients", "add", "--database", database, "--id", "wiki", "--name", "Wiki", "--redirect-uri", "https://wiki.example/callback",
            ])
            #expect(added.status == 0, "\(added.errors)")
            let last = Data((added.output.split(separator: "\n").last ?? "").utf8)
            let secret = try #require((try JSONSerialization.jsonObject(with: last) as? [String: Any])?["client_secret"] as? String)

            // The same keys and metadata from both.
            let keysA = try await Client(base: a.base).get("/oauth/jwks"), keysB = try await Client(base: b.base).get("/oauth/jwks")
            #expect(keysA.status == 200 && keysA.body == keysB.body)
            #expect(try await Client(base: a.base).get("/.well-known/openid-configuration").body
                == (try await Client(base: b.base).get("/.well-known/openid-configuration").body))

            let verifier = Base64URL.encode(SecureRandom.bytes(32))
            let challenge = Base64URL.encode(Digest.sha256.hash(Array(verifier.utf8)))
            let query = "response_type=code&client_id=wiki&redirect_uri=https%3A%2F%2Fwiki.example%2Fcallback&scope=openid&state=s1&nonce=n1"
                + "&code_challenge=\(challenge)&code_challenge_method=S256"
            // Held on a, resumed on b.
            let held = try await Self.raw(a.port, "GET", "/oauth/authorize?" + query)
            let location = try #require(held.header("Location"))
            let handle = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "authorization" }?.value)
            let resumed = try await Self.raw(b.port, "GET", "/oauth/authorize/resume?authorization=\(handle)", headers: ["Authorization": "Bearer \(session)"])
            let code = try #require(URLComponents(string: resumed.header("Location") ?? "")?.queryItems?.first { $0.name == "code" }?.value)

            let basic = ["Authorization": "Basic " + Data("wiki:\(secret)".utf8).base64EncodedString()]
            let form = "grant_type=authorization_code&code=\(code)&redirect_uri=https%3A%2F%2Fwiki.example%2Fcallback&code_verifier=\(verifier)"
            let first = try await Self.raw(a.port, "POST", "/oauth/token", headers: basic, form: form)
            #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self))")
            let accessToken = try #require(first.json["access_token"] as? String)
            #expect(try await Self.raw(b.port, "GET", "/oauth/userinfo", headers: ["Authorization": "Bearer \(accessToken)"]).status == 200)
            // Spent on a: refused on b, and what it issued is revoked on both.
            let second = try await Self.raw(b.port, "POST", "/oauth/token", headers: basic, form: form)
            #expect(second.error == "invalid_grant")
            #expect(try await Self.raw(a.port, "GET", "/oauth/userinfo", headers: ["Authorization": "Bearer \(accessToken)"]).status == 401)
        }
    }
}
