internal import CPasskeyOpenSSL
internal import Synchronization

/// A key's signing set-up for one algorithm, made once: an `EVP_MD_CTX` after
/// `EVP_DigestSignInit` (the signature method fetched, the key's provider data found, the
/// padding set), which each signature copies instead of setting it up again.
///
/// Setting a signature up cost about five times what copying a prepared one does, and the
/// token endpoint signs twice per code exchange (the ID token and the access token) with the
/// same few keys. The template itself never signs; each signature works on its own copy, made
/// under a lock, so concurrent signatures share nothing that changes. The copy is marked
/// `EVP_MD_CTX_FLAG_FINALISE`: it is finished once and freed, so OpenSSL need not duplicate it
/// again inside `EVP_DigestSignFinal`.
///
/// Pure EdDSA has no update and final steps to copy between; it is signed as before.
final class SigningTemplate: @unchecked Sendable {
    let algorithm: SignatureAlgorithm
    /// Owned; freed in deinit. Read (copied) only under `lock`.
    private let template: OpaquePointer
    private let lock = Mutex(())

    /// Nil for an algorithm that signs in one shot (pure EdDSA).
    init?(key: OpaquePointer, algorithm: SignatureAlgorithm) throws {
        guard algorithm.digest != nil else { return nil }
        defer { OpenSSLErrorQueue.clear() }
        template = try EVPSignature.signingContext(key: key, algorithm: algorithm)
        self.algorithm = algorithm
    }

    deinit {
        EVP_MD_CTX_free(template)
    }

    func sign(_ data: [UInt8]) throws -> [UInt8] {
        defer { OpenSSLErrorQueue.clear() }
        guard let context = EVP_MD_CTX_new() else {
            throw CryptoError.openSSL(.internalFailure, "EVP_MD_CTX_new failed")
        }
        defer { EVP_MD_CTX_free(context) }
        guard lock.withLock({ _ in EVP_MD_CTX_copy_ex(context, template) }) == 1 else {
            throw CryptoError.openSSL(.internalFailure, "EVP_MD_CTX_copy_ex failed for \(algorithm)")
        }
        EVP_MD_CTX_set_flags(context, EVP_MD_CTX_FLAG_FINALISE)
        return try data.withNonNullBytes { dataBytes, dataCount in
            guard EVP_DigestSignUpdate(context, dataBytes, dataCount) == 1 else {
                throw CryptoError.openSSL(.internalFailure, "EVP_DigestSignUpdate failed")
            }
            var length = 0
            guard EVP_DigestSignFinal(context, nil, &length) == 1 else {
                throw CryptoError.openSSL(.internalFailure, "EVP_DigestSignFinal (size) failed")
            }
            var output = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSignFinal(context, &output, &length) == 1 else {
                throw CryptoError.openSSL(.internalFailure, "EVP_DigestSignFinal failed")
            }
            return Array(output.prefix(length))
        }
    }
}
