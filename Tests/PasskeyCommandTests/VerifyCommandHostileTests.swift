import PasskeyJSON
import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyCrypto
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// `passkey-server verify` as other servers' users need it: values that start with "-", the
/// trust flags, short challenges other servers issued, algorithms OpenSSL cannot verify.
@Suite struct VerifyCommandHostileTests {
    let tool = VerifyCommandTests()

    /// 32 bytes whose base64url starts with "-" (62 in the first six bits).
    static let dashChallenge: [UInt8] = [0xF8] + SecureRandom.bytes(31)

    @Test func valuesThatBeginWithADashAreValues() async throws {
        #expect(Base64URL.encode(Self.dashChallenge).hasPrefix("-"))
        let credential = try TestCredential()
        let body = try RegistrationBuilder(credential: credential, rpID: "example.org", origin: "https://example.org", challenge: Self.dashChallenge).json()
        let result = try await tool.run(["registration", "--rp-id", "example.org", "--origin", "https://example.org", "--challenge", Base64URL.encode(Self.dashChallenge)], stdin: body)
        #expect(result.status == 0, "\(result.stderr)")
        // The same for a credential id and a user handle in authentication.
        _ = credential
        let dashID = try TestCredential(id: [0xF8] + SecureRandom.bytes(15), userHandle: [0xFB] + SecureRandom.bytes(15))
        let assertion = try AssertionBuilder(credential: dashID, rpID: "example.org", origin: "https://example.org", challenge: Self.dashChallenge, signCount: 1).json()
        let authenticated = try await tool.run([
            "authentication", "--rp-id", "example.org", "--origin", "https://example.org", "--challenge", Base64URL.encode(Self.dashChallenge),
            "--public-key", Base64URL.encode(dashID.coseKey), "--credential-id", Base64URL.encode(dashID.id),
            "--user-handle", Base64URL.encode(dashID.userHandle),
        ], stdin: assertion)
        #expect(authenticated.status == 0, "\(authenticated.stderr)")
        #expect(authenticated.json["backup_eligible"] as? Bool == false)
    }

    /// A value that begins with "---" (bytes FB EF Bx), which ArgumentParser alone takes for an
    /// unknown option whatever the option's parsing: a challenge and a user handle.
    @Test func valuesThatBeginWithThreeDashesAreValues() async throws {
        let challenge: [UInt8] = [0xFB, 0xEF, 0xBF] + SecureRandom.bytes(29)
        let credential = try TestCredential(id: SecureRandom.bytes(16), userHandle: [0xFB, 0xEF, 0xBF] + SecureRandom.bytes(13))
        #expect(Base64URL.encode(challenge).hasPrefix("---") && Base64URL.encode(credential.userHandle).hasPrefix("---"))
        let assertion = try AssertionBuilder(credential: credential, rpID: "example.org", origin: "https://example.org", challenge: challenge, signCount: 1).json()
        let authenticated = try await tool.run([
            "authentication", "--rp-id", "example.org", "--origin", "https://example.org", "--challenge", Base64URL.encode(challenge),
            "--public-key", Base64URL.encode(credential.coseKey), "--user-handle", Base64URL.encode(credential.userHandle),
        ], stdin: assertion)
        #expect(authenticated.status == 0, "\(authenticated.stderr)")
        #expect(authenticated.json["backup_eligible"] as? Bool == false)
    }

    @Test func aGivenTrustAnchorMakesAnUnanchoredChainARejection() async throws {
        let signer = try MDSFixtures.goodSigner()
        var builder = RegistrationBuilder(credential: try TestCredential(), rpID: "example.org", origin: "https://example.org", challenge: tool.challenge)
        builder.format = "packed"
        builder.authData.aaguid = try MDSFixtures.expected().aaguid("good")
        builder.packedSigner = signer
        let body = try builder.json()
        // Anchored at the model's root: accepted and trusted.
        let good = try await tool.run(["registration"] + tool.common + ["--trust-anchor", MDSFixtures.path("attestation-root.pem")], stdin: body)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.json["attestation_trusted"] as? Bool == true)
        // Another anchor: the chain ends nowhere, so the registration is rejected…
        let other = try await tool.run(["registration"] + tool.common + ["--trust-anchor", MDSFixtures.path("mds-root.pem")], stdin: body)
        #expect(other.status == 1)
        #expect(other.json["error"] as? String == "invalid_attestation")
        // …unless the policy says any.
        let any = try await tool.run(["registration"] + tool.common + ["--trust-anchor", MDSFixtures.path("mds-root.pem"), "--attestation-policy", "any"], stdin: body)
        #expect(any.status == 0)
        #expect(any.json["attestation_trusted"] as? Bool == false)
        // The metadata BLOB gives the model's roots.
        let withBLOB = try await tool.run(["registration"] + tool.common + [
            "--mds-blob", MDSFixtures.path("good.jwt"), "--mds-root", MDSFixtures.path("mds-root.pem"),
            "--mds-signer", "mds.test.invalid", "--attestation-policy", "trusted", "--at", "2026-05-28T00:00:00Z",
        ], stdin: body)
        #expect(withBLOB.status == 0, "\(withBLOB.stderr)")
        #expect(withBLOB.json["attestation_trusted"] as? Bool == true)
        #expect(try await tool.run(["registration"] + tool.common + ["--attestation-policy", "sometimes"], stdin: body).status == 2)
    }

    @Test func aShortChallengeFromAnotherServerIsAWarning() async throws {
        let short: [UInt8] = Array("abc123".utf8)
        let body = try RegistrationBuilder(credential: try TestCredential(), rpID: "example.org", origin: "https://example.org", challenge: short).json()
        let result = try await tool.run(["registration", "--rp-id", "example.org", "--origin", "https://example.org", "--challenge", Base64URL.encode(short), "--explain"], stdin: body)
        #expect(result.status == 0)
        #expect(result.stderr.contains("⚠ the expected challenge is 6 bytes"))
    }

    @Test func anAlgorithmOpenSSLCannotVerifyIsAVerdict() async throws {
        // An ML-DSA-65 credential key (COSE kty AKP = 7, alg -49): parsed, then refused.
        let key = CBORValue.map([
            CBORMapEntry(key: .int(1), value: .int(7)), CBORMapEntry(key: .int(3), value: .int(-49)),
            CBORMapEntry(key: .int(-1), value: .bytes(SecureRandom.bytes(1952))),
        ]).encoded()
        var builder = RegistrationBuilder(credential: try TestCredential(), rpID: "example.org", origin: "https://example.org", challenge: tool.challenge)
        builder.authData.coseKey = key
        let result = try await tool.run(["registration"] + tool.common + ["--algorithm", "-49", "--algorithm", "-7"], stdin: try builder.json())
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.json["error"] as? String == "unsupported_algorithm")
        // In authentication, the stored key's algorithm is the verdict too.
        let assertion = try AssertionBuilder(credential: try TestCredential(), rpID: "example.org", origin: "https://example.org", challenge: tool.challenge, signCount: 1).json()
        let authenticated = try await tool.run(["authentication"] + tool.common + ["--public-key", Base64URL.encode(key)], stdin: assertion)
        #expect(authenticated.status == 1, "\(authenticated.stderr)")
        #expect(authenticated.json["error"] as? String == "unsupported_algorithm")
    }
}
