public import PasskeyCrypto

/// Where a relying party's attestation trust anchors come from (§7.1 step 23: "obtain a list
/// of acceptable trust anchors … for that attestation type and format fmt, from a trusted
/// source"). Certificates carried inside an attestation statement are never anchors.
public protocol TrustAnchorProvider: Sendable {
    /// The anchors acceptable for a statement of `format` from the authenticator model `aaguid`.
    func anchors(format: String, aaguid: [UInt8]) -> [Certificate]
}

/// A fixed set of anchors per format, plus anchors that apply to every format.
public struct StaticTrustAnchors: TrustAnchorProvider {
    public var common: [Certificate]
    public var byFormat: [String: [Certificate]]

    public init(common: [Certificate] = [], byFormat: [String: [Certificate]] = [:]) {
        self.common = common
        self.byFormat = byFormat
    }

    public func anchors(format: String, aaguid: [UInt8]) -> [Certificate] {
        common + (byFormat[format] ?? [])
    }
}
