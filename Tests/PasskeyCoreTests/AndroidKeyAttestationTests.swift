import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyCrypto
import Testing

/// `android-key` attestation (WebAuthn L3 §8.4) through RegistrationVerifier, with the vectors
/// of Vectors/attestation/android-key.json. Each refused vector breaks one requirement and is
/// otherwise valid and re-signed.
@Suite struct AndroidKeyAttestationTests {
    static let vectors = ListedVectors(
        file: "attestation/android-key", accepted: accepted, refused: refused, format: "android-key", type: .basic)

    static let accepted = [
        "android-key-es256",                            // P-256, teeEnforced purpose {SIGN}, origin GENERATED
        "android-key-purpose-sign-and-verify",          // purpose may list more than SIGN
    ]

    static let refused = [
        "android-key-challenge-mismatch",               // attestationChallenge = clientDataHash
        "android-key-all-applications-tee",             // allApplications absent (teeEnforced)
        "android-key-all-applications-software",        // allApplications absent (softwareEnforced)
        "android-key-origin-imported",                  // origin = KM_ORIGIN_GENERATED
        "android-key-origin-missing",                   // origin present
        "android-key-purpose-verify-only",              // purpose contains KM_PURPOSE_SIGN
        "android-key-software-enforced-only",           // by default only teeEnforced counts
        "android-key-leaf-key-not-credential",          // leaf key = credential key
        "android-key-signature-wrong-key",              // sig verifies with the leaf key
        "android-key-extension-missing",                // KeyDescription extension present
        "android-key-extension-trailing-byte",          // KeyDescription parsed strictly
        "android-key-authorization-list-out-of-order",  // AuthorizationList in DER field order
    ]

    @Test func everyVectorIsListed() throws { try Self.vectors.expectEveryVectorListed() }

    @Test(arguments: accepted) func acceptsAndTrusts(_ name: String) throws { try Self.vectors.expectAccepted(name) }

    /// §7.1 steps 23–24: without anchors the statement verifies but is not trusted.
    @Test(arguments: accepted) func acceptsWithoutAnchorsButUntrusted(_ name: String) throws {
        try Self.vectors.expectUntrustedWithoutAnchors(name)
    }

    /// Refused by the format's verification procedure (§7.1 step 22), not by an earlier step.
    @Test(arguments: refused) func refuses(_ name: String) throws { try Self.vectors.expectRefused(name) }

    /// The registered format reads only the hardware-enforced list.
    @Test func registeredFormatRequiresHardwareEnforcement() throws {
        let format = try #require(AttestationFormats.format(for: "android-key") as? AndroidKeyAttestation)
        #expect(format.requireHardwareEnforced)
        #expect(AndroidKeyAttestation().requireHardwareEnforced)
    }

    /// `requireHardwareEnforced: false` reads teeEnforced ∪ softwareEnforced for origin and
    /// purpose; every other requirement stays. Each vector states its outcome under this policy.
    @Test func softwareEnforcedPolicy() throws {
        let lenient = AndroidKeyAttestation(requireHardwareEnforced: false)
        let strict = AndroidKeyAttestation()
        let vectors = try Self.vectors.all
        for vector in vectors {
            let expected = try #require(vector.expectSoftwareEnforcedAllowed, "\(vector.name)")
            let input = try vector.attestationInput().input
            for (format, expectation) in [(lenient, expected), (strict, vector.expect)] {
                do {
                    let outcome = try format.verify(input)
                    #expect(expectation.accepts, "\(vector.name) accepted with requireHardwareEnforced \(format.requireHardwareEnforced)")
                    #expect(outcome.type == .basic)
                    #expect(outcome.trustPath.count == 2)
                } catch let error as WebAuthnError {
                    #expect(error.code.rawValue == expectation.error,
                            "\(vector.name) with requireHardwareEnforced \(format.requireHardwareEnforced): \(error)")
                }
            }
        }
        // The policy matters for exactly the vector that keeps origin and purpose in softwareEnforced.
        let differing = vectors.filter { $0.expect.accepts != $0.expectSoftwareEnforcedAllowed?.accepts }
        #expect(differing.map(\.name) == ["android-key-software-enforced-only"])
    }
}
