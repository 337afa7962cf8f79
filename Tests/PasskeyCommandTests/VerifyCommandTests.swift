import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// `passkey-server verify` end to end: the binary, a response file, JSON on stdout.
@Suite struct VerifyCommandTests {
    struct Run {
        let status: Int32
        let json: [String: Any]
        let stderr: String
    }

    /// `passkey-server verify`, with `stdin` (or nothing) on its standard input.
    func run(_ arguments: [String], stdin: [UInt8]? = nil) async throws -> Run {
        let run = try await CommandRun.run(["verify"] + arguments, stdin: stdin.map { Data($0) })
        let json = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:]
        return Run(status: run.status, json: json, stderr: run.errors)
    }

    func write(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("response-\(UUID().uuidString).json")
        try Data(bytes).write(to: url)
        return url.path
    }

    let challenge = SecureRandom.bytes(32)
    var common: [String] { ["--rp-id", "example.org", "--origin", "https://example.org", "--challenge", Base64URL.encode(challenge)] }

    @Test func acceptsARegistrationAndExplainsEveryStep() async throws {
        let credential = try TestCredential(algorithm: .es256)
        var builder = RegistrationBuilder(credential: credential, rpID: "example.org", origin: "https://example.org", challenge: challenge)
        builder.format = "packed"
        let file = try write(try builder.json())
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await run(["registration"] + common + ["--explain", file])
        #expect(result.status == 0)
        #expect(result.json["result"] as? String == "accept")
        #expect(result.json["credential_id"] as? String == Base64URL.encode(credential.id))
        #expect(result.json["credential_public_key"] as? String == Base64URL.encode(credential.coseKey))
        #expect(result.json["fmt"] as? String == "packed")
        #expect(result.json["attestation_type"] as? String == "self")
        #expect(result.json["attestation_trusted"] as? Bool == false)
        #expect(result.json["aaguid"] as? String == "00000000-0000-0000-0000-000000000000")
        #expect(result.json["sign_count"] as? Int == 0)
        #expect(result.json["user_verified"] as? Bool == true)
        #expect(result.json["backup_eligible"] as? Bool == false)
        for section in ["7.1.7", "7.1.8", "7.1.9", "7.1.14", "7.1.20", "7.1.22", "7.1.25"] {
            #expect(result.stderr.contains("✔ \(section)"), "\(section)")
        }
        #expect(!result.stderr.contains("✘"))
    }

    @Test func rejectsWithTheContractsCodeAndExitOne() async throws {
        var builder = RegistrationBuilder(credential: try TestCredential(), rpID: "example.org", origin: "https://evil.example.org", challenge: challenge)
        builder.format = "none"
        let result = try await run(["registration"] + common + ["--explain"], stdin: try builder.json())
        #expect(result.status == 1)
        #expect(result.json["result"] as? String == "reject")
        #expect(result.json["error"] as? String == "origin_mismatch")
        #expect((result.json["message"] as? String)?.contains("evil.example.org") == true)
        #expect(result.stderr.contains("✔ 7.1.8"))
        #expect(result.stderr.contains("✘ 7.1.9"))
    }

    @Test func optionsShapeTheCeremony() async throws {
        var unverified = RegistrationBuilder(credential: try TestCredential(algorithm: .rs256), rpID: "example.org", origin: "https://example.org", challenge: challenge)
        unverified.authData.flags &= ~AuthDataBuilder.uv
        let body = try unverified.json()
        #expect(try await run(["registration"] + common, stdin: body).status == 0)
        #expect(try await run(["registration"] + common + ["--require-user-verification"], stdin: body).json["error"] as? String == "user_verification_required")
        #expect(try await run(["registration"] + common + ["--algorithm", "-7"], stdin: body).json["error"] as? String == "unsupported_algorithm")
        #expect(try await run(["registration"] + common + ["--algorithm", "-257"], stdin: body).status == 0)
        let other = ["--rp-id", "example.org", "--origin", "https://example.org", "--challenge", Base64URL.encode(SecureRandom.bytes(32))]
        #expect(try await run(["registration"] + other, stdin: body).json["error"] as? String == "unknown_challenge")

        var framed = RegistrationBuilder(credential: try TestCredential(), rpID: "example.org", origin: "https://example.org", challenge: challenge)
        framed.clientData.crossOrigin = true
        framed.clientData.topOrigin = "https://shop.example"
        let framedBody = try framed.json()
        #expect(try await run(["registration"] + common, stdin: framedBody).json["error"] as? String == "origin_mismatch")
        #expect(try await run(["registration"] + common + ["--allow-cross-origin", "--top-origin", "https://shop.example"], stdin: framedBody).status == 0)
    }

    @Test func authenticationWithAndWithoutWhatTheServerHolds() async throws {
        let credential = try TestCredential(algorithm: .ed25519)
        let body = try AssertionBuilder(credential: credential, rpID: "example.org", origin: "https://example.org", challenge: challenge, signCount: 8).json()
        let key = ["--public-key", Base64URL.encode(credential.coseKey)]
        let bare = try await run(["authentication"] + common + key + ["--explain"], stdin: body)
        #expect(bare.status == 0)
        #expect(bare.json["sign_count"] as? Int == 8)
        #expect(bare.json["credential_id"] as? String == Base64URL.encode(credential.id))
        #expect(bare.stderr.contains("– 7.2.6"))
        let full = try await run(["authentication"] + common + key + [
            "--sign-count", "7", "--credential-id", Base64URL.encode(credential.id), "--user-handle", Base64URL.encode(credential.userHandle), "--explain",
        ], stdin: body)
        #expect(full.status == 0)
        #expect(full.stderr.contains("✔ 7.2.6"))
        #expect(try await run(["authentication"] + common + key + ["--sign-count", "8"], stdin: body).json["error"] as? String == "counter_regression")
        #expect(try await run(["authentication"] + common + key + ["--user-handle", Base64URL.encode(SecureRandom.bytes(32))], stdin: body).json["error"] as? String == "user_handle_mismatch")
        #expect(try await run(["authentication"] + common + key + ["--credential-id", Base64URL.encode(SecureRandom.bytes(16))], stdin: body).json["error"] as? String == "unknown_credential")
        let otherKey = try TestCredential(algorithm: .ed25519)
        #expect(try await run(["authentication"] + common + ["--public-key", Base64URL.encode(otherKey.coseKey)], stdin: body).json["error"] as? String == "invalid_signature")
    }

    @Test func usageErrorsExitTwo() async throws {
        #expect(try await run(["registration", "--origin", "https://x"]).status == 2)
        #expect(try await run(["registration"] + common + ["--at", "yesterday"], stdin: []).status == 2)
        #expect(try await run(["authentication"] + common + ["--public-key", "!!"], stdin: []).status == 2)
        // A malformed response is not a usage error: it is rejected.
        let malformed = try await run(["registration"] + common, stdin: Array("{}".utf8))
        #expect(malformed.status == 1)
        #expect(malformed.json["error"] as? String == "invalid_request")
    }
}
