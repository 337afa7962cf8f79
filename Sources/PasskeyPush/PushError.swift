/// A refused push-authenticator request, with the contract's error code (push.md).
public struct PushError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `invalid_request`, `weak_key`, `invalid_signature`, `unknown_challenge`,
    /// `too_many_devices`, `invalid_token`, `token_expired`, `number_mismatch`,
    /// `already_answered`, `not_found`.
    public let code: String
    public let message: String
    /// 400 unless the code says otherwise (409, 404).
    public let status: Int

    public init(code: String, message: String, status: Int = 400) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { "\(code): \(message)" }
}
