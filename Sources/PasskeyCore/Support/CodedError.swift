/// A refusal as the HTTP contract names it: a stable error code, one sentence for a human, and
/// the HTTP status it maps to. Sign in with Apple (`SIWAError`), the push authenticator
/// (`PushError`) and Messages for Business (`MfBError`) refuse with it; the server answers it
/// as `{"error": code, "message": message}`.
public struct CodedError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: String
    public let message: String
    /// 400 unless the code says otherwise (404, 409, 503).
    public let status: Int

    public init(code: String, message: String, status: Int = 400) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { "\(code): \(message)" }
}
