public import PasskeyCore

/// The Sign in with Apple system, as an error domain.
public enum SignInWithAppleDomain: ErrorDomain {}

/// A refused Sign in with Apple token, with the contract's error code (docs/contracts/siwa.md).
public typealias SIWAError = CodedError<SignInWithAppleDomain>

extension CodedError<SignInWithAppleDomain>.Code {
    public static let invalidToken: Self = "invalid_token"
    public static let issuerMismatch: Self = "issuer_mismatch"
    public static let audienceMismatch: Self = "audience_mismatch"
    public static let tokenExpired: Self = "token_expired"
    public static let nonceMismatch: Self = "nonce_mismatch"
    /// The token's `c_hash` does not hash the authorization code it came with.
    public static let codeHashMismatch: Self = "c_hash_mismatch"
    /// Apple's key set cannot be fetched: a retry may succeed.
    public static let keysUnavailable: Self = "apple_keys_unavailable"
}

extension CodedError<SignInWithAppleDomain> {
    public static func invalidToken(_ message: String) -> SIWAError { .init(code: .invalidToken, message: message) }
    public static func issuerMismatch(_ message: String) -> SIWAError { .init(code: .issuerMismatch, message: message) }
    public static func audienceMismatch(_ message: String) -> SIWAError { .init(code: .audienceMismatch, message: message) }
    public static func tokenExpired(_ message: String) -> SIWAError { .init(code: .tokenExpired, message: message) }
    public static func nonceMismatch(_ message: String) -> SIWAError { .init(code: .nonceMismatch, message: message) }
    public static func codeHashMismatch(_ message: String) -> SIWAError { .init(code: .codeHashMismatch, message: message) }
    public static func keysUnavailable(_ message: String) -> SIWAError { .init(code: .keysUnavailable, message: message) }
}
