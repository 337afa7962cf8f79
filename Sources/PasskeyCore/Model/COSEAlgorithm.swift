public import PasskeyCrypto

/// COSE algorithm identifiers (IANA COSE registry, RFC 9053 / RFC 8812 / RFC 9864) that this
/// server verifies, with the key type and digest each one fixes.
public enum COSEAlgorithm: Int, Sendable, CaseIterable, Hashable {
    case es256 = -7
    case es384 = -35
    case es512 = -36
    case edDSA = -8
    case ed25519 = -19
    case rs256 = -257
    case ps256 = -37

    /// The algorithms offered by default, in preference order.
    public static let defaultOffered: [COSEAlgorithm] = [.es256, .edDSA, .ed25519, .es384, .es512, .ps256, .rs256]

    public var name: String {
        switch self {
        case .es256: "ES256"
        case .es384: "ES384"
        case .es512: "ES512"
        case .edDSA: "EdDSA"
        case .ed25519: "Ed25519"
        case .rs256: "RS256"
        case .ps256: "PS256"
        }
    }

    /// The signature scheme; the digest always follows the algorithm.
    public var signatureAlgorithm: SignatureAlgorithm {
        switch self {
        case .es256: .ecdsa(.sha256)
        case .es384: .ecdsa(.sha384)
        case .es512: .ecdsa(.sha512)
        case .edDSA, .ed25519: .eddsa
        case .rs256: .rsaPKCS1v15(.sha256)
        case .ps256: .rsaPSS(.sha256)
        }
    }

    /// WebAuthn L3 §5.8.5: ES256 MUST use P-256, ES384 P-384, ES512 P-521.
    var requiredCurve: EllipticCurve? {
        switch self {
        case .es256: .p256
        case .es384: .p384
        case .es512: .p521
        default: nil
        }
    }
}
