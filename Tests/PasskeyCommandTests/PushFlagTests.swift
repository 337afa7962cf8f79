import Foundation
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// The push authenticator's flags of `passkey-server serve` (docs/contracts/push.md), through the real binary.
@Suite struct PushFlagTests {
    func run(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
        let run = try await CommandRun.run(
            ["serve", "--port", "0"] + arguments, environment: ["PASSKEY_DATABASE": "/tmp/never-created-\(UUID().uuidString).sqlite"])
        return (run.status, run.errors)
    }

    @Test func helpListsTheAPNsEnvironmentFlags() async throws {
        let help = try await CommandRun.run(["serve", "--help"]).output
        for text in ["--apns-environment", "PASSKEY_APNS_ENVIRONMENT", "--apns-sandbox-url", "PASSKEY_APNS_SANDBOX_URL"] {
            #expect(help.contains(text), "\(text)")
        }
    }

    @Test func refusesWhatCannotWork() async throws {
        let cases: [([String], String)] = [
            (["--apns-environment", "staging"], "--apns-environment"),
            (["--apns-sandbox-url", "ftp://example.com"], "--apns-sandbox-url"),
            (["--push-ttl", "0"], "--push-ttl"),
            (["--push-ttl", "3601"], "--push-ttl"),
            (["--mfb-request-ttl", "0"], "--mfb-request-ttl"),
        ]
        for (arguments, named) in cases {
            let result = try await run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(named), "\(arguments): \(result.stderr)")
        }
    }

    /// The number challenge's value that puts the number in the push is `in-push`; `seed`, its
    /// first name, still starts the server with that meaning (no other value would: the push
    /// service refuses a mode it does not know at start).
    @Test func theNumberChallengeTakesInPushAndItsFormerName() async throws {
        let refused = try await run(["--push-number-challenge", "both"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--push-number-challenge must be off, in-push or type-in, not both"), "\(refused.stderr)")
        for value in ["in-push", "seed", "type-in", "off"] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-push-flags-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = try await ServerProcess.start(arguments: [
                "--port", "0", "--database", directory.appendingPathComponent("db.sqlite").path, "--push-number-challenge", value,
            ])
            let health = try await Client(base: server.base).get("/healthz")
            #expect(health.status == 200, "\(value)")
            _ = server.terminate()
        }
    }

    /// Lifetimes of one second are allowed (tests that watch a request expire).
    @Test func oneSecondLifetimesStart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-push-flags-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerProcess.start(arguments: [
            "--port", "0", "--database", directory.appendingPathComponent("db.sqlite").path, "--push-ttl", "1",
            "--apns-environment", "sandbox",
        ])
        let started = try await Client(base: server.base).post("/push/authentication_initialize", json: ["user_name": "nobody"])
        #expect(started.status == 200)
        let expires = try #require((started.json["expires_at"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
        #expect(expires.timeIntervalSinceNow < 2)
        _ = server.terminate()
    }
}
