import Foundation
import PasskeyCore
import PasskeyCrypto
import Testing

/// `android-safetynet` (WebAuthn L3 §8.5) end to end through RegistrationVerifier, from
/// Vectors/attestation/android-safetynet.json.
@Suite struct SafetyNetAttestationTests {
    static let file = "attestation/android-safetynet"

    @Test(arguments: try Vector.load(file)) func vector(_ vector: Vector) { vector.checkRegistration() }

    @Test func coversEveryRequirement() throws {
        let vectors = try Vector.load(Self.file)
        #expect(vectors.eachViolatorBreaksOneAndIsRefused)
        vectors.expectCovers(
            [
                "safetynet-jws-signature", "safetynet-nonce", "safetynet-cts-profile-match",
                "safetynet-timestamp-too-old", "safetynet-timestamp-future", "safetynet-hostname",
                "safetynet-jws-syntax", "safetynet-ver",
            ],
            including: [
                "safetynet-jws-two-parts", "safetynet-jws-bad-base64", "safetynet-jws-header-without-x5c",
                "safetynet-rs256-trusted", "safetynet-es256-trusted",
            ])
    }

    /// Outcome: Basic with the JWS header's x5c as trust path (§8.5 step 5).
    @Test(arguments: ["safetynet-rs256-trusted", "safetynet-es256-trusted"])
    func outcomeIsBasicWithX5C(_ name: String) throws {
        let (format, input) = try Vector.named(name, in: Self.file).attestationInput()
        #expect(format == "android-safetynet")
        let outcome = try AndroidSafetyNetAttestation().verify(input)
        #expect(outcome.type == .basic)
        #expect(outcome.trustPath.count == 2)
        #expect(outcome.trustPath.first?.subject["CN"] == ["attest.android.com"])
    }

    /// The freshness window is a parameter: vectors 120 s off are refused by the default window
    /// and accepted by a wider one; 55 s off is refused by a 30 s window.
    @Test func timestampWindowIsAParameter() throws {
        let (_, old) = try Vector.named("safetynet-timestamp-too-old", in: Self.file).attestationInput()
        expectRefusal(.invalidAttestation) { _ = try AndroidSafetyNetAttestation().verify(old) }
        _ = try AndroidSafetyNetAttestation(maximumAge: 180).verify(old)
        expectRefusal(.invalidAttestation) { _ = try AndroidSafetyNetAttestation(maximumFutureSkew: 180).verify(old) }

        let (_, future) = try Vector.named("safetynet-timestamp-in-future", in: Self.file).attestationInput()
        expectRefusal(.invalidAttestation) { _ = try AndroidSafetyNetAttestation().verify(future) }
        _ = try AndroidSafetyNetAttestation(maximumFutureSkew: 180).verify(future)
        expectRefusal(.invalidAttestation) { _ = try AndroidSafetyNetAttestation(maximumAge: 180).verify(future) }

        let (_, recent) = try Vector.named("safetynet-timestamp-55s-old", in: Self.file).attestationInput()
        _ = try AndroidSafetyNetAttestation().verify(recent)
        expectRefusal(.invalidAttestation) { _ = try AndroidSafetyNetAttestation(maximumAge: 30).verify(recent) }
    }

    /// The window is measured from the verification time: the trusted vector checked an hour
    /// later is stale.
    @Test func timestampIsCheckedAgainstNow() throws {
        let (_, input) = try Vector.named("safetynet-rs256-trusted", in: Self.file).attestationInput()
        let later = try AttestationInput(
            statement: input.statement, authenticatorData: input.authenticatorData,
            clientDataHash: input.clientDataHash, now: input.now.addingTimeInterval(3600))
        expectRefusal(.invalidAttestation) { _ = try AndroidSafetyNetAttestation().verify(later) }
    }
}
