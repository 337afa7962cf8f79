/// `residentKey` in the creation options (WebAuthn L3 §5.4.6): how strongly the RP wants a
/// discoverable credential. Ordered by strength: `required` > `preferred` > `discouraged`.
public enum ResidentKeyRequirement: String, Sendable, CaseIterable, Comparable {
    case discouraged, preferred, required

    private var strength: Int {
        switch self {
        case .discouraged: 0
        case .preferred: 1
        case .required: 2
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.strength < b.strength }
}

/// `hints` in either options (WebAuthn L3 §5.8.7), in the RP's order of preference.
public enum PublicKeyCredentialHint: String, Sendable, CaseIterable {
    case securityKey = "security-key"
    case clientDevice = "client-device"
    case hybrid
}

/// `authenticatorAttachment` in the creation options (WebAuthn L3 §5.4.5).
public enum AuthenticatorAttachment: String, Sendable, CaseIterable {
    case platform
    case crossPlatform = "cross-platform"
}
