public import PasskeyCrypto

/// The JWS signature algorithms this project verifies and makes (RFC 7518 §3.1, RFC 8037 §3.1):
/// asymmetric only. `none` and the HMACs (`HS256`…) have no case, so no token can name its way
/// past a signature check or turn a public key into an HMAC secret.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
    case es256 = "ES256", es384 = "ES384", es512 = "ES512"
    case edDSA = "EdDSA"

    /// The smallest RSA modulus a JWS may use (RFC 7518 §3.3: "2048 bits or larger MUST").
    public static let minimumRSABits = 2048

    /// How OpenSSL makes and checks the signature.
    public var signatureAlgorithm: SignatureAlgorithm {
        switch self {
        case .rs256: .rsaPKCS1v15(.sha256)
        case .rs384: .rsaPKCS1v15(.sha384)
        case .rs512: .rsaPKCS1v15(.sha512)
        case .ps256: .rsaPSS(.sha256)
        case .ps384: .rsaPSS(.sha384)
        case .ps512: .rsaPSS(.sha512)
        case .es256: .ecdsa(.sha256)
        case .es384: .ecdsa(.sha384)
        case .es512: .ecdsa(.sha512)
        case .edDSA: .eddsa
        }
    }

    /// The curve an ES algorithm is defined on (RFC 7518 §3.4): ES256 is P-256 only, and so on.
    public var curve: EllipticCurve? {
        switch self {
        case .es256: .p256
        case .es384: .p384
        case .es512: .p521
        default: nil
        }
    }

    /// Whether a key of `kind` may make or check this algorithm's signatures: RSA of at least
    /// 2048 bits for RS and PS, the one curve of each ES, an Edwards curve for EdDSA.
    public func fits(_ kind: PublicKeyKind) -> Bool {
        switch (self, kind) {
        case (.rs256, .rsa(let bits)), (.rs384, .rsa(let bits)), (.rs512, .rsa(let bits)),
             (.ps256, .rsa(let bits)), (.ps384, .rsa(let bits)), (.ps512, .rsa(let bits)):
            bits >= Self.minimumRSABits
        case (.es256, .ec(let curve)), (.es384, .ec(let curve)), (.es512, .ec(let curve)):
            curve == self.curve
        case (.edDSA, .edwards):
            true
        default:
            false
        }
    }
}
