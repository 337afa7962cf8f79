public import PasskeyCrypto

/// The vendor roots compiled into the binary (§7.1 step 23: "a list of acceptable trust anchors
/// … for that attestation type and format fmt, from a trusted source"), one list per format:
/// Apple WebAuthn Root CA for `apple`, Google's hardware attestation roots for `android-key`,
/// the roots SafetyNet's attest.android.com chains to for `android-safetynet`. Also the root
/// of the FIDO Metadata Service BLOB signing chain (GlobalSign Root CA - R3).
///
/// Where each certificate came from, and its SHA-256, is written in its PEM file under
/// Sources/PasskeyCore/TrustAnchors/PEM; `BundledCertificates` is generated from those files.
public struct BundledTrustAnchors: TrustAnchorProvider {
    /// Attestation format identifier → its bundled roots.
    public let byFormat: [String: [Certificate]]
    /// The roots a FIDO Metadata Service BLOB's x5c chain must end at.
    public let metadataServiceRoots: [Certificate]

    /// Parses the compiled-in PEM text. It cannot fail unless the generated source was edited
    /// by hand; the error then names the certificate.
    public init() throws {
        var byFormat: [String: [Certificate]] = [:]
        var metadataServiceRoots: [Certificate] = []
        for entry in BundledCertificates.all {
            let certificates: [Certificate]
            do { certificates = try Certificate.certificates(pem: entry.pem) } catch {
                throw TrustAnchorLoadError(path: entry.file, reason: "bundled certificate does not parse: \(error)")
            }
            for role in entry.roles {
                if role == Self.metadataServiceRole {
                    metadataServiceRoots += certificates
                } else {
                    byFormat[role, default: []] += certificates
                }
            }
        }
        self.byFormat = byFormat
        self.metadataServiceRoots = metadataServiceRoots
    }

    /// The role name of the Metadata Service root in `BundledCertificates`.
    static let metadataServiceRole = "mds"

    public func anchors(format: String, aaguid: [UInt8]) -> [Certificate] {
        byFormat[format] ?? []
    }
}
