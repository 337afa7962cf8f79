internal import CPasskeyOpenSSL

/// An EC private key known by its scalar, for key agreement (ECDH): the Messages for Business
/// request keys, whose private half is kept as the unsigned big-endian scalar the way Apple's
/// documentation writes it. Owns an `EVP_PKEY *` holding both halves.
//
// @unchecked Sendable: the EVP_PKEY is not mutated after `init` (the scalar and point are
// copied into Swift values there), and OpenSSL 3 allows concurrent derivations that each use
// their own EVP_PKEY_CTX (openssl-threads(7)). The pointer is freed only in deinit.
public final class ECPrivateKey: @unchecked Sendable {
    /// Owned; freed in deinit.
    private let pointer: OpaquePointer
    public let curve: EllipticCurve
    /// The private scalar d, exactly `curve.coordinateSize` bytes, big-endian, left-padded.
    public let scalar: [UInt8]
    /// The public point Q = d·G, uncompressed X9.63: 0x04 || X || Y.
    public let publicPoint: [UInt8]

    /// A fresh key pair from OpenSSL's generator.
    public static func generate(_ curve: EllipticCurve) throws -> ECPrivateKey {
        defer { OpenSSLErrorQueue.clear() }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw CryptoError.openSSL(.internalFailure, "no EC key generator")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, curve.groupName) > 0 else {
            throw CryptoError.openSSL(.internalFailure, "cannot set up \(curve.groupName) key generation")
        }
        var generated: OpaquePointer?
        guard EVP_PKEY_generate(context, &generated) == 1, let generated else {
            throw CryptoError.openSSL(.internalFailure, "\(curve.groupName) key generation failed")
        }
        defer { EVP_PKEY_free(generated) }
        var scalar = [UInt8](repeating: 0, count: curve.coordinateSize)
        let written = passkey_pkey_bn_param(generated, OSSL_PKEY_PARAM_PRIV_KEY, &scalar, Int32(scalar.count),
                                            Int32(curve.coordinateSize))
        guard written == Int32(curve.coordinateSize) else {
            throw CryptoError.openSSL(.internalFailure, "cannot read the generated \(curve.groupName) scalar")
        }
        // One import path for generated and stored keys.
        return try ECPrivateKey(curve: curve, scalar: scalar)
    }

    /// A key from its unsigned big-endian scalar d, normally exactly `curve.coordinateSize`
    /// bytes (48 for P-384). A shorter encoding is read as left-padded with zeros, a longer one
    /// only if the extra leading bytes are zero. Throws `.invalidKey` unless 1 ≤ d < n.
    public init(curve: EllipticCurve, scalar: [UInt8]) throws {
        let size = curve.coordinateSize
        guard let firstSignificant = scalar.firstIndex(where: { $0 != 0 }) else {
            throw CryptoError(.invalidKey, "EC \(curve.groupName) private scalar is zero or empty")
        }
        let significant = scalar[firstSignificant...]
        guard significant.count <= size else {
            throw CryptoError(.invalidKey, "EC \(curve.groupName) private scalar is longer than \(size) bytes")
        }
        let padded = [UInt8](repeating: 0, count: size - significant.count) + significant
        guard curve.isValidScalar(padded) else {
            throw CryptoError(.invalidKey, "EC \(curve.groupName) private scalar is not below the group order")
        }
        defer { OpenSSLErrorQueue.clear() }
        // 1 + 2 · 66 bytes for P-521, the largest.
        var point = [UInt8](repeating: 0, count: 1 + 2 * size)
        var pointLength = 0
        let key = padded.withUnsafeBufferPointer { scalarBytes in
            point.withUnsafeMutableBufferPointer { pointBytes in
                passkey_ec_private_key(curve.nid, curve.groupName, scalarBytes.baseAddress, scalarBytes.count,
                                       pointBytes.baseAddress, pointBytes.count, &pointLength)
            }
        }
        guard let key else {
            throw CryptoError.openSSL(.invalidKey, "EC \(curve.groupName) private key rejected")
        }
        guard pointLength == point.count, point.first == 0x04 else {
            EVP_PKEY_free(key)
            throw CryptoError(.internalFailure, "EC \(curve.groupName) public point has an unexpected encoding")
        }
        self.pointer = key
        self.curve = curve
        self.scalar = padded
        self.publicPoint = point
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// ECDH with a peer's uncompressed point (0x04 || X || Y, exactly 1 + 2 · coordinateSize
    /// bytes). Compressed (0x02/0x03) and hybrid (0x06/0x07) encodings, the point at infinity,
    /// coordinates ≥ p and points off the curve are refused with `.invalidKey`. Returns Z, the
    /// x-coordinate of d·P, `coordinateSize` bytes. (The NIST curves have cofactor 1, so this is
    /// also the cofactor Diffie-Hellman primitive of SP 800-56A.)
    public func sharedSecret(withUncompressedPoint point: [UInt8]) throws -> [UInt8] {
        let size = curve.coordinateSize
        guard point.count == 1 + 2 * size, point.first == 0x04 else {
            throw CryptoError(.invalidKey, "EC \(curve.groupName) peer point is not 0x04 followed by \(2 * size) bytes")
        }
        // Curve membership and the public key check happen in the import.
        let peer = try PublicKey.ec(curve: curve, x: Array(point[1...size]), y: Array(point[(size + 1)...]))
        defer { OpenSSLErrorQueue.clear() }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            throw CryptoError.openSSL(.internalFailure, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else {
            throw CryptoError.openSSL(.internalFailure, "EVP_PKEY_derive_init failed")
        }
        guard EVP_PKEY_derive_set_peer_ex(context, peer.pointer, 1) == 1 else {
            throw CryptoError.openSSL(.invalidKey, "EC \(curve.groupName) peer point refused for ECDH")
        }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1, length == size else {
            throw CryptoError.openSSL(.internalFailure, "ECDH secret length is not \(size)")
        }
        var secret = [UInt8](repeating: 0, count: size)
        guard EVP_PKEY_derive(context, &secret, &length) == 1, length == size else {
            throw CryptoError.openSSL(.internalFailure, "ECDH derivation failed")
        }
        return secret
    }
}
