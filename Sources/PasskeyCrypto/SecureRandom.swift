internal import CPasskeyOpenSSL

/// Bytes from OpenSSL's CSPRNG.
public enum SecureRandom {
    /// `count` random bytes (RAND_bytes). Stops the process if the CSPRNG fails: there is no
    /// safe way to continue issuing challenges without randomness.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: bad count \(count)")
        guard count > 0 else { return [] }
        var output = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&output, Int32(count)) == 1 else {
            fatalError("RAND_bytes failed" + OpenSSLErrorQueue.drainedSuffix())
        }
        return output
    }
}
