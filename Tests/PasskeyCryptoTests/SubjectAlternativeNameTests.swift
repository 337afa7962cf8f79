import Foundation
import PasskeyCrypto
import Testing

/// Certificate.subjectAlternativeDNSNames over the certificates of
/// Fixtures/subject-alt-names/generate.py (pyca/cryptography; malformed extensions byte by byte).
@Suite("subjectAltName dNSName")
struct SubjectAlternativeNameTests {
    struct Description: Decodable {
        struct Entry: Decodable, Sendable {
            let file: String
            /// nil: reading the names must throw.
            let dnsNames: [String]?

            enum CodingKeys: String, CodingKey {
                case file, dnsNames = "dns_names"
            }
        }
        let certificates: [Entry]
    }

    static let directory = "subject-alt-names/"
    static let wellFormed = ["mixed.der", "no-extension.der", "no-dns-name.der"]
    static let malformed = [
        "dns-name-not-ia5.der", "empty-general-names.der", "unknown-general-name-tag.der",
        "primitive-directory-name.der", "trailing-bytes.der", "not-a-sequence.der", "truncated.der",
    ]

    static func entry(_ file: String) throws -> Description.Entry {
        let description = try Fixtures.json(Description.self, directory + "subject-alt-names.json")
        return try #require(description.certificates.first { $0.file == file }, "no entry for \(file)")
    }

    @Test func everyFixtureIsCovered() throws {
        let description = try Fixtures.json(Description.self, Self.directory + "subject-alt-names.json")
        #expect(description.certificates.map(\.file).sorted() == (Self.wellFormed + Self.malformed).sorted())
    }

    @Test(arguments: wellFormed)
    func readsDNSNamesInOrder(_ file: String) throws {
        let expected = try #require(try Self.entry(file).dnsNames)
        let certificate = try Certificate(derEncoded: Fixtures.bytes(Self.directory + file))
        #expect(try certificate.subjectAlternativeDNSNames == expected)
    }

    /// The other GeneralName kinds (rfc822Name, URI, iPAddress, directoryName, otherName,
    /// registeredID) are skipped, and names keep their case.
    @Test func skipsOtherGeneralNames() throws {
        let certificate = try Certificate(derEncoded: Fixtures.bytes(Self.directory + "mixed.der"))
        #expect(try certificate.subjectAlternativeDNSNames == ["attest.android.com", "*.Example.ORG"])
        #expect(certificate.extensionValue(oid: Certificate.subjectAlternativeNameOID) != nil)
    }

    /// A certificate whose extension is malformed still parses (the extension is only read on
    /// demand), but its names cannot be read.
    @Test(arguments: malformed)
    func refusesMalformedExtension(_ file: String) throws {
        #expect(try Self.entry(file).dnsNames == nil)
        let certificate = try Certificate(derEncoded: Fixtures.bytes(Self.directory + file))
        #expect(certificate.extensionValue(oid: Certificate.subjectAlternativeNameOID) != nil)
        #expect(throws: CryptoError.self) { try certificate.subjectAlternativeDNSNames }
    }
}
