public import PasskeyCrypto
public import PasskeyJSON

extension JWS {
    /// A compact JWS of `payload` signed with `key`: the header is `header` with `alg` set to
    /// `algorithm` (sorted members, slashes unescaped), every part base64url without padding,
    /// an ES signature as r ‖ s of the curve's size (RFC 7518 §3.4). The key must fit the
    /// algorithm (`keyMismatch`).
    public static func sign(
        header: [String: JSONValue] = [:], payload: [UInt8], key: PrivateKey, algorithm: JWSAlgorithm
    ) throws(JOSEError) -> String {
        try checkKey(key.publicKey, fits: algorithm)
        var header = header
        header["alg"] = .string(algorithm.rawValue)
        let signingInput = Base64URL.encode(JSONValue.object(header).encoded()) + "." + Base64URL.encode(payload)
        var signature: [UInt8]
        do {
            signature = try key.signature(for: Array(signingInput.utf8), algorithm: algorithm.signatureAlgorithm)
            if let curve = algorithm.curve {
                signature = try ECDSASignature.concatenated(der: signature, size: curve.coordinateSize)
            }
        } catch {
            throw JOSEError(.keyMismatch, "OpenSSL could not sign \(algorithm.rawValue): \(error)")
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// A signed JWT: `claims` as the payload (sorted members), the header's `typ` as given.
    public static func sign(
        header: [String: JSONValue] = [:], claims: [String: JSONValue], key: PrivateKey, algorithm: JWSAlgorithm
    ) throws(JOSEError) -> String {
        try sign(header: header, payload: JSONValue.object(claims).encoded(), key: key, algorithm: algorithm)
    }
}
