import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyApp
import PasskeyOutbound
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyStorage
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

@Suite(.serialized) struct ProcessTests {
    func temporaryDatabase() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-proc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("db.sqlite")
    }

    /// Register, kill -9, restart on the same file with the same origin, sign in.
    @Test func survivesKillDashNine() async throws {
        let database = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let first = try await ServerProcess.start(arguments: ["--port", "0", "--database", database.path, "--origin", "http://localhost:1"])
        let client = Client(base: first.base)
        let initialize = try await client.get("/registration_initialize?user_name=kim")
        let options = initialize.json["publicKey"] as! [String: Any]
        let handle = Base64URL.decode((options["user"] as! [String: Any])["id"] as! String)!
        let credential = try TestCredential(userHandle: handle)
        let registration = try RegistrationBuilder(
            credential: credential, rpID: "localhost", origin: "http://localhost:1",
            challenge: Base64URL.decode(options["challenge"] as! String)!).json()
        let registered = try await client.post("/registration_finalize", bytes: registration)
        #expect(registered.status == 200)
        let token = try #require(registered.json["session"] as? String)
        first.kill9()

        let second = try await ServerProcess.start(arguments: ["--port", "0", "--database", database.path, "--origin", "http://localhost:1"])
        let again = Client(base: second.base)
        #expect(try await again.get("/me", bearer: token).status == 200)   // the session survived too
        let start = try await again.get("/authentication_initialize?user_name=KIM")
        let challenge = Base64URL.decode((start.json["publicKey"] as! [String: Any])["challenge"] as! String)!
        let assertion = try AssertionBuilder(credential: credential, rpID: "localhost", origin: "http://localhost:1", challenge: challenge, signCount: 1).json()
        let signedIn = try await again.post("/authentication_finalize", bytes: assertion)
        #expect(signedIn.status == 200)
        #expect(signedIn.json["user_name"] as? String == "kim")
        #expect(second.terminate() == 0)
    }

    /// With `--log-format json` every line the process writes is JSON, the `listening on` line
    /// on standard output included (as its `msg`, so tools waiting for it still find it).
    @Test func theListeningLineIsJSONWithJSONLogs() async throws {
        let database = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        for format in ["json", "text"] {
            let server = try await ServerProcess.start(arguments: ["--port", "0", "--database", database.path, "--log-format", format])
            let line = try #require(server.announcement.split(separator: "\n").first.map(String.init))
            if format == "json" {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
                #expect(object["msg"] as? String == "listening on http://127.0.0.1:\(server.port)")
                #expect(object["level"] as? String == "info")
                #expect(object["ts"] is String)
            } else {
                #expect(line == "listening on http://127.0.0.1:\(server.port)")
            }
            #expect(server.terminate() == 0)
        }
    }

    /// A refusal at start-up is a JSON line on standard error with JSON logs, text without.
    @Test func aStartupRefusalIsJSONWithJSONLogs() async throws {
        let arguments = ["serve", "--port", "0", "--database", try temporaryDatabase().path, "--aasa", "/nonexistent/aasa"]
        let json = try await CommandRun.run(arguments + ["--log-format", "json"])
        #expect(json.status == 1)
        let line = try #require(json.errors.split(separator: "\n").last.map(String.init))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(json.errors)")
        #expect(object["level"] as? String == "critical")
        #expect((object["msg"] as? String)?.contains("association file /nonexistent/aasa cannot be read") == true)
        let text = try await CommandRun.run(arguments + ["--log-format", "text"])
        #expect(text.status == 1 && text.errors.contains("passkey-server: association file /nonexistent/aasa cannot be read"))
    }

    /// SIGTERM: stop accepting, finish, close the database, exit 0. Flags come from the
    /// environment too.
    @Test func terminatesCleanlyAndReadsTheEnvironment() async throws {
        let database = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let server = try await ServerProcess.start(arguments: [], environment: [
            "PASSKEY_PORT": "0", "PASSKEY_DATABASE": database.path, "PASSKEY_RP_ID": "example.test",
            "PASSKEY_RP_NAME": "Env Name", "PASSKEY_ORIGIN": "https://example.test, https://www.example.test",
            "PASSKEY_USER_VERIFICATION": "required", "PASSKEY_IOS_APP_ID": "ABCDE12345.com.example.env",
            "PASSKEY_RESIDENT_KEY": "discouraged", "PASSKEY_AUTHENTICATOR_ATTACHMENT": "platform",
        ])
        let client = Client(base: server.base)
        let options = (try await client.get("/registration_initialize?user_name=lee")).json["publicKey"] as! [String: Any]
        #expect((options["rp"] as? [String: Any])?["id"] as? String == "example.test")
        #expect((options["rp"] as? [String: Any])?["name"] as? String == "Env Name")
        #expect((options["authenticatorSelection"] as? [String: Any])?["userVerification"] as? String == "required")
        #expect((options["authenticatorSelection"] as? [String: Any])?["residentKey"] as? String == "discouraged")
        #expect((options["authenticatorSelection"] as? [String: Any])?["authenticatorAttachment"] as? String == "platform")
        let aasa = try await client.get("/.well-known/apple-app-site-association")
        #expect(((aasa.json["webcredentials"] as? [String: Any])?["apps"] as? [String])?.contains("ABCDE12345.com.example.env") == true)
        #expect(server.terminate() == 0)
        #expect(FileManager.default.fileExists(atPath: database.path))
    }

    /// SIGTERM with connections whose bodies never come: the server closes them at
    /// --shutdown-timeout and exits 0, instead of waiting on them.
    @Test func terminatesWithinTheShutdownTimeoutWhileBodiesStall() async throws {
        let database = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let server = try await ServerProcess.start(arguments: [
            "--port", "0", "--database", database.path, "--body-timeout", "600", "--shutdown-timeout", "2",
        ])
        let sockets = try (0..<5).map { _ in try TestSocket(port: server.port) }
        for socket in sockets {
            socket.send("POST /registration_finalize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        }
        // The server has read every head before it is told to stop.
        let healthy = try await Client(base: server.base).get("/healthz")
        #expect(healthy.status == 200)
        let started = Date()
        let status = try await onOwnThread { server.terminate() }
        let took = Date().timeIntervalSince(started)
        #expect(status == 0)
        #expect(took >= 1.5 && took < 12, "\(took) s")
        let closed = try await onOwnThread { sockets.map { $0.read(for: 5).closed } }
        #expect(closed.allSatisfy { $0 })
    }

    /// The checkout's placeholder association file (its app is not anyone's) is not served
    /// unless asked for: without --aasa and --ios-app-id the path is 404, though the file sits
    /// in the working directory.
    @Test func thePlaceholderAssociationFileIsNotServedByDefault() async throws {
        #expect(FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/apple-app-site-association"))
        let database = try temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let server = try await ServerProcess.start(arguments: ["--port", "0", "--database", database.path])
        let client = Client(base: server.base)
        #expect(try await client.get("/.well-known/apple-app-site-association").status == 404)
        #expect(try await client.get("/apple-app-site-association").status == 404)
        _ = server.terminate()
        // Named, it is served.
        let named = try await ServerProcess.start(arguments: ["--port", "0", "--database", database.path, "--aasa", "apple-app-site-association"])
        let served = try await Client(base: named.base).get("/.well-known/apple-app-site-association")
        #expect(((served.json["webcredentials"] as? [String: Any])?["apps"] as? [String]) == ["ABCDE12345.com.example.PasskeyDemo"])
        _ = named.terminate()
    }

    @Test func refusesBadConfigurationWithAMessage() async throws {
        for arguments in [["--aasa", "/nonexistent/aasa"], ["--user-verification", "sometimes"], ["--origin", "ftp://x"], ["--port", "70000"],
                          ["--resident-key", "always"], ["--authenticator-attachment", "usb"]] {
            let run = try await CommandRun.run(["serve", "--port", "0", "--database", "/tmp/never-created-\(UUID().uuidString).sqlite"] + arguments)
            #expect(run.status != 0, "\(arguments)")
            #expect(!run.errors.isEmpty, "\(arguments)")
        }
    }

    @Test func helpExplainsEveryFlag() async throws {
        let help = try await CommandRun.run(["serve", "--help"]).output
        for flag in ["--host", "--port", "--rp-id", "--rp-name", "--origin", "--database", "--public-dir", "--aasa", "--ios-app-id",
                     "--user-verification", "--challenge-ttl", "--session-ttl", "--max-body", "--header-timeout", "--idle-timeout",
                     "--max-connections", "--max-connections-per-address", "PASSKEY_HEADER_TIMEOUT", "PASSKEY_",
                     "--body-timeout", "PASSKEY_BODY_TIMEOUT", "--shutdown-timeout", "PASSKEY_SHUTDOWN_TIMEOUT",
                     "--resident-key", "--authenticator-attachment", "--attestation", "--fido-conformance"] {
            #expect(help.contains(flag), "\(flag)")
        }
        // The limits a value is refused outside of are in --help, not only in the refusal.
        let flat = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("30 to 86400. (env: PASSKEY_REAUTH_WINDOW"))
        let invite = try await CommandRun.run(["users", "invite", "--help"]).output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(invite.contains("at least 1 minute, at most 30 days"), "\(invite)")
    }
}

/// Many ceremonies at once: no 5xx, no lost and no double-spent challenge.
@Suite struct ConcurrencyTests {
    @Test func parallelCeremonies() async throws {
        try await withServer { _, ceremonies, _ in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<40 {
                    group.addTask {
                        let (registered, credential, _) = try await ceremonies.register("parallel\(i)")
                        guard registered.status == 200 else { return registered.status }
                        return try await ceremonies.signIn(i.isMultiple(of: 2) ? nil : "parallel\(i)", credential: credential, signCount: 1).result.status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 40)
            #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        }
    }

    @Test func oneChallengeIsSpentOnce() async throws {
        try await withServer { server, _, client in
            let initialize = try await client.get("/registration_initialize?user_name=race")
            let options = initialize.json["publicKey"] as! [String: Any]
            let challenge = Base64URL.decode(options["challenge"] as! String)!
            let handle = Base64URL.decode((options["user"] as! [String: Any])["id"] as! String)!
            // Twenty different credentials racing on one challenge.
            let bodies = try (0..<20).map { _ in
                try RegistrationBuilder(credential: try TestCredential(userHandle: handle), rpID: "localhost", origin: server.origin, challenge: challenge).json()
            }
            let results = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
                for body in bodies { group.addTask { try await client.post("/registration_finalize", bytes: body) } }
                return try await group.reduce(into: [HTTPResult]()) { $0.append($1) }
            }
            #expect(results.filter { $0.status == 200 }.count == 1)
            #expect(results.filter { $0.error == "unknown_challenge" }.count == 19)
            #expect(results.allSatisfy { $0.status < 500 })
            let user = try #require(try await server.app.store.user(nameKey: "race"))
            #expect(try await server.app.store.credentials(userHandle: user.handle).count == 1)
        }
    }
}

/// Releases and secrets as operators handle them: one version shown by `--version` and
/// `/healthz`, a `healthcheck` verb for containers, and every secret-bearing flag readable from a
/// file (`--<flag>-file`, `PASSKEY_<NAME>_FILE`), never both a value and a file.
@Suite(.serialized) struct OperatorFlagTests {
    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-ops-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func oneVersionInVersionAndHealthz() async throws {
        let printed = try await CommandRun.run(["--version"])
        #expect(printed.status == 0)
        #expect(printed.output.trimmingCharacters(in: .whitespacesAndNewlines) == ServerVersion.current)
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerProcess.start(arguments: ["--port", "0", "--database", directory.appendingPathComponent("db.sqlite").path])
        let health = try await Client(base: server.base).get("/healthz")
        #expect(health.json["version"] as? String == ServerVersion.current)
        // The health check verb: 0 against the running server, 1 where nothing answers.
        let healthy = try await CommandRun.run(["healthcheck", "--port", String(server.port)])
        #expect(healthy.status == 0, "\(healthy.errors)")
        let viaEnvironment = try await CommandRun.run(["healthcheck"], environment: ["PASSKEY_PORT": String(server.port), "PASSKEY_HOST": "0.0.0.0"])
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.errors)")
        #expect(server.terminate() == 0)
        // Refused at once. How long the verb waits for a server that never answers is measured
        // in-process (`theProbeGivesUpAtItsLimit`): a child process's own start-up under the
        // whole suite's load once took more than 10 s, which a bound here measured instead.
        let down = try await CommandRun.run(["healthcheck", "--port", String(server.port)])
        #expect(down.status == 1 && down.errors.contains("healthz"), "\(down.errors)")
    }

    /// The health check's probe against a port that takes the connection and never answers:
    /// it gives up at its limit instead of holding the container's health check.
    @Test func theProbeGivesUpAtItsLimit() async throws {
        let listener = try SilentListener()
        let started = ContinuousClock.now
        await #expect(throws: (any Error).self) {
            _ = try await HealthProbe.status(url: "http://127.0.0.1:\(listener.port)/healthz", timeout: 1)
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(900), "\(waited)")
        #expect(waited < .seconds(60), "\(waited)")
    }

    @Test func secretsComeFromFilesAndNeverTwice() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = directory.appendingPathComponent("client-secret"), tokenFile = directory.appendingPathComponent("api-token")
        try Data("client-secret-from-a-file\n".utf8).write(to: secretFile)
        try Data("api-token-from-a-file-0123456789\r\n".utf8).write(to: tokenFile)
        let base = ["--port", "0", "--database", directory.appendingPathComponent("db.sqlite").path, "--mfb-client-id", "mfb-client",
                    "--mfb-redirect-uri", "https://business.example/callback"]
        let server = try await ServerProcess.start(
            arguments: base + ["--mfb-client-secret-file", secretFile.path], environment: ["PASSKEY_MFB_API_TOKEN_FILE": tokenFile.path])
        let client = Client(base: server.base)
        // The token read from the file, without its line ending, is the business's credential.
        let right = try await client.post("/mfb/requests", json: [String: String](), bearer: "api-token-from-a-file-0123456789")
        #expect(right.status != 401, "\(String(decoding: right.body, as: UTF8.self))")
        #expect(try await client.post("/mfb/requests", json: [String: String](), bearer: "api-token-from-a-file-0123456789\r").status == 401)
        #expect(server.terminate() == 0)

        // Refusals at start, each naming the flag: a value and a file, a file that cannot be read, an
        // empty one, a database password file for an SQLite file.
        let empty = directory.appendingPathComponent("empty")
        try Data("\n".utf8).write(to: empty)
        let cases: [([String], [String: String], String)] = [
            (["--mfb-client-secret", "x", "--mfb-client-secret-file", secretFile.path, "--mfb-api-token-file", tokenFile.path], [:], "given twice"),
            (["--mfb-client-secret-file", secretFile.path], ["PASSKEY_MFB_API_TOKEN": "api-token-from-env-0123456789", "PASSKEY_MFB_API_TOKEN_FILE": tokenFile.path], "given twice"),
            (["--mfb-client-secret-file", directory.appendingPathComponent("missing").path, "--mfb-api-token-file", tokenFile.path], [:], "cannot be read"),
            (["--mfb-client-secret-file", empty.path, "--mfb-api-token-file", tokenFile.path], [:], "is empty"),
            (["--mfb-client-secret-file", secretFile.path, "--mfb-api-token-file", tokenFile.path, "--database-password-file", secretFile.path], [:],
             "--database-password-file goes with a postgres://"),
        ]
        for (arguments, environment, message) in cases {
            let run = try await CommandRun.run(["serve"] + base + arguments, environment: environment)
            #expect(run.status != 0, "\(arguments)")
            #expect(run.errors.contains(message), "\(arguments): \(run.errors)")
        }
        // --help marks the secrets and names their files.
        let help = try await CommandRun.run(["serve", "--help"]).output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for flag in ["--mfb-client-secret-file", "--mfb-api-token-file", "--mfb-msp-secret-file", "--mfb-audit-token-file", "--database-password-file",
                     "PASSKEY_MFB_CLIENT_SECRET_FILE"] {
            #expect(help.contains(flag), "\(flag)")
        }
        #expect(help.contains("Secret. The client's secret"))
    }
}

/// A loopback port whose connections the kernel accepts into the backlog and nobody reads.
final class SilentListener: Sendable {
    let fd: Int32
    let port: Int

    init() throws {
        (fd, port) = try TestPorts.loopbackSocket()
        guard listen(fd, 8) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
    }

    deinit { close(fd) }
}
