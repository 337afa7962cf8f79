internal import CPasskeyOpenSSL

/// Edwards curves for EdDSA (COSE crv 6, 7).
public enum EdwardsCurve: Sendable, Hashable {
    case ed25519, ed448

    /// Length in bytes of the raw public key.
    public var keySize: Int {
        switch self {
        case .ed25519: 32
        case .ed448: 57
        }
    }

    /// Length in bytes of a signature.
    var signatureSize: Int {
        switch self {
        case .ed25519: 64
        case .ed448: 114
        }
    }

    var keyType: Int32 {
        switch self {
        case .ed25519: EVP_PKEY_ED25519
        case .ed448: EVP_PKEY_ED448
        }
    }

    var algorithmName: String {
        switch self {
        case .ed25519: "ED25519"
        case .ed448: "ED448"
        }
    }
}
