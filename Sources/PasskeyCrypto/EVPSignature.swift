internal import CPasskeyOpenSSL

/// EVP_DigestSign / EVP_DigestVerify with the padding each algorithm needs.
enum EVPSignature {
    static func verify(key: OpaquePointer, algorithm: SignatureAlgorithm, signature: [UInt8], data: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestVerifyInit(context, &keyContext, algorithm.digest?.evpMD, nil, key) == 1,
              let keyContext, configure(keyContext, for: algorithm)
        else { return false }
        let status = signature.withNonNullBytes { signatureBytes, signatureCount in
            data.withNonNullBytes { dataBytes, dataCount in
                EVP_DigestVerify(context, signatureBytes, signatureCount, dataBytes, dataCount)
            }
        }
        return status == 1
    }

    static func sign(key: OpaquePointer, algorithm: SignatureAlgorithm, data: [UInt8]) throws -> [UInt8] {
        defer { OpenSSLErrorQueue.clear() }
        let context = try signingContext(key: key, algorithm: algorithm)
        defer { EVP_MD_CTX_free(context) }
        return try data.withNonNullBytes { dataBytes, dataCount in
            var length = 0
            guard EVP_DigestSign(context, nil, &length, dataBytes, dataCount) == 1 else {
                throw CryptoError.openSSL(.internalFailure, "EVP_DigestSign (size) failed")
            }
            var output = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &output, &length, dataBytes, dataCount) == 1 else {
                throw CryptoError.openSSL(.internalFailure, "EVP_DigestSign failed")
            }
            return Array(output.prefix(length))
        }
    }

    /// A new `EVP_MD_CTX` set up to sign with `key` and `algorithm` (its padding set); the
    /// caller frees it.
    static func signingContext(key: OpaquePointer, algorithm: SignatureAlgorithm) throws -> OpaquePointer {
        guard let context = EVP_MD_CTX_new() else {
            throw CryptoError.openSSL(.internalFailure, "EVP_MD_CTX_new failed")
        }
        var keyContext: OpaquePointer?
        guard EVP_DigestSignInit(context, &keyContext, algorithm.digest?.evpMD, nil, key) == 1,
              let keyContext, configure(keyContext, for: algorithm)
        else {
            EVP_MD_CTX_free(context)
            throw CryptoError.openSSL(.internalFailure, "EVP_DigestSignInit failed for \(algorithm)")
        }
        return context
    }

    private static func configure(_ keyContext: OpaquePointer, for algorithm: SignatureAlgorithm) -> Bool {
        switch algorithm {
        case .ecdsa, .eddsa:
            return true
        case .rsaPKCS1v15:
            return EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PADDING) > 0
        case .rsaPSS(let digest):
            return EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) > 0
                && EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) > 0
                && EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, digest.evpMD) > 0
        }
    }
}

extension SignatureAlgorithm {
    /// The digest this algorithm hashes with; nil for pure EdDSA.
    var digest: Digest? {
        switch self {
        case .ecdsa(let digest), .rsaPKCS1v15(let digest), .rsaPSS(let digest): digest
        case .eddsa: nil
        }
    }

    /// Whether a key of `kind` can make or check this signature.
    func fits(_ kind: PublicKeyKind) -> Bool {
        switch (self, kind) {
        case (.ecdsa, .ec), (.eddsa, .edwards), (.rsaPKCS1v15, .rsa), (.rsaPSS, .rsa): true
        default: false
        }
    }
}
