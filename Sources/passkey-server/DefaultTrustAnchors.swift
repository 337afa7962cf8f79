import PasskeyCore

/// The anchors `verify` uses when no --trust-anchor is given: the bundled vendor roots per
/// format (Apple, Google hardware attestation, SafetyNet).
enum DefaultTrustAnchors {
    static var provider: any TrustAnchorProvider {
        get throws { try BundledTrustAnchors() }
    }
}
