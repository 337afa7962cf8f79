import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import Testing

/// `--trust-anchors DIR`: every *.pem, *.crt and *.der file; anything unusable is refused by name.
@Suite struct TrustAnchorFilesTests {
    func folder(_ files: [String: [UInt8]]) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("anchors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, bytes) in files {
            try Data(bytes).write(to: directory.appendingPathComponent(name))
        }
        return directory.path
    }

    func pem(_ certificates: Certificate...) -> [UInt8] {
        let blocks = certificates.map { certificate in
            let base64 = Data(certificate.derEncoded).base64EncodedString(options: [.lineLength64Characters])
            return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
        }
        return Array(("A comment line.\n" + blocks.joined()).utf8)
    }

    @Test func readsPEMCRTAndDERFilesInNameOrder() throws {
        let root = try MDSFixtures.certificate("attestation-root.pem")
        let intermediate = try MDSFixtures.certificate("attestation-intermediate.pem")
        let mds = try MDSFixtures.mdsRoot()
        let other = try MDSFixtures.certificate("other-root.pem")
        let path = try folder([
            "b-two.pem": pem(root, intermediate),       // several blocks in one file
            "a-der.der": mds.derEncoded,
            "c-der-as.crt": other.derEncoded,            // .crt may be DER …
            "d-pem-as.CRT": pem(root),                   // … or PEM, any case of extension
            "README.txt": Array("not a certificate".utf8),
        ])
        try FileManager.default.createDirectory(atPath: path + "/sub.pem", withIntermediateDirectories: false)
        let loaded = try TrustAnchorFiles.loadDirectory(path)
        #expect(loaded.map(\.derEncoded) == [mds, root, intermediate, other, root].map(\.derEncoded))
    }

    @Test func refusesAnInvalidFileByName() throws {
        let root = try MDSFixtures.certificate("attestation-root.pem")
        let path = try folder(["good.pem": pem(root), "broken.der": [0x30, 0x03, 0x02, 0x01, 0x01]])
        let error = #expect(throws: TrustAnchorLoadError.self) { try TrustAnchorFiles.loadDirectory(path) }
        #expect(error?.path.hasSuffix("/broken.der") == true)
        #expect(error?.description.contains("broken.der") == true)

        let truncated = try folder(["cut.pem": Array("-----BEGIN CERTIFICATE-----\nMIIB\n".utf8)])
        let cut = #expect(throws: TrustAnchorLoadError.self) { try TrustAnchorFiles.loadDirectory(truncated) }
        #expect(cut?.path.hasSuffix("/cut.pem") == true)
    }

    @Test func refusesAMissingOrEmptyFolder() throws {
        let missing = #expect(throws: TrustAnchorLoadError.self) { try TrustAnchorFiles.loadDirectory("/nonexistent/anchors") }
        #expect(missing?.path == "/nonexistent/anchors")
        let empty = try folder(["notes.txt": Array("nothing".utf8)])
        let none = #expect(throws: TrustAnchorLoadError.self) { try TrustAnchorFiles.loadDirectory(empty) }
        #expect(none?.reason.contains("no *.pem") == true)
    }

    @Test func loadsOneFile() throws {
        let certificates = try TrustAnchorFiles.loadFile(MDSFixtures.path("mds-root.pem"))
        #expect(certificates.map(\.derEncoded) == [try MDSFixtures.mdsRoot().derEncoded])
        #expect(throws: TrustAnchorLoadError.self) { try TrustAnchorFiles.loadFile(MDSFixtures.path("good.jwt")) }
        #expect(throws: TrustAnchorLoadError.self) { try TrustAnchorFiles.loadFile(MDSFixtures.path("absent.pem")) }
    }
}
