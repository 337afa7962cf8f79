/// A refused Messages for Business call, with the contract's error code (mfb.md).
public struct MfBError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `mfb_decrypt_failed`, `mfb_token_unknown`, `mfb_key_mismatch`, `invalid_request`, …
    public let code: String
    public let message: String
    public let status: Int

    public init(code: String, message: String, status: Int = 400) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { "\(code): \(message)" }

    /// Every decryption failure, whatever the step: one error, no detail an attacker could use.
    public static let decryptFailed = MfBError(code: "mfb_decrypt_failed", message: "The token cannot be decrypted with this request's key.")
}
