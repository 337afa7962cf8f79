internal import CPasskeyOpenSSL

/// Compares two byte strings in time independent of their contents (CRYPTO_memcmp).
/// Different lengths compare unequal (the length itself is not secret).
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return a.withUnsafeBytes { left in
        b.withUnsafeBytes { right in
            CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
        }
    }
}
