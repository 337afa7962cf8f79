/// A refused ceremony: a code the server maps to the contract's error name, and a reason for
/// logs and for the developer-facing verifier. The reason never carries secret material.
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The contract's error codes (see the HTTP contract's error table).
    public enum Code: String, Sendable, CaseIterable {
        case invalidRequest = "invalid_request"
        case unknownChallenge = "unknown_challenge"
        case typeMismatch = "type_mismatch"
        case originMismatch = "origin_mismatch"
        case rpIdMismatch = "rp_id_mismatch"
        case userPresenceRequired = "user_presence_required"
        case userVerificationRequired = "user_verification_required"
        case unsupportedAlgorithm = "unsupported_algorithm"
        case invalidAttestation = "invalid_attestation"
        case unknownCredential = "unknown_credential"
        case userHandleMismatch = "user_handle_mismatch"
        case invalidSignature = "invalid_signature"
        case counterRegression = "counter_regression"
        case credentialExists = "credential_exists"
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }

    static func invalidRequest(_ reason: String) -> WebAuthnError { .init(.invalidRequest, reason) }
    static func invalidAttestation(_ reason: String) -> WebAuthnError { .init(.invalidAttestation, reason) }
}
