import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import Testing

/// `compound` (WebAuthn L3 §8.9) end to end through RegistrationVerifier, from
/// Vectors/attestation/compound.json, and how sub-statement trust paths are assessed.
@Suite struct CompoundAttestationTests {
    static let file = "attestation/compound"

    @Test(arguments: try Vector.load(file)) func vector(_ vector: Vector) { vector.checkRegistration() }

    @Test func coversEveryRequirement() throws {
        try Vector.load(Self.file).expectCovers(
            [
                "apple-credential-key-mismatch", "compound-syntax", "compound-nested", "compound-unknown-format",
                "certificate-not-valid-now",
            ],
            including: [
                "compound-packed-self-apple-trusted", "compound-packed-self-twice-untrusted",
                "compound-single-sub-statement", "compound-not-an-array", "compound-one-chain-unanchored",
                "compound-packed-apple-trusted", "compound-packed-apple-no-anchors",
            ])
    }

    /// The outcome keeps each sub-statement's format and outcome, and has no trust path itself;
    /// its type is the first sub-statement's.
    @Test func outcomeKeepsSubOutcomes() throws {
        let (format, input) = try Vector.named("compound-packed-apple-trusted", in: Self.file).attestationInput()
        #expect(format == "compound")
        let outcome = try CompoundAttestation().verify(input)
        #expect(outcome.type == .basic)
        #expect(outcome.trustPath.isEmpty)
        #expect(outcome.subOutcomes.map(\.format) == ["packed", "apple"])
        #expect(outcome.subOutcomes.map(\.outcome.type) == [.basic, .anonCA])
        #expect(outcome.subOutcomes.map(\.outcome.trustPath.count) == [2, 2])
    }

    /// Each sub-statement's path is assessed with the anchors of ITS format: the root listed for
    /// packed only leaves the apple path unanchored, and anchors listed for "compound" count for
    /// nothing.
    @Test func anchorsAreTakenPerSubFormat() throws {
        let vector = try Vector.named("compound-packed-apple-trusted", in: Self.file)
        let root = try #require(try vector.anchors.first)
        #expect(try vector.register(anchors: StaticTrustAnchors(byFormat: ["packed": [root], "apple": [root]]))
            .attestationTrusted)
        #expect(try !vector.register(anchors: StaticTrustAnchors(byFormat: ["packed": [root]])).attestationTrusted)
        #expect(try !vector.register(anchors: StaticTrustAnchors(byFormat: ["apple": [root]])).attestationTrusted)
        #expect(try !vector.register(anchors: StaticTrustAnchors(byFormat: ["compound": [root]])).attestationTrusted)
    }

    /// An unknown sub-format is refused even when the other sub-statement verifies, and before
    /// trust is assessed.
    @Test func unknownSubFormatIsInvalidAttestation() throws {
        let (_, input) = try Vector.named("compound-unknown-sub-format", in: Self.file).attestationInput()
        expectRefusal(.invalidAttestation) { _ = try CompoundAttestation().verify(input) }
    }

    /// §6.5.4 attStmtTemplate: attStmt is a map or an array. Any other CBOR type is a malformed
    /// attestation object (invalid_request); an array under a format that takes a map fails that
    /// format's verification (invalid_attestation).
    @Test func attStmtIsAMapOrAnArray() throws {
        let challenge = SecureRandom.bytes(32)
        var b = RegistrationBuilder(credential: try TestCredential(), rpID: rpID, origin: origin, challenge: challenge)
        for (format, statement, code) in [
            ("compound", CBORValue.int(2), WebAuthnError.Code.invalidRequest),
            ("compound", .bytes([0xA0]), .invalidRequest),
            ("none", .array([]), .invalidAttestation),
            ("packed", .array([.map([])]), .invalidAttestation),
            ("compound", .array([]), .invalidAttestation),
        ] {
            b.format = format
            b.statement = statement
            expectRefusal(code) { _ = try register(b, expecting: expectation(challenge)) }
        }
    }
}
