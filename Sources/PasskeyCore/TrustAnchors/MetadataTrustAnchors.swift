public import PasskeyCrypto

/// The anchors the server uses: per format the bundled vendor roots, the operator's extra
/// anchors (`--trust-anchors`, for every format), and for an authenticator model listed in the
/// Metadata BLOB its `attestationRootCertificates` (FIDO MDS3: "the trust anchors for that
/// authenticator model").
public struct MetadataTrustAnchors: TrustAnchorProvider {
    /// Per-format anchors, e.g. `BundledTrustAnchors`.
    public var base: any TrustAnchorProvider
    /// Anchors for every format and authenticator.
    public var additional: [Certificate]
    public var metadata: MetadataBLOB?

    public init(base: any TrustAnchorProvider, additional: [Certificate] = [], metadata: MetadataBLOB? = nil) {
        self.base = base
        self.additional = additional
        self.metadata = metadata
    }

    public func anchors(format: String, aaguid: [UInt8]) -> [Certificate] {
        base.anchors(format: format, aaguid: aaguid) + additional
            + (metadata?.entry(aaguid: aaguid)?.attestationRootCertificates ?? [])
    }
}
