import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// The flags of `passkey-server serve` for trust, through the real binary.
@Suite struct TrustFlagTests {
    func run(_ arguments: [String]) async throws -> (status: Int32, stderr: String, stdout: String) {
        let run = try await CommandRun.run(arguments, environment: ["PASSKEY_DATABASE": "/tmp/never-created-\(UUID().uuidString).sqlite"])
        return (run.status, run.errors, run.output)
    }

    @Test func helpListsTheTrustFlagsWithTheirEnvironmentVariables() async throws {
        let help = try await run(["serve", "--help"]).stdout
        for (flag, variable) in [
            ("--attestation ", "PASSKEY_ATTESTATION,"), ("--attestation-policy", "PASSKEY_ATTESTATION_POLICY"),
            ("--allow-aaguid", "PASSKEY_ALLOW_AAGUID"), ("--deny-aaguid", "PASSKEY_DENY_AAGUID"),
            ("--trust-anchors", "PASSKEY_TRUST_ANCHORS"), ("--mds-blob", "PASSKEY_MDS_BLOB"), ("--mds-root", "PASSKEY_MDS_ROOT"),
            ("--mds-signer", "PASSKEY_MDS_SIGNER"), ("--rate-limit-ip", "PASSKEY_RATE_LIMIT_IP"),
            ("--rate-limit-user", "PASSKEY_RATE_LIMIT_USER"), ("--trusted-proxy", "PASSKEY_TRUSTED_PROXY"),
        ] {
            #expect(help.contains(flag), "\(flag)")
            #expect(help.contains(variable), "\(variable)")
        }
    }

    @Test func refusesBadTrustFlagsWithAMessage() async throws {
        let cases: [([String], String)] = [
            (["--attestation", "always"], "--attestation"),
            (["--attestation-policy", "strict"], "--attestation-policy"),
            (["--allow-aaguid", "not-a-uuid"], "--allow-aaguid"),
            (["--deny-aaguid", "8c1b7a6e2f4d4a8b9c3e5d6f7a8b9c0d"], "--deny-aaguid"),
            (["--mds-root", MDSFixtures.path("mds-root.pem")], "--mds-blob"),
            (["--mds-blob", MDSFixtures.path("bad-signature.jwt"), "--mds-root", MDSFixtures.path("mds-root.pem")], "bad-signature.jwt"),
            (["--trust-anchors", "/nonexistent/anchors"], "/nonexistent/anchors"),
        ]
        for (arguments, named) in cases {
            let result = try await run(["serve", "--port", "0"] + arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(named), "\(arguments): \(result.stderr)")
        }
    }

    @Test func readsTheTrustSettingsFromTheEnvironment() async throws {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-env-\(UUID().uuidString)/db.sqlite")
        try FileManager.default.createDirectory(at: database.deletingLastPathComponent(), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: database.deletingLastPathComponent()) }
        let expected = try MDSFixtures.expected()
        let server = try await ServerProcess.start(arguments: [], environment: [
            "PASSKEY_PORT": "0", "PASSKEY_DATABASE": database.path,
            "PASSKEY_ATTESTATION": "direct", "PASSKEY_ATTESTATION_POLICY": "trusted",
            "PASSKEY_DENY_AAGUID": "\(expected.aaguids["plain"]!), \(expected.aaguids["brokenRoot"]!)",
            "PASSKEY_MDS_BLOB": MDSFixtures.path("good.jwt"), "PASSKEY_MDS_ROOT": MDSFixtures.path("mds-root.pem"),
            "PASSKEY_MDS_SIGNER": MDSFixtures.signerNames.sorted().joined(separator: ","),
        ])
        let client = Client(base: server.base)
        let options = try #require(try await client.get("/registration_initialize?user_name=ivy").json["publicKey"] as? [String: Any])
        #expect(options["attestation"] as? String == "direct")
        let metadata = try #require(try await client.get("/healthz").json["metadata"] as? [String: Any])
        #expect(metadata["loaded"] as? Bool == true)
        #expect(metadata["entries"] as? Int == expected.entryCount)
        // The policy is in force: `none` attestation is refused.
        let ceremonies = CeremoniesOverProcess(client: client, origin: server.origin)
        #expect(try await ceremonies.registerNone("ivy").error == "invalid_attestation")
        #expect(server.terminate() == 0)
    }
}

/// One registration against a server process (which has no TestServer).
struct CeremoniesOverProcess {
    let client: Client
    let origin: String

    func registerNone(_ name: String) async throws -> HTTPResult {
        let options = try #require(try await client.get("/registration_initialize?user_name=\(name)").json["publicKey"] as? [String: Any])
        let challenge = Base64URL.decode(options["challenge"] as? String ?? "") ?? []
        let handle = Base64URL.decode((options["user"] as? [String: Any])?["id"] as? String ?? "") ?? []
        let builder = RegistrationBuilder(credential: try TestCredential(userHandle: handle), rpID: "localhost", origin: origin, challenge: challenge)
        return try await client.post("/registration_finalize", bytes: builder.json())
    }
}
