internal import CPasskeyOpenSSL

/// The ANSI X9.63 key derivation function (SEC 1 §3.6.1) through OpenSSL's `X963KDF` EVP_KDF:
/// Hash(Z || counter || SharedInfo) for counter = 1, 2, …, concatenated and cut to `length`.
public enum X963KDF {
    /// Largest output asked of it here (the X9.63 limit, hashLength · (2^32 − 1), is far above).
    public static let maximumLength = 1024

    /// `length` bytes (1…`maximumLength`) with SHA-256 from the shared secret Z (not empty) and
    /// SharedInfo (may be empty).
    public static func sha256(sharedSecret: [UInt8], sharedInfo: [UInt8], length: Int) throws -> [UInt8] {
        guard (1...maximumLength).contains(length) else {
            throw CryptoError(.unsupported, "X9.63 KDF output length \(length) outside 1...\(maximumLength)")
        }
        guard !sharedSecret.isEmpty else {
            throw CryptoError(.invalidKey, "X9.63 KDF with an empty shared secret")
        }
        defer { OpenSSLErrorQueue.clear() }
        var output = [UInt8](repeating: 0, count: length)
        let derived = sharedSecret.withNonNullBytes { secret, secretCount in
            sharedInfo.withNonNullBytes { info, infoCount in
                output.withUnsafeMutableBufferPointer { out in
                    passkey_x963kdf("SHA256", secret, secretCount, info, infoCount, out.baseAddress, out.count)
                }
            }
        }
        guard derived == 1 else {
            throw CryptoError.openSSL(.internalFailure, "X9.63 KDF failed")
        }
        return output
    }
}
