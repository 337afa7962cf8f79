import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyCrypto
import Testing

/// `tpm` attestation (WebAuthn L3 §8.3, §8.3.1) through RegistrationVerifier, with the vectors
/// of Vectors/attestation/tpm.json. Each refused vector breaks one requirement and is otherwise
/// valid and re-signed, so removing that requirement's check makes its test fail.
@Suite struct TPMAttestationTests {
    static let vectors = ListedVectors(
        file: "attestation/tpm", accepted: accepted, refused: refused, format: "tpm", type: .attCA)

    static let accepted = [
        "tpm-rsa-rs256",                    // RSA credential, RSA AIK, RS256
        "tpm-ecc-es256",                    // P-256 credential, P-256 AIK, ES256
        "tpm-rsa-rs1",                      // AIK signs with RS1; extraData is SHA-1
        "tpm-rsa-name-sha1",                // pubArea.nameAlg SHA-1
        "tpm-rsa-no-aaguid-extension",      // the AAGUID extension is optional
    ]

    static let refused = [
        "tpm-ver-1.0",                      // ver is "2.0"
        "tpm-ecdaa-key-id",                 // ECDAA is not supported
        "tpm-x5c-missing",                  // x5c present
        "tpm-pubarea-other-key",            // pubArea key = credential key
        "tpm-pubarea-trailing-byte",        // TPMT_PUBLIC parsed strictly
        "tpm-pubarea-namealg-sm3",          // nameAlg SHA-1/256/384/512
        "tpm-certinfo-wrong-magic",         // magic = TPM_GENERATED_VALUE
        "tpm-certinfo-wrong-type",          // type = TPM_ST_ATTEST_CERTIFY
        "tpm-certinfo-extradata-mismatch",  // extraData = H_alg(attToBeSigned)
        "tpm-certinfo-name-mismatch",       // attested.name = Name(pubArea)
        "tpm-certinfo-trailing-byte",       // TPMS_ATTEST parsed strictly
        "tpm-signature-wrong-key",          // sig verifies with aikCert's key
        "tpm-aik-version-1",                // §8.3.1 version 3
        "tpm-aik-subject-not-empty",        // §8.3.1 subject empty
        "tpm-aik-san-missing",              // §8.3.1 SAN present
        "tpm-aik-san-not-critical",         // SAN critical (empty subject)
        "tpm-aik-san-no-manufacturer",      // SAN has TPM manufacturer
        "tpm-aik-san-no-model",             // SAN has TPM model
        "tpm-aik-san-no-version",           // SAN has TPM version
        "tpm-aik-eku-missing",              // §8.3.1 EKU 2.23.133.8.3
        "tpm-aik-ca",                       // §8.3.1 CA false
        "tpm-aik-aaguid-mismatch",          // AAGUID extension = authData aaguid
    ]

    @Test func everyVectorIsListed() throws { try Self.vectors.expectEveryVectorListed() }

    @Test(arguments: accepted) func acceptsAndTrusts(_ name: String) throws { try Self.vectors.expectAccepted(name) }

    /// §7.1 steps 23–24: without anchors the same statement verifies but is not trusted, and
    /// the certificates inside x5c never become anchors themselves.
    @Test(arguments: accepted) func acceptsWithoutAnchorsButUntrusted(_ name: String) throws {
        try Self.vectors.expectUntrustedWithoutAnchors(name)
    }

    /// Refused by the format's verification procedure (§7.1 step 22), not by an earlier step.
    @Test(arguments: refused) func refuses(_ name: String) throws { try Self.vectors.expectRefused(name) }

    /// Every shorter prefix of a valid pubArea or certInfo is refused (no read past the end).
    @Test(arguments: ["pubArea", "certInfo"])
    func truncatedStructuresAreRefused(_ member: String) throws {
        let input = try Self.vectors.named("tpm-ecc-es256").attestationInput().input
        let entries = try #require(input.statement.mapEntries)
        let full = try #require(input.statement[text: member]?.bytesValue)
        _ = try TPMAttestation().verify(input)
        for length in 0..<full.count {
            let statement = CBORValue.map(entries.map { entry in
                entry.key == .text(member) ? CBORMapEntry(key: entry.key, value: .bytes(Array(full.prefix(length)))) : entry
            })
            let truncated = try AttestationInput(statement: statement, authenticatorData: input.authenticatorData,
                                             clientDataHash: input.clientDataHash, now: input.now)
            expectRefusal(.invalidAttestation) { _ = try TPMAttestation().verify(truncated) }
        }
    }

    @Test func isRegistered() {
        #expect(AttestationFormats.format(for: "tpm") is TPMAttestation)
    }
}
