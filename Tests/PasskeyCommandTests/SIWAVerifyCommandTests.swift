import Foundation
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// `passkey-server siwa verify`: the binary, offline, against a key set in a file.
@Suite struct SIWAVerifyCommandTests {
    @Test func acceptsRefusesAndExplains() async throws {
        let keys = AppleTestKeys.shared
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("siwa-verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jwks = directory.appendingPathComponent("keys.json")
        try Data(keys.jwks("apple-test-1")).write(to: jwks)
        let now = Date()
        let token = keys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: now, nonce: "raw-nonce"))

        let accepted = try await CommandRun.run(
            ["siwa", "verify", token, "--client-id", AppleClaims.clientID, "--jwks", jwks.path, "--nonce", "raw-nonce", "--explain"])
        #expect(accepted.status == 0, "\(accepted.errors)")
        #expect(accepted.json["result"] as? String == "accept")
        #expect(accepted.json["sub"] as? String == AppleClaims.subject)
        #expect(accepted.json["email_verified"] as? Bool == true)
        #expect(accepted.errors.contains("✔"))
        #expect(!accepted.errors.contains("✘"))

        let wrongAudience = try await CommandRun.run(["siwa", "verify", token, "--client-id", "com.other", "--jwks", "file://" + jwks.path])
        #expect(wrongAudience.status == 1)
        #expect(wrongAudience.json["result"] as? String == "reject")
        #expect(wrongAudience.json["error"] as? String == "audience_mismatch")

        let wrongNonce = try await CommandRun.run(
            ["siwa", "verify", token, "--client-id", AppleClaims.clientID, "--jwks", jwks.path, "--nonce", "other", "--explain"])
        #expect(wrongNonce.json["error"] as? String == "nonce_mismatch")
        #expect(wrongNonce.errors.contains("✘"))

        // --at moves the clock: a day later the token is too old.
        let later = ISO8601DateFormatter().string(from: now.addingTimeInterval(86400))
        let expired = try await CommandRun.run(["siwa", "verify", token, "--client-id", AppleClaims.clientID, "--jwks", jwks.path, "--at", later])
        #expect(expired.json["error"] as? String == "token_expired")

        let missingKeys = try await CommandRun.run(
            ["siwa", "verify", token, "--client-id", AppleClaims.clientID, "--jwks", directory.appendingPathComponent("absent.json").path])
        #expect(missingKeys.status == 1)
        #expect(missingKeys.json["error"] as? String == "apple_keys_unavailable")

        let usage = try await CommandRun.run(["siwa", "verify", token])
        #expect(usage.status == 2)
        #expect(usage.errors.contains("--client-id"))
    }
}
