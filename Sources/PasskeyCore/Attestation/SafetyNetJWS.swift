internal import Foundation
internal import PasskeyCrypto
internal import PasskeyJOSE
internal import PasskeyJSON

/// A SafetyNet attestation response: a compact JWS (read by `PasskeyJOSE`) whose header carries
/// `alg` and the signing chain `x5c`. Parsed strictly; the signature is checked by
/// `checkSignature(with:)` once the caller has the leaf's key.
struct SafetyNetJWS {
    let jws: JWS
    let algorithm: JWSAlgorithm
    /// From the header's x5c, leaf first.
    let certificates: [Certificate]
    let payload: Payload

    /// The payload members this verifier uses; others are ignored.
    struct Payload: Decodable {
        let nonce: String
        let timestampMs: Int64
        let ctsProfileMatch: Bool
    }

    /// The JWS algorithms accepted for SafetyNet (RFC 7518 §3.1): every asymmetric one but
    /// EdDSA; no extension is understood, and the key comes from x5c only.
    static let policy = JWSPolicy(algorithms: [.rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .es256, .es384, .es512])

    /// A response carries a certificate chain of a few KiB.
    static let maximumSize = 65536

    /// Parses `response`: a compact JWS with an allowed `alg`, no `crit` or key-selecting
    /// header, a non-empty `x5c` of DER certificates, and a strict JSON payload with `nonce`,
    /// `timestampMs` and `ctsProfileMatch`. Every failure is `invalid_attestation`.
    init(compact response: [UInt8]) throws {
        let chain: [[UInt8]]
        do {
            jws = try JWS(compact: response, maximumSize: Self.maximumSize)
            algorithm = try jws.checkAlgorithm(Self.policy)
            try jws.checkCriticalHeaders(Self.policy)
            guard let x5c = try jws.certificateChain() else {
                throw JOSEError(.malformed, "the header has no x5c")
            }
            chain = x5c
        } catch let error as JOSEError {
            throw WebAuthnError.invalidAttestation("SafetyNet JWS: \(error.reason)")
        }
        certificates = try chain.map { der in
            do { return try Certificate(derEncoded: der) } catch {
                throw WebAuthnError.invalidAttestation("SafetyNet JWS x5c entry is not a DER certificate: \(error)")
            }
        }
        do {
            try StrictJSON.validate(jws.payload)
            payload = try JSONDecoder().decode(Payload.self, from: Data(jws.payload))
        } catch {
            throw WebAuthnError.invalidAttestation("SafetyNet JWS payload is not the expected JSON object")
        }
    }

    /// The JWS signature verifies with `key` (the leaf's) under the header's alg, and the key
    /// fits the alg (an ES* signature is r ‖ s of the alg's own curve).
    func checkSignature(with key: PublicKey) throws {
        do {
            try JWS.checkKey(key, fits: algorithm)
            try jws.checkSignature(key, algorithm: algorithm)
        } catch {
            throw WebAuthnError.invalidAttestation("SafetyNet JWS signature does not verify with the x5c leaf: \(error.reason)")
        }
    }
}
