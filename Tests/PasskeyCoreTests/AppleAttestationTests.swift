import Foundation
import PasskeyCore
import PasskeyCrypto
import Testing

/// `apple` (WebAuthn L3 §8.8) end to end through RegistrationVerifier, from
/// Vectors/attestation/apple.json.
@Suite struct AppleAttestationTests {
    static let file = "attestation/apple"

    @Test(arguments: try Vector.load(file)) func vector(_ vector: Vector) { vector.checkRegistration() }

    /// One negative vector per §8.8 requirement, each breaking only that requirement (the
    /// generator's reference verifier checks this), and the accepted cases the brief names.
    @Test func coversEveryRequirement() throws {
        let vectors = try Vector.load(Self.file)
        let broken = vectors.violated
        #expect(broken == [
            "apple-nonce-mismatch", "apple-nonce-extension-missing", "apple-nonce-extension-malformed",
            "apple-credential-key-mismatch",
        ])
        #expect(vectors.eachViolatorBreaksOneAndIsRefused)
        let accepted = vectors.filter { $0.expect.result == "accept" }
        #expect(accepted.contains { $0.expect.attestationTrusted == true })
        #expect(accepted.contains { $0.expect.attestationTrusted == false && $0.trustAnchors.isEmpty })
    }

    /// Outcome: Anonymization CA with the whole x5c as trust path (§8.8 step 6).
    @Test func outcomeIsAnonCAWithX5C() throws {
        let (format, input) = try Vector.named("apple-es256-trusted", in: Self.file).attestationInput()
        #expect(format == "apple")
        let outcome = try AppleAttestation().verify(input)
        #expect(outcome.type == .anonCA)
        #expect(outcome.trustPath.count == 2)
        #expect(outcome.trustPath.first?.subject["OU"] == ["AAA Certification"])
        #expect(outcome.subOutcomes.isEmpty)
    }

    /// The nonce covers clientDataHash: the same statement with another clientDataHash fails.
    @Test func nonceCoversClientDataHash() throws {
        let (_, input) = try Vector.named("apple-es256-trusted", in: Self.file).attestationInput()
        var other = input.clientDataHash
        other[0] ^= 0x01
        let altered = try AttestationInput(
            statement: input.statement, authenticatorData: input.authenticatorData, clientDataHash: other, now: input.now)
        expectRefusal(.invalidAttestation) { _ = try AppleAttestation().verify(altered) }
    }
}
