internal import Foundation
internal import PasskeyCore
internal import PasskeyCrypto

/// Compact JWS as the providers want it signed: ES256 for the APNs provider token (signature
/// r ‖ s, 32 bytes each, RFC 7518 §3.4) and RS256 for Google's OAuth assertion (RFC 7515).
enum PushJWT {
    /// The latest NumericDate accepted: 9999-12-31T23:59:59Z.
    static let latestNumericDate: TimeInterval = 253_402_300_799

    enum Algorithm {
        case es256, rs256

        var name: String {
            switch self {
            case .es256: "ES256"
            case .rs256: "RS256"
            }
        }
    }

    /// `header.claims.signature`, base64url without padding. The header gets `alg` from
    /// `algorithm`; the key must fit it (P-256 for ES256, RSA for RS256).
    static func sign(header: some Encodable, claims: some Encodable, key: PrivateKey, algorithm: Algorithm) throws -> String {
        let signingInput = Base64URL.encode(try PushHTTP.jsonBody(header)) + "." + Base64URL.encode(try PushHTTP.jsonBody(claims))
        let data = Array(signingInput.utf8)
        let signature: [UInt8]
        switch algorithm {
        case .es256:
            guard key.publicKey.kind == .ec(.p256) else {
                throw PushProviderError("ES256 needs a P-256 key, not \(key.publicKey.kind)")
            }
            signature = try ECDSASignature.concatenated(der: try key.signature(for: data, algorithm: .ecdsa(.sha256)), size: 32)
        case .rs256:
            guard case .rsa = key.publicKey.kind else {
                throw PushProviderError("RS256 needs an RSA key, not \(key.publicKey.kind)")
            }
            signature = try key.signature(for: data, algorithm: .rsaPKCS1v15(.sha256))
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Whole seconds since 1970 for a JWT claim; throws for a clock outside 1970…9999.
    static func numericDate(_ date: Date) throws -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, seconds >= 0, seconds <= latestNumericDate else {
            throw PushProviderError("the clock reads \(date), outside 1970…9999")
        }
        return Int64(seconds)
    }
}
