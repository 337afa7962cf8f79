import Foundation
import PasskeyAssociation
import Testing

@Suite struct RelatedOriginsTests {
    @Test(arguments: [
        ("example.com", "example"), ("login.example.com", "example"), ("shop.example.co.uk", "example"),
        ("example.co.uk", "example"), ("a.b.example.com.au", "example"), ("EXAMPLE.org.", "example"),
    ])
    func labelIsTheOneBeforeThePublicSuffix(_ host: String, _ label: String) {
        #expect(RegistrableDomain.label(of: host) == label)
    }

    @Test(arguments: ["com", "co.uk", "localhost", "127.0.0.1", "::1", ""])
    func noLabelForPublicSuffixesAndAddresses(_ host: String) {
        #expect(RegistrableDomain.label(of: host) == nil)
    }

    @Test func publicSuffixes() {
        #expect(RegistrableDomain.isPublicSuffix("com"))
        #expect(RegistrableDomain.isPublicSuffix("co.uk"))
        #expect(!RegistrableDomain.isPublicSuffix("example.com"))
        #expect(!RegistrableDomain.isPublicSuffix("example.co.uk"))
    }

    @Test func fiveLabelsAreAccepted() throws {
        let related = try RelatedOrigins([
            "https://shop.one.com", "https://one.co.uk", "https://two.com", "https://THREE.com:443/", "https://four.com",
            "https://five.com", "https://www.five.com", "https://two.com",
        ])
        #expect(related.labels == ["one", "two", "three", "four", "five"])
        // Normalised and without duplicates, in the order given.
        #expect(related.origins == ["https://shop.one.com", "https://one.co.uk", "https://two.com", "https://three.com", "https://four.com", "https://five.com", "https://www.five.com"])
        let document = try JSONSerialization.jsonObject(with: Data(related.document)) as? [String: Any]
        #expect(document?["origins"] as? [String] == related.origins)
        #expect(document?.count == 1)
    }

    @Test func aSixthLabelIsRefused() throws {
        do {
            _ = try RelatedOrigins(["https://one.com", "https://two.com", "https://three.com", "https://four.com", "https://five.com", "https://six.com"])
            Issue.record("six labels accepted")
        } catch {
            #expect(error.message.contains("6 different registrable domain labels"))
            #expect(error.message.contains("six (https://six.com)"))
            #expect(error.message.contains("Fix:"))
        }
    }

    @Test(arguments: ["http://shop.example", "https://127.0.0.1", "https://localhost:8443", "https://co.uk", "android:apk-key-hash:abc", "https://x.com/path", "not an origin"])
    func refusesOriginsClientsWouldIgnore(_ origin: String) {
        #expect(throws: RelatedOrigins.Invalid.self) { try RelatedOrigins([origin]) }
    }
}
