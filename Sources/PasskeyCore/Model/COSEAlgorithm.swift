public import PasskeyCrypto

/// COSE algorithm identifiers (IANA COSE registry, RFC 9053 / RFC 8812 / RFC 9864) that this
/// server verifies, with the key type and digest each one fixes.
public enum COSEAlgorithm: Int, Sendable, CaseIterable, Hashable {
    case es256 = -7
    case es384 = -35
    case es512 = -36
    case edDSA = -8
    case ed25519 = -19
    case ed448 = -53
    case rs256 = -257
    case rs384 = -258
    case rs512 = -259
    case ps256 = -37
    case ps384 = -38
    case ps512 = -39
    /// RSASSA-PKCS1-v1_5 with SHA-1: verification only, for TPM-era authenticators; never
    /// offered by default.
    case rs1 = -65535

    /// The algorithms offered by default, in preference order (all but RS1).
    public static let defaultOffered: [COSEAlgorithm] = [
        .es256, .edDSA, .ed25519, .es384, .es512, .ed448, .ps256, .ps384, .ps512, .rs256, .rs384, .rs512,
    ]

    public var name: String {
        switch self {
        case .es256: "ES256"
        case .es384: "ES384"
        case .es512: "ES512"
        case .edDSA: "EdDSA"
        case .ed25519: "Ed25519"
        case .ed448: "Ed448"
        case .rs256: "RS256"
        case .rs384: "RS384"
        case .rs512: "RS512"
        case .ps256: "PS256"
        case .ps384: "PS384"
        case .ps512: "PS512"
        case .rs1: "RS1"
        }
    }

    /// The signature scheme; the digest always follows the algorithm.
    public var signatureAlgorithm: SignatureAlgorithm {
        switch self {
        case .es256: .ecdsa(.sha256)
        case .es384: .ecdsa(.sha384)
        case .es512: .ecdsa(.sha512)
        case .edDSA, .ed25519, .ed448: .eddsa
        case .rs256: .rsaPKCS1v15(.sha256)
        case .rs384: .rsaPKCS1v15(.sha384)
        case .rs512: .rsaPKCS1v15(.sha512)
        case .rs1: .rsaPKCS1v15(.sha1)
        case .ps256: .rsaPSS(.sha256)
        case .ps384: .rsaPSS(.sha384)
        case .ps512: .rsaPSS(.sha512)
        }
    }

    /// WebAuthn L3 §5.8.5: ES256 MUST use P-256, ES384 P-384, ES512 P-521.
    /// The digest that names the algorithm (TPM extraData, hashes over signed data).
    public var digest: Digest? {
        switch signatureAlgorithm {
        case .ecdsa(let d), .rsaPKCS1v15(let d), .rsaPSS(let d): d
        case .eddsa: nil
        }
    }

    /// Whether a key of `kind` can sign with this algorithm: ECDSA on the algorithm's own curve
    /// (an ES256 signature by a P-384 key is refused), EdDSA by an Edwards key of a curve the
    /// algorithm names, RSA schemes by RSA keys.
    public func fits(_ kind: PublicKeyKind) -> Bool {
        switch (self, kind) {
        case (.es256, .ec(let curve)), (.es384, .ec(let curve)), (.es512, .ec(let curve)):
            return curve == requiredCurve
        case (.edDSA, .edwards): return true
        case (.ed25519, .edwards(let curve)): return curve == .ed25519
        case (.ed448, .edwards(let curve)): return curve == .ed448
        case (.rs256, .rsa), (.rs384, .rsa), (.rs512, .rsa), (.rs1, .rsa), (.ps256, .rsa), (.ps384, .rsa), (.ps512, .rsa):
            return true
        default: return false
        }
    }

    var requiredCurve: EllipticCurve? {
        switch self {
        case .es256: .p256
        case .es384: .p384
        case .es512: .p521
        default: nil
        }
    }
}
