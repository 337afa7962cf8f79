internal import CPasskeyOpenSSL

/// A hash function.
public enum Digest: Sendable, Hashable {
    case sha1, sha256, sha384, sha512

    /// The digest of `data` (EVP_Digest).
    public func hash(_ data: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = data.withNonNullBytes { bytes, count in
            EVP_Digest(bytes, count, &output, &length, evpMD, nil)
        }
        guard status == 1, Int(length) == outputSize else {
            // Only reachable if libcrypto itself is broken (no provider loaded, out of memory).
            fatalError("EVP_Digest failed for \(self)" + OpenSSLErrorQueue.drainedSuffix())
        }
        return Array(output.prefix(Int(length)))
    }

    /// Output length in bytes.
    public var outputSize: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    var evpMD: OpaquePointer? {
        switch self {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }
}
