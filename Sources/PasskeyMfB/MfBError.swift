public import PasskeyCore

/// The Messages for Business system, as an error domain.
public enum MessagesForBusinessDomain: ErrorDomain {}

/// A refused Messages for Business call, with the contract's error code (docs/contracts/mfb.md):
/// `mfb_decrypt_failed`, `mfb_token_unknown`, `mfb_key_mismatch`, `invalid_request`, …
public typealias MfBError = CodedError<MessagesForBusinessDomain>

extension CodedError<MessagesForBusinessDomain> {
    /// Every decryption failure, whatever the step: one error, no detail an attacker could use.
    public static let decryptFailed = MfBError(code: "mfb_decrypt_failed", message: "The token cannot be decrypted with this request's key.")

    /// A reply or parameter that is not what the contract says.
    static func invalidRequest(_ message: String) -> MfBError {
        MfBError(code: "invalid_request", message: message)
    }
}
