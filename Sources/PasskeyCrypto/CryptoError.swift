/// An error from PasskeyCrypto: a stable code to branch on, and a reason for logs
/// (which may include OpenSSL's error string; never send it to clients).
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidKey
        case invalidSignatureEncoding
        case invalidCertificate
        case unsupported
        /// An AEAD tag did not verify (wrong key, IV, AAD, or altered ciphertext or tag).
        case authenticationFailed
        case internalFailure
    }

    public let code: Code
    public let reason: String

    init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// An error whose reason ends with the OpenSSL error queue (which is drained).
    static func openSSL(_ code: Code, _ reason: String) -> CryptoError {
        CryptoError(code, reason + OpenSSLErrorQueue.drainedSuffix())
    }

    public var description: String { "CryptoError.\(code.rawValue): \(reason)" }
}
