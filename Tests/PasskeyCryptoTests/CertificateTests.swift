import Foundation
import PasskeyCrypto
import Testing

/// Parsing the python-generated chain (root → intermediate → leaf).
@Suite("Certificate parsing")
struct CertificateTests {
    static let aaguidOID = "1.3.6.1.4.1.45724.1.1.4"

    @Test(arguments: ["root.der", "intermediate.der", "leaf.der", "other-root.der", "issued-by-leaf.der"])
    func matchesGeneratorDescription(_ file: String) throws {
        let expected = try Fixtures.certificates().entry(file)
        let bytes = try Fixtures.bytes("certificates/" + file)
        let certificate = try Certificate(derEncoded: bytes)

        #expect(certificate.derEncoded == bytes)
        #expect(certificate.version == expected.version)
        #expect(certificate.subject.attributes.map(\.oid) == expected.subject.map(\.oid))
        #expect(certificate.subject.attributes.map(\.value) == expected.subject.map(\.value))
        #expect(certificate.issuer.attributes.map(\.oid) == expected.issuer.map(\.oid))
        #expect(certificate.issuer.attributes.map(\.value) == expected.issuer.map(\.value))
        #expect(certificate.notBefore == Date(timeIntervalSince1970: TimeInterval(expected.notBefore)))
        #expect(certificate.notAfter == Date(timeIntervalSince1970: TimeInterval(expected.notAfter)))
        #expect(certificate.basicConstraintsIsCA == expected.isCA)
        #expect(certificate.extendedKeyUsageOIDs == expected.extendedKeyUsage)
        #expect(try certificate.publicKey.subjectPublicKeyInfo == base64(expected.spki))
        #expect(certificate.isSelfIssued == (expected.subject.map(\.value) == expected.issuer.map(\.value)))

        for item in expected.extensions {
            let value = try #require(certificate.extensionValue(oid: item.oid), "extension \(item.oid)")
            #expect(value.critical == item.critical)
            #expect(value.value == base64(item.value))
        }
        #expect(certificate.extensionValue(oid: "1.2.3.4.5") == nil)
    }

    @Test func leafAttestationFields() throws {
        let leaf = try Fixtures.certificate("leaf.der")
        let expectedAAGUID = base64(try Fixtures.certificates().aaguid)

        #expect(leaf.version == 3)
        #expect(leaf.subject["OU"] == ["Authenticator Attestation"])
        #expect(leaf.subject["CN"] == ["Passkey Test Authenticator"])
        #expect(leaf.subject["C"] == ["US"])
        #expect(leaf.subject["L"].isEmpty)
        #expect(leaf.subject.attributes.first { $0.oid == "2.5.4.11" }?.shortName == "OU")
        #expect(!leaf.subject.isEmpty)
        #expect(leaf.issuer["CN"] == ["Passkey Test Attestation CA"])
        #expect(leaf.basicConstraintsIsCA == false)
        #expect(!leaf.isSelfIssued)
        #expect(try leaf.publicKey.kind == .ec(.p256))

        // id-fido-gen-ce-aaguid: extnValue holds an OCTET STRING of the 16-byte AAGUID.
        let aaguidExtension = try #require(leaf.extensionValue(oid: Self.aaguidOID))
        #expect(!aaguidExtension.critical)
        let node = try DER.parse(aaguidExtension.value)
        #expect(node.tag == 0x04)
        #expect(node.content.count == 16)
        #expect(node.content == expectedAAGUID)

        #expect(leaf.extendedKeyUsageOIDs == ["1.3.6.1.5.5.7.3.2", "2.23.133.8.3"])
        #expect(leaf.extensionValue(oid: "2.5.29.19")?.critical == true)
    }

    @Test func caCertificates() throws {
        let root = try Fixtures.certificate("root.der")
        let intermediate = try Fixtures.certificate("intermediate.der")
        #expect(root.basicConstraintsIsCA == true)
        #expect(root.isSelfIssued)
        #expect(try root.publicKey.kind == .ec(.p384))
        #expect(intermediate.basicConstraintsIsCA == true)
        #expect(!intermediate.isSelfIssued)
        #expect(intermediate.issuer == root.subject)
        #expect(intermediate.extendedKeyUsageOIDs.isEmpty)
        #expect(root.subject["OU"].isEmpty)
    }

    @Test func pemBundle() throws {
        let certificates = try Certificate.certificates(pem: Fixtures.text("certificates/chain.pem"))
        #expect(certificates.map(\.derEncoded) == [
            try Fixtures.bytes("certificates/leaf.der"),
            try Fixtures.bytes("certificates/intermediate.der"),
            try Fixtures.bytes("certificates/root.der"),
        ])
        // CRLF line endings work too.
        let crlf = try Fixtures.text("certificates/chain.pem").replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try Certificate.certificates(pem: crlf).count == 3)
    }

    @Test func malformedPEMRefused() throws {
        let pem = try Fixtures.text("certificates/chain.pem")
        #expect(throws: CryptoError.self) { try Certificate.certificates(pem: "") }
        #expect(throws: CryptoError.self) { try Certificate.certificates(pem: "no certificates here\n") }
        // Unterminated block.
        let unterminated = String(pem[..<pem.range(of: "-----END CERTIFICATE-----")!.lowerBound])
        #expect(throws: CryptoError.self) { try Certificate.certificates(pem: unterminated) }
        // Corrupted base64.
        let corrupted = pem.replacingOccurrences(of: "-----BEGIN CERTIFICATE-----\n", with: "-----BEGIN CERTIFICATE-----\n*")
        #expect(throws: CryptoError.self) { try Certificate.certificates(pem: corrupted) }
    }

    @Test func malformedDERRefused() throws {
        let leaf = try Fixtures.bytes("certificates/leaf.der")
        let trailing = #expect(throws: CryptoError.self) { try Certificate(derEncoded: leaf + [0]) }
        #expect(trailing?.code == .invalidCertificate)
        #expect(throws: CryptoError.self) { try Certificate(derEncoded: Array(leaf.dropLast())) }
        #expect(throws: CryptoError.self) { try Certificate(derEncoded: []) }
        #expect(throws: CryptoError.self) { try Certificate(derEncoded: [0x30, 0x00]) }
        #expect(throws: CryptoError.self) { try Certificate(derEncoded: try Fixtures.vector("ES256").spkiBytes) }
    }
}
