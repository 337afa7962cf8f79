public import PasskeyCore

/// A refused Sign in with Apple token, with the contract's error code (siwa.md):
/// `invalid_token`, `issuer_mismatch`, `audience_mismatch`, `token_expired`, `nonce_mismatch`
/// (400) or `apple_keys_unavailable` (503).
public typealias SIWAError = CodedError

extension CodedError {
    public static func invalidToken(_ message: String) -> SIWAError { .init(code: "invalid_token", message: message) }
    public static func issuerMismatch(_ message: String) -> SIWAError { .init(code: "issuer_mismatch", message: message) }
    public static func audienceMismatch(_ message: String) -> SIWAError { .init(code: "audience_mismatch", message: message) }
    public static func tokenExpired(_ message: String) -> SIWAError { .init(code: "token_expired", message: message) }
    public static func nonceMismatch(_ message: String) -> SIWAError { .init(code: "nonce_mismatch", message: message) }
    public static func keysUnavailable(_ message: String) -> SIWAError {
        .init(code: "apple_keys_unavailable", message: message, status: 503)
    }
}
