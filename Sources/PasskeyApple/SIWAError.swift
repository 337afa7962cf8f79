/// A refused Sign in with Apple token, with the contract's error code (siwa.md).
public struct SIWAError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `invalid_token`, `issuer_mismatch`, `audience_mismatch`, `token_expired`,
    /// `nonce_mismatch` or `apple_keys_unavailable`.
    public let code: String
    public let message: String
    /// 400, or 503 for `apple_keys_unavailable`.
    public let status: Int

    public init(code: String, message: String, status: Int = 400) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { "\(code): \(message)" }

    public static func invalidToken(_ message: String) -> SIWAError { .init(code: "invalid_token", message: message) }
    public static func issuerMismatch(_ message: String) -> SIWAError { .init(code: "issuer_mismatch", message: message) }
    public static func audienceMismatch(_ message: String) -> SIWAError { .init(code: "audience_mismatch", message: message) }
    public static func tokenExpired(_ message: String) -> SIWAError { .init(code: "token_expired", message: message) }
    public static func nonceMismatch(_ message: String) -> SIWAError { .init(code: "nonce_mismatch", message: message) }
    public static func keysUnavailable(_ message: String) -> SIWAError {
        .init(code: "apple_keys_unavailable", message: message, status: 503)
    }
}
