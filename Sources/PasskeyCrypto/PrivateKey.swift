internal import CPasskeyOpenSSL

/// A freshly generated private key, for tests and the test authenticator only (never persisted).
/// Owns an `EVP_PKEY *`.
//
// @unchecked Sendable: the EVP_PKEY is not mutated after generation, and OpenSSL 3 allows
// concurrent signing operations that each use their own EVP_MD_CTX (openssl-threads(7)).
public final class PrivateKey: @unchecked Sendable {
    /// Owned; freed in deinit.
    private let pointer: OpaquePointer
    public let publicKey: PublicKey

    /// Takes ownership of `key`; frees it on failure.
    private init(taking key: OpaquePointer) throws {
        do {
            guard let spki = encodeDER({ i2d_PUBKEY(key, $0) }) else {
                throw CryptoError.openSSL(.internalFailure, "i2d_PUBKEY failed for a generated key")
            }
            // Generated keys are allowed any supported size (e.g. a 1024-bit RSA key in a test).
            publicKey = try PublicKey(subjectPublicKeyInfo: spki, minimumRSABits: 0)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        pointer = key
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    public static func generateEC(_ curve: EllipticCurve) throws -> PrivateKey {
        try generate("EC") { EVP_PKEY_CTX_set_group_name($0, curve.groupName) }
    }

    public static func generateEdwards(_ curve: EdwardsCurve) throws -> PrivateKey {
        try generate(curve.algorithmName) { _ in 1 }
    }

    /// RSA with e = 65537; `bits` in 1024...16384.
    public static func generateRSA(bits: Int) throws -> PrivateKey {
        guard (1024...PublicKey.maximumRSABits).contains(bits) else {
            throw CryptoError(.unsupported, "RSA key size \(bits) outside 1024...\(PublicKey.maximumRSABits)")
        }
        return try generate("RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) }
    }

    private static func generate(_ algorithm: String, configure: (OpaquePointer) -> Int32) throws -> PrivateKey {
        defer { OpenSSLErrorQueue.clear() }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw CryptoError.openSSL(.internalFailure, "no key generator for \(algorithm)")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) > 0 else {
            throw CryptoError.openSSL(.internalFailure, "cannot set up \(algorithm) key generation")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw CryptoError.openSSL(.internalFailure, "\(algorithm) key generation failed")
        }
        return try PrivateKey(taking: key)
    }

    /// Signs `data`. ECDSA signatures are DER ECDSA-Sig-Value. Throws `.unsupported` if the key
    /// kind does not fit the algorithm.
    public func signature(for data: [UInt8], algorithm: SignatureAlgorithm) throws -> [UInt8] {
        guard algorithm.fits(publicKey.kind) else {
            throw CryptoError(.unsupported, "\(algorithm) cannot be made with a \(publicKey.kind) key")
        }
        return try EVPSignature.sign(key: pointer, algorithm: algorithm, data: data)
    }
}
