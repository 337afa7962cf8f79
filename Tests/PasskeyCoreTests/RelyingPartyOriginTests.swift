import PasskeyCore
import Testing

/// Origins keep the order they were configured in: "the server's own URL" is the first web
/// origin, the same on every instance and after every restart (a set's first element is not).
@Suite struct RelyingPartyOriginTests {
    static let configured = [
        "https://login.example.com", "https://www.example.com", "android:apk-key-hash:abc", "https://shop.example.com",
        "https://a.example.com", "https://b.example.com", "https://c.example.com", "https://d.example.com",
        "https://e.example.com", "android:apk-key-hash:def",
    ]

    @Test func thePrimaryOriginIsTheFirstWebOriginConfigured() throws {
        let rp = try RelyingParty(id: "example.com", name: "Example", origins: Self.configured)
        #expect(rp.pageOrigin == "https://login.example.com")
        #expect(rp.webOrigins == Self.configured.filter { !$0.hasPrefix("android:") })
        #expect(rp.appOrigins == ["android:apk-key-hash:abc", "android:apk-key-hash:def"])
        #expect(rp.origins == Set(Self.configured))
    }

    @Test func anAppOriginFirstIsNeverThePrimary() throws {
        let rp = try RelyingParty(id: "example.com", name: "Example", origins: ["android:apk-key-hash:abc", "HTTPS://Example.com:443/"])
        #expect(rp.pageOrigin == "https://example.com")
        // With app origins only, the page is https on the RP ID.
        let apps = try RelyingParty(id: "example.com", name: "Example", origins: ["android:apk-key-hash:abc"])
        #expect(apps.pageOrigin == "https://example.com")
    }

    @Test func repeatsAreDroppedAndSetOriginsKeepsTheOrder() throws {
        var rp = try RelyingParty(id: "example.com", name: "Example", origins: ["https://b.example.com", "https://B.example.com", "https://a.example.com"])
        #expect(rp.webOrigins == ["https://b.example.com", "https://a.example.com"])
        try rp.setOrigins(["http://localhost:8080", "https://z.example.com"])
        #expect(rp.pageOrigin == "http://localhost:8080")
        #expect(rp.origins == ["http://localhost:8080", "https://z.example.com"])
    }
}
