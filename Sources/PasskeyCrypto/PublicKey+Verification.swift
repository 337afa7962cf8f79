internal import CPasskeyOpenSSL

extension PublicKey {
    /// Whether `signature` is a valid signature over `data` under this key with `algorithm`.
    ///
    /// Never throws: malformed signatures, a key kind that does not fit the algorithm (an EC key
    /// with `.rsaPSS`, …) and OpenSSL failures all give `false`. For ECDSA the DER must be strict
    /// and both r and s must lie in [1, n-1] (CVE-2022-21449); high-S values are accepted.
    /// The curve is not matched against the digest here (the COSE layer pairs them).
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        switch (algorithm, kind) {
        case (.ecdsa, .ec(let curve)):
            guard let (r, s) = try? ECDSASignature.components(der: signature),
                  curve.isValidScalar(r), curve.isValidScalar(s)
            else { return false }
        case (.eddsa, .edwards(let curve)):
            guard signature.count == curve.signatureSize else { return false }
        case (.rsaPKCS1v15, .rsa), (.rsaPSS, .rsa):
            guard signature.count == Int(EVP_PKEY_get_size(pointer)) else { return false }
        default:
            return false
        }
        return EVPSignature.verify(key: pointer, algorithm: algorithm, signature: signature, data: data)
    }
}
