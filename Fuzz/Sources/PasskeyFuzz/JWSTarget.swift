import Foundation
import PasskeyJSON
import PasskeyCBOR
import PasskeyCore
import PasskeyCrypto

/// `jws`: the two WebAuthn uses of JWS, both over `PasskeyJOSE` — the SafetyNet attestation
/// response (reached through `AndroidSafetyNetAttestation.verify`, §8.5) and the FIDO Metadata
/// Service BLOB (`MetadataBLOB(jws:roots:signerNames:now:)`) — and Base64URL underneath both.
///
/// An input takes one of two forms, and both readers run on it:
/// - compact: `header.payload.signature` as sent. The BLOB is verified against the test
///   Metadata Service root, so only unmodified seeds pass its signature check.
/// - structured (the input holds a NUL byte): `header JSON NUL payload JSON [NUL signature]`.
///   The target base64url-encodes the parts into a compact JWS, so mutations work on the JSON
///   rather than on its base64. For the BLOB it also signs `header.payload` (ES256) with the
///   test signer's key and passes the signer as the only root, so the signature verifies and
///   the payload reader runs on whatever the fuzzer wrote.
enum JWSTarget {
    static func run(_ bytes: [UInt8]) {
        if let separator = bytes.firstIndex(of: 0) {
            structured(header: Array(bytes[..<separator]), rest: Array(bytes[(separator + 1)...]))
        } else {
            compact(bytes)
        }
    }

    static func compact(_ bytes: [UInt8]) {
        base64Parts(bytes)
        safetyNet(bytes)
        metadataBLOB("metadata BLOB", bytes, root: Fixtures.metadataRoot)
    }

    static func structured(header: [UInt8], rest: [UInt8]) {
        let payload: [UInt8]
        let signature: [UInt8]
        if let separator = rest.firstIndex(of: 0) {
            payload = Array(rest[..<separator])
            signature = Array(rest[(separator + 1)...])
        } else {
            payload = rest
            signature = []
        }
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        safetyNet(Array((signingInput + "." + Base64URL.encode(signature)).utf8))

        // ES256 by the signer, r ‖ s of 32 bytes each (RFC 7518 §3.4).
        guard let der = try? Fixtures.metadataSignerKey.signature(for: Array(signingInput.utf8), algorithm: .ecdsa(.sha256)),
              let raw = try? ECDSASignature.concatenated(der: der, size: 32)
        else {
            expect(false, "the test signer could not sign")
            return
        }
        let jws = Array((signingInput + "." + Base64URL.encode(raw)).utf8)
        metadataBLOB("metadata BLOB (re-signed)", jws, root: Fixtures.metadataSigner)
    }

    /// The SafetyNet verification procedure on `response`, with the authenticator data and
    /// client data hash of the first SafetyNet vector (so its own response passes every check).
    static func safetyNet(_ response: [UInt8]) {
        let statement = CBORValue.map([
            CBORMapEntry(key: .text("ver"), value: .text("14366018")),
            CBORMapEntry(key: .text("response"), value: .bytes(response)),
        ])
        let fixed = Fixtures.safetyNetInput
        guard let input = try? AttestationInput(
            statement: statement, authenticatorData: fixed.authenticatorData, clientDataHash: fixed.clientDataHash,
            now: Fixtures.now)
        else { return }
        _ = attempt("SafetyNet verification") { try AndroidSafetyNetAttestation().verify(input) }
    }

    /// Base64URL on each part. Checked: whatever decodes re-encodes to bytes that decode the same.
    static func base64Parts(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        for part in text.split(separator: ".", omittingEmptySubsequences: false).prefix(3) {
            let string = String(part)
            if let decoded = Base64URL.decode(string) {
                expect(Base64URL.decode(Base64URL.encode(decoded)) == decoded, "Base64URL does not round-trip")
            }
            if let strict = Base64URL.decodeStrict(string) {
                expect(Base64URL.decode(string) == strict, "strict and lenient Base64URL decoding differ")
            }
        }
    }

    /// The BLOB verified against `root` alone, with the test signers' names pinned.
    static func metadataBLOB(_ step: String, _ jws: [UInt8], root: Certificate) {
        let blob = attempt(step) {
            try MetadataBLOB(jws: jws, roots: [root], signerNames: Fixtures.metadataSignerNames, now: Fixtures.metadataNow)
        }
        if let blob { inspect(blob) }
    }

    static func inspect(_ blob: MetadataBLOB) {
        _ = (blob.number, blob.nextUpdateText, blob.isStale(at: Fixtures.now), blob.warnings.count)
        for entry in blob.entries.values {
            _ = (entry.description, entry.attestationRootCertificates.count, entry.statusReports.count)
            _ = entry.currentStatus(at: Fixtures.now)
            _ = try? AttestationPolicy.checkAuthenticatorStatus(entry, now: Fixtures.now)
            _ = blob.entry(aaguid: entry.aaguid)
        }
    }
}
