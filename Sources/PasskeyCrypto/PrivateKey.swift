internal import Foundation
internal import CPasskeyOpenSSL
internal import Synchronization

/// A private key: the operator's signing keys (Apple's `.p8`, APNs, FCM service accounts), the
/// push-device simulator's key, and the tests' keys. Generated, or imported from PKCS#8.
/// Owns an `EVP_PKEY *`.
//
// @unchecked Sendable: the EVP_PKEY is not mutated after generation, and OpenSSL 3 allows
// concurrent signing operations that each use their own EVP_MD_CTX (openssl-threads(7)); the
// signing templates are behind a lock.
public final class PrivateKey: @unchecked Sendable {
    /// Owned; freed in deinit.
    private let pointer: OpaquePointer
    public let publicKey: PublicKey
    /// One per algorithm this key has signed with (in practice one, or two for an RSA key
    /// used with PKCS#1 v1.5 and PSS).
    private let templates = Mutex<[SigningTemplate]>([])

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

    /// Imports an unencrypted PKCS#8 `PRIVATE KEY` PEM block (what `openssl genpkey` and
    /// Python's `cryptography` write), e.g. a test attestation key made by a fixture script.
    public convenience init(pem: String) throws {
        let lines = pem.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let begin = lines.firstIndex(of: "-----BEGIN PRIVATE KEY-----"),
              let end = lines[begin...].firstIndex(of: "-----END PRIVATE KEY-----"),
              let der = Data(base64Encoded: lines[(begin + 1)..<end].joined())
        else {
            throw CryptoError(.invalidKey, "PEM: no well-formed PRIVATE KEY block")
        }
        try self.init(pkcs8: [UInt8](der))
    }

    /// Imports an unencrypted DER PKCS#8 PrivateKeyInfo; trailing bytes are refused.
    public convenience init(pkcs8 der: [UInt8]) throws {
        guard !der.isEmpty else { throw CryptoError(.invalidKey, "empty PKCS#8") }
        defer { OpenSSLErrorQueue.clear() }
        let (decoded, consumed) = der.withUnsafeBufferPointer { buffer -> (OpaquePointer?, Int) in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let key = d2i_AutoPrivateKey(nil, &cursor, buffer.count)
            return (key, cursor.map { $0 - buffer.baseAddress! } ?? 0)
        }
        guard let decoded else {
            throw CryptoError.openSSL(.invalidKey, "PKCS#8 private key does not decode")
        }
        guard consumed == der.count else {
            EVP_PKEY_free(decoded)
            throw CryptoError(.invalidKey, "\(der.count - consumed) trailing bytes after the private key")
        }
        try self.init(taking: decoded)
    }

    /// The key as an unencrypted DER PKCS#8 PrivateKeyInfo (what `init(pkcs8:)` reads back).
    public func pkcs8() throws -> [UInt8] {
        defer { OpenSSLErrorQueue.clear() }
        guard let info = EVP_PKEY2PKCS8(pointer) else {
            throw CryptoError.openSSL(.internalFailure, "EVP_PKEY2PKCS8 failed")
        }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        guard let der = encodeDER({ i2d_PKCS8_PRIV_KEY_INFO(info, $0) }) else {
            throw CryptoError.openSSL(.internalFailure, "i2d_PKCS8_PRIV_KEY_INFO failed")
        }
        return der
    }

    /// The key as a `PRIVATE KEY` PEM block (what `init(pem:)` reads back).
    public func pem() throws -> String {
        let body = Data(try pkcs8()).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN PRIVATE KEY-----\n\(body)\n-----END PRIVATE KEY-----\n"
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
        guard let template = try template(for: algorithm) else {
            return try EVPSignature.sign(key: pointer, algorithm: algorithm, data: data)
        }
        return try template.sign(data)
    }

    /// The prepared set-up for `algorithm`, made on its first signature; nil for pure EdDSA.
    private func template(for algorithm: SignatureAlgorithm) throws -> SigningTemplate? {
        if let made = templates.withLock({ $0.first { $0.algorithm == algorithm } }) { return made }
        guard let made = try SigningTemplate(key: pointer, algorithm: algorithm) else { return nil }
        return templates.withLock { templates in
            if let first = templates.first(where: { $0.algorithm == algorithm }) { return first }
            templates.append(made)
            return made
        }
    }
}
