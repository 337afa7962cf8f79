public import Foundation
internal import PasskeyCrypto
internal import PasskeyJOSE
internal import PasskeyJSON
internal import PasskeyStorage

/// The DPoP headers of one request (RFC 9449), as the HTTP layer read them: every `DPoP` header
/// value, and the request's method. The provider knows each endpoint's own URL (its issuer and
/// path); the request's `Host` is never trusted for `htu`.
public struct DPoPRequest: Sendable {
    public let proofs: [String]
    public let method: String

    public init(proofs: [String], method: String) {
        self.proofs = proofs
        self.method = method
    }
}

/// Sender-constrained tokens (RFC 9449; docs/contracts/identity.md, "Machine and agent clients"): a
/// proof of possession checked step by step as §4.3 lists them, the server nonces of §8, and the
/// thumbprint (`cnf.jkt`) a bound token carries.
extension OpenIDProvider {
    /// What a proof may be signed with (discovery, and the `algs` of a `DPoP` challenge).
    public static let dpopAlgorithms = assertionAlgorithms
    /// The key comes in the proof's own `jwk` header; a URL to fetch one is never followed.
    static let dpopPolicy = JWSPolicy(
        algorithms: Set(dpopAlgorithms.compactMap(JWSAlgorithm.init(rawValue:))), refusedParameters: ["jku", "x5u"])
    /// How far a proof's `iat` may be from the server's clock (RFC 9449 §11.1).
    static let dpopWindow: TimeInterval = 60
    /// A server nonce is good in the window it was made in and the next one.
    static let dpopNonceWindow: TimeInterval = 300
    static let maximumProofBytes = 8192

    /// The proof of a request to `path`, checked in full; the thumbprint of its key, or nil when
    /// the request carries no proof. `accessToken` is the token the request presents (its hash
    /// must be the proof's `ath`), nil at the token endpoint.
    func checkDPoPProof(_ request: DPoPRequest?, path: String, accessToken: String?, at: Date) async throws -> String? {
        guard let request, !request.proofs.isEmpty else { return nil }
        let (claims, key) = try Self.readProof(request, keys: proofKeys)
        do throws(JOSEError) {
            try Self.checkProofTarget(claims, method: request.method, url: issuer + path)
            try Self.checkProofTime(claims, now: at)
            try Self.checkProofTokenHash(claims, accessToken: accessToken)
        } catch {
            throw OAuthError("invalid_dpop_proof", "the DPoP proof is not valid: \(error.reason)")
        }
        try checkProofNonce(claims, at: at)
        let thumbprint = key.thumbprint
        try await checkProofUnseen(claims, thumbprint: thumbprint, at: at)
        return thumbprint
    }

    /// RFC 9449 §4.3 items 1 to 6: one `DPoP` header, a JWS of at most 8 KiB, `typ: dpop+jwt`,
    /// an allowed asymmetric `alg`, a public `jwk` (no private member) fitting it, and the
    /// signature by that key.
    static func readProof(_ request: DPoPRequest, keys: JWKCache) throws(OAuthError) -> ([String: JSONValue], JWK) {
        guard request.proofs.count == 1 else { throw OAuthError("invalid_dpop_proof", "a request carries one DPoP header") }
        do throws(JOSEError) {
            let jws = try JWS(compact: request.proofs[0], maximumSize: maximumProofBytes)
            guard jws.header["typ"]?.stringValue == "dpop+jwt" else { throw JOSEError(.headerRefused, "typ is not dpop+jwt") }
            guard let value = jws.header["jwk"] else { throw JOSEError(.headerRefused, "the header has no jwk") }
            let key = try keys.key(value)
            try jws.verify(with: key, policy: dpopPolicy)
            return (try jws.claims(), key)
        } catch {
            throw OAuthError("invalid_dpop_proof", "the DPoP proof is not valid: \(error.reason)")
        }
    }

    /// RFC 9449 §4.3 items 7 and 8: `htm` is the request's method, `htu` the endpoint's URL
    /// (scheme and host compared without case, the query and fragment left out).
    static func checkProofTarget(_ claims: [String: JSONValue], method: String, url: String) throws(JOSEError) {
        guard let htm = try JWTClaims.string(claims, "htm", required: true, maximumLength: 16), htm == method else {
            throw JOSEError(.invalidClaim, "htm is not \(method)")
        }
        guard let htu = try JWTClaims.string(claims, "htu", required: true, maximumLength: 2048),
              let named = comparableURL(htu), named == comparableURL(url)
        else { throw JOSEError(.invalidClaim, "htu is not \(url)") }
    }

    /// A URL as RFC 9449 §4.3 compares it: scheme and host lower-cased, the default port left
    /// out, no query or fragment.
    static func comparableURL(_ text: String) -> String? {
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), components.host != nil else {
            return nil
        }
        components.scheme = scheme
        components.host = components.host?.lowercased()
        if (scheme == "https" && components.port == 443) || (scheme == "http" && components.port == 80) { components.port = nil }
        components.query = nil
        components.fragment = nil
        return components.string
    }

    /// RFC 9449 §4.3 item 11: `iat` within a minute of now, either way; a `jti` is present.
    static func checkProofTime(_ claims: [String: JSONValue], now: Date) throws(JOSEError) {
        guard let issued = try JWTClaims.numericDate(claims, "iat") else { throw JOSEError(.invalidClaim, "iat is missing") }
        guard abs(issued.timeIntervalSince(now)) <= dpopWindow else {
            throw JOSEError(.invalidClaim, "iat is more than \(Int(dpopWindow)) seconds from the server's clock")
        }
        _ = try JWTClaims.string(claims, "jti", required: true, maximumLength: maximumJTILength)
    }

    /// RFC 9449 §4.3 item 12 and §7: at a protected resource, `ath` is the base64url SHA-256
    /// of the access token presented; at the token endpoint there is none to name.
    static func checkProofTokenHash(_ claims: [String: JSONValue], accessToken: String?) throws(JOSEError) {
        guard let accessToken else { return }
        let expected = Base64URL.encode(Digest.sha256.hash(Array(accessToken.utf8)))
        guard let ath = claims["ath"]?.stringValue, constantTimeEquals(Array(ath.utf8), Array(expected.utf8)) else {
            throw JOSEError(.invalidClaim, "ath is not the hash of the access token")
        }
    }

    /// RFC 9449 §8 and §9: every proof carries a nonce this server made, from this window or the
    /// last; without one, or with an old one, the answer is `use_dpop_nonce` and the
    /// `DPoP-Nonce` header gives the current one.
    func checkProofNonce(_ claims: [String: JSONValue], at: Date) throws(OAuthError) {
        guard let nonce = claims["nonce"]?.stringValue else {
            throw OAuthError("use_dpop_nonce", "the DPoP proof must carry the server's nonce (the DPoP-Nonce header)")
        }
        let window = Self.nonceWindow(at)
        guard nonce == dpopNonce(window: window) || nonce == dpopNonce(window: window - 1) else {
            throw OAuthError("use_dpop_nonce", "the DPoP proof's nonce is not a current one (the DPoP-Nonce header)")
        }
    }

    /// RFC 9449 §11.1: a proof's `jti` is used once per key, on every instance, for as long
    /// as its `iat` would be accepted.
    func checkProofUnseen(_ claims: [String: JSONValue], thumbprint: String, at: Date) async throws {
        guard let jti = claims["jti"]?.stringValue else { throw OAuthError("invalid_dpop_proof", "jti is missing") }
        let key = Digest.sha256.hash(Array("dpop\u{0}\(thumbprint)\u{0}\(jti)".utf8))
        guard try await store.spendOnce(keyHash: key, expiresAt: at.addingTimeInterval(2 * Self.dpopWindow), now: at) else {
            throw OAuthError("invalid_dpop_proof", "the DPoP proof was used before (its jti is spent)")
        }
    }

    /// The nonce to send in `DPoP-Nonce` now: the same on every instance (made from the server
    /// secret and the five-minute window), so no instance keeps any.
    public func currentDPoPNonce() -> String { dpopNonce(window: Self.nonceWindow(now())) }

    static func nonceWindow(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / dpopNonceWindow).rounded(.down)) }

    func dpopNonce(window: Int64) -> String {
        var message = Array("dpop-nonce".utf8)
        withUnsafeBytes(of: window.bigEndian) { message += $0 }
        return Base64URL.encode(Array(HMAC.sha256(key: context.serverSecret, data: message).prefix(18)))
    }
}
