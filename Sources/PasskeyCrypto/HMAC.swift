internal import CPasskeyOpenSSL

/// Keyed hashes.
public enum HMAC {
    /// HMAC-SHA-256 (RFC 2104) of `data` under `key`.
    public static func sha256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        precondition(key.count <= Int(Int32.max), "HMAC key too long")
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withNonNullBytes { keyBytes, keyCount in
            data.withNonNullBytes { dataBytes, dataCount in
                CPasskeyOpenSSL.HMAC(Digest.sha256.evpMD, keyBytes, Int32(keyCount),
                                     dataBytes, dataCount, &output, &length)
            }
        }
        guard result != nil, length == 32 else {
            fatalError("HMAC-SHA-256 failed" + OpenSSLErrorQueue.drainedSuffix())
        }
        return Array(output.prefix(32))
    }
}
