import PasskeyCore
import PasskeyCrypto

/// `attestation-formats`: every attestation statement format's verification procedure (§8:
/// packed, fido-u2f, tpm, android-key, android-safetynet, apple, compound, none).
///
/// Input: 32 bytes of clientDataHash, then an attestation object. The seeds carry the hash of
/// their own clientDataJSON, so their signatures verify and mutations start from statements
/// that pass. The object's `fmt` picks the format (`AttestationFormats.format(for:)`), which
/// verifies at the vectors' fixed time; a statement that verifies has its trust path checked
/// against the fixed anchors, as registration does.
enum AttestationFormatsTarget {
    static func run(_ bytes: [UInt8]) {
        guard bytes.count > 32 else { return }
        let clientDataHash = Array(bytes[..<32])
        guard let object = attempt("attestation object", { try AttestationObject(bytes: Array(bytes[32...])) }),
              let input = attempt("attestation input", {
                  try AttestationInput(
                      statement: object.statement, authenticatorData: object.authenticatorData,
                      clientDataHash: clientDataHash, now: Fixtures.now)
              }),
              let format = attempt("format \(object.format)", { try lookUp(object.format) })
        else { return }
        if let outcome = attempt("\(object.format) verification", { try format.verify(input) }) {
            inspect(outcome, format: object.format, aaguid: input.credential.aaguid)
        }
        // android-key also has a policy that accepts software-enforced authorization lists.
        if object.format == "android-key" {
            _ = attempt("android-key verification, software-enforced allowed") {
                try AndroidKeyAttestation(requireHardwareEnforced: false).verify(input)
            }
        }
    }

    struct UnsupportedFormat: Error {}

    static func lookUp(_ identifier: String) throws -> any AttestationStatementFormat {
        guard let format = AttestationFormats.format(for: identifier) else { throw UnsupportedFormat() }
        return format
    }

    static func inspect(_ outcome: AttestationOutcome, format: String, aaguid: [UInt8]) {
        _ = outcome.type.rawValue
        if let leaf = outcome.trustPath.first {
            let anchors = Fixtures.relyingParty.trustAnchors.anchors(format: format, aaguid: aaguid)
            let verdict = CertificateChain.verify(
                leaf: leaf, intermediates: Array(outcome.trustPath.dropFirst()), anchors: anchors, at: Fixtures.now)
            note("\(format) trust path: \(verdict)")
        }
        for sub in outcome.subOutcomes {
            inspect(sub.outcome, format: sub.format, aaguid: aaguid)
        }
    }
}
