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

    /// Whether the digest libcrypto runs is one fetched from a provider (not a legacy object it
    /// would look up at every use).
    var isFetched: Bool {
        EVP_MD_get0_provider(evpMD) != nil
    }

    var evpMD: OpaquePointer? {
        switch self {
        case .sha1: fetchedSHA1
        case .sha256: fetchedSHA256
        case .sha384: fetchedSHA384
        case .sha512: fetchedSHA512
        }
    }
}

// Each digest fetched from libcrypto's providers once. OpenSSL 3 looks a legacy `EVP_sha256()` up
// again at every use (`EVP_MD_fetch`: a lock and a walk of its method store), once per digest
// and once per signature or verify; a fetched one is used as it is. Kept for the process's life;
// an `EVP_MD` is immutable and may be used from any thread. Should a fetch fail, the legacy
// object is used, as before.
nonisolated(unsafe) private let fetchedSHA1 = fetchDigest("SHA1") ?? EVP_sha1()
nonisolated(unsafe) private let fetchedSHA256 = fetchDigest("SHA2-256") ?? EVP_sha256()
nonisolated(unsafe) private let fetchedSHA384 = fetchDigest("SHA2-384") ?? EVP_sha384()
nonisolated(unsafe) private let fetchedSHA512 = fetchDigest("SHA2-512") ?? EVP_sha512()

private func fetchDigest(_ name: String) -> OpaquePointer? {
    guard let digest = EVP_MD_fetch(nil, name, nil) else {
        OpenSSLErrorQueue.clear()
        return nil
    }
    return digest
}
