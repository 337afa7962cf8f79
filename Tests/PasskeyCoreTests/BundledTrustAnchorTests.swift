import Foundation
import PasskeyCore
import PasskeyCrypto
import Testing

/// The vendor roots compiled into the binary: each parses, has the SHA-256 its publisher (or a
/// project that pins it) states, and the expected subject; each format gets its own roots.
@Suite struct BundledTrustAnchorTests {
    /// Fingerprints as published with the certificates (see each PEM file's header), typed
    /// here independently of the generated source.
    static let expected: [(file: String, sha256: String, subject: [String: String], formats: [String])] = [
        ("apple-webauthn-root-ca.pem",
         "09:15:DD:5C:07:A2:8D:B5:49:D1:F6:77:BB:5A:75:D4:BF:BE:95:61:A7:73:42:43:27:76:2E:9E:02:F9:BB:29",
         ["CN": "Apple WebAuthn Root CA", "O": "Apple Inc."], ["apple"]),
        ("google-hardware-attestation-root-1.pem",
         "C1:98:4A:3E:F4:5C:1E:2A:91:85:51:DE:10:60:3C:86:F7:05:1B:22:49:C4:89:1C:AE:32:30:EA:BD:0C:97:D5",
         ["serialNumber": "f92009e853b6b045"], ["android-key"]),
        ("google-hardware-attestation-root-2.pem",
         "1E:F1:A0:4B:8B:A5:8A:B9:45:89:AC:49:8C:89:82:A7:83:F2:4E:A7:30:7E:01:59:A0:C3:A7:3B:37:7D:87:CC",
         ["serialNumber": "f92009e853b6b045"], ["android-key"]),
        ("google-hardware-attestation-root-3.pem",
         "AB:66:41:17:8A:36:E1:79:AA:0C:1C:DD:DF:9A:16:EB:45:FA:20:94:3E:2B:8C:D7:C7:C0:5C:26:CF:8B:48:7A",
         ["serialNumber": "f92009e853b6b045"], ["android-key"]),
        ("google-hardware-attestation-root-4.pem",
         "CE:DB:1C:B6:DC:89:6A:E5:EC:79:73:48:BC:E9:28:67:53:C2:B3:8E:E7:1C:E0:FB:E3:4A:9A:12:48:80:0D:FC",
         ["serialNumber": "f92009e853b6b045"], ["android-key"]),
        ("google-key-attestation-ca1.pem",
         "6D:9D:B4:CE:6C:5C:0B:29:31:66:D0:89:86:E0:57:74:A8:77:6C:EB:52:5D:9E:43:29:52:0D:E1:2B:A4:BC:C0",
         ["CN": "Key Attestation CA1", "O": "Google LLC", "OU": "Android", "C": "US"], ["android-key"]),
        ("globalsign-root-ca.pem",
         "EB:D4:10:40:E4:BB:3E:C7:42:C9:E3:81:D3:1E:F2:A4:1A:48:B6:68:5C:96:E7:CE:F3:C1:DF:6C:D4:33:1C:99",
         ["CN": "GlobalSign Root CA", "O": "GlobalSign nv-sa", "OU": "Root CA", "C": "BE"], ["android-safetynet"]),
        ("globalsign-root-ca-r2.pem",
         "69:E2:D0:6C:30:F3:66:16:61:65:E9:1D:68:D1:CE:E5:CC:47:58:4A:80:22:7E:76:66:60:86:C0:10:72:41:EB",
         ["CN": "GlobalSign", "O": "GlobalSign", "OU": "GlobalSign Root CA - R2"], ["android-safetynet"]),
        ("gts-root-r1.pem",
         "D9:47:43:2A:BD:E7:B7:FA:90:FC:2E:6B:59:10:1B:12:80:E0:E1:C7:E4:E4:0F:A3:C6:88:7F:FF:57:A7:F4:CF",
         ["CN": "GTS Root R1", "O": "Google Trust Services LLC", "C": "US"], ["android-safetynet"]),
        ("globalsign-root-ca-r3.pem",
         "CB:B5:22:D7:B7:F1:27:AD:6A:01:13:86:5B:DF:1C:D4:10:2E:7D:07:59:AF:63:5A:7C:F4:72:0D:C9:63:C5:3B",
         ["CN": "GlobalSign", "O": "GlobalSign", "OU": "GlobalSign Root CA - R3"], ["mds"]),
    ]

    static func fingerprint(_ certificate: Certificate) -> String {
        Digest.sha256.hash(certificate.derEncoded).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    @Test func everyBundledCertificateIsExpected() {
        #expect(Set(BundledCertificates.all.map(\.file)) == Set(Self.expected.map(\.file)))
    }

    @Test(arguments: expected.map(\.file))
    func parsesWithTheRecordedFingerprintAndSubject(_ file: String) throws {
        let expected = try #require(Self.expected.first { $0.file == file })
        let entry = try #require(BundledCertificates.all.first { $0.file == file })
        let certificates = try Certificate.certificates(pem: entry.pem)
        #expect(certificates.count == 1)
        let certificate = try #require(certificates.first)
        #expect(Self.fingerprint(certificate) == expected.sha256)
        #expect(entry.sha256 == expected.sha256)
        #expect(entry.roles == expected.formats)
        for (attribute, value) in expected.subject {
            #expect(certificate.subject[attribute] == [value], "\(file) subject \(attribute)")
        }
        // Roots: self-issued CA certificates whose self-signature OpenSSL verifies.
        #expect(certificate.isSelfIssued)
        #expect(certificate.basicConstraintsIsCA == true)
        let at = certificate.notBefore.addingTimeInterval(86400)
        #expect(CertificateChain.verify(leaf: certificate, intermediates: [], anchors: [certificate], at: at) == .trusted(chainLength: 1))
    }

    @Test func theGoogleRSARootsShareOneSubjectAndKey() throws {
        let roots = try BundledTrustAnchors().anchors(format: "android-key", aaguid: [])
        let rsa = roots.filter { $0.subject["serialNumber"] == ["f92009e853b6b045"] }
        #expect(rsa.count == 4)
        let keys = try rsa.map { try $0.publicKey }
        #expect(keys.dropFirst().allSatisfy { $0.matches(keys[0]) })
    }

    @Test func anchorsPerFormat() throws {
        let bundled = try BundledTrustAnchors()
        func names(_ format: String) -> [String] {
            bundled.anchors(format: format, aaguid: Array(repeating: 0, count: 16)).map(Self.fingerprint)
        }
        func fingerprints(_ format: String) -> [String] {
            Self.expected.filter { $0.formats.contains(format) }.map(\.sha256)
        }
        #expect(Set(names("apple")) == Set(fingerprints("apple")))
        #expect(names("apple").count == 1)
        #expect(Set(names("android-key")) == Set(fingerprints("android-key")))
        #expect(names("android-key").count == 5)
        #expect(Set(names("android-safetynet")) == Set(fingerprints("android-safetynet")))
        #expect(names("android-safetynet").count == 3)
        // No vendor root for formats whose roots are per authenticator model (metadata).
        #expect(names("packed").isEmpty)
        #expect(names("fido-u2f").isEmpty)
        #expect(names("none").isEmpty)
        // The Metadata Service root is not an attestation anchor.
        #expect(names("mds").isEmpty)
        #expect(bundled.metadataServiceRoots.map(Self.fingerprint) == fingerprints("mds"))
    }
}
