import PasskeyCore

/// The anchors `verify` uses when no --trust-anchor is given.
enum DefaultTrustAnchors {
    static var provider: any TrustAnchorProvider { StaticTrustAnchors() }
}
