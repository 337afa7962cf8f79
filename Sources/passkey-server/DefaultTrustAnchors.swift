import PasskeyCore

/// The anchors `verify` uses when no --trust-anchor is given: the bundled vendor roots per
/// format (Apple, Google hardware attestation, SafetyNet), and the bundled FIDO MDS root.
enum DefaultTrustAnchors {
    static var bundled: BundledTrustAnchors {
        get throws { try BundledTrustAnchors() }
    }

    static var provider: any TrustAnchorProvider {
        get throws { try bundled }
    }
}
