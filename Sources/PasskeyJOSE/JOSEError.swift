/// Why a JWS, a JWK or a JWT's claims were refused: a code a caller maps to its own contract's
/// error (`invalid_token`, `token_expired`, `invalid_attestation`, …) and a sentence.
public struct JOSEError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// Not a compact JWS, a part not canonical base64url, a header that is not a strict
        /// JSON object, a value of the wrong kind.
        case malformed
        /// `alg` is missing, unknown, `none`, an HMAC, or not one the caller allows.
        case algorithmNotAllowed = "algorithm_not_allowed"
        /// The key does not fit `alg` (an RSA key for ES256, P-384 for ES256, RSA below 2048
        /// bits), or the JWK names another algorithm or another use.
        case keyMismatch = "key_mismatch"
        /// A header parameter the caller refuses (`jku`, `x5u`, `jwk`), or `crit` that is
        /// malformed or names an extension the caller does not understand (RFC 7515 §4.1.11).
        case headerRefused = "header_refused"
        /// The signature does not verify.
        case badSignature = "bad_signature"
        /// A JWK that is not a usable public signing key.
        case invalidKey = "invalid_key"
        /// `exp` is past (beyond the leeway).
        case expired
        /// `nbf` is ahead, or `iat` is in the future (beyond the leeway).
        case notYetValid = "not_yet_valid"
        /// A required claim is missing or of the wrong kind, or a date is out of range.
        case invalidClaim = "invalid_claim"
        /// `iss` is not the expected issuer.
        case issuerMismatch = "issuer_mismatch"
        /// `aud` names none of the accepted audiences.
        case audienceMismatch = "audience_mismatch"
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}
