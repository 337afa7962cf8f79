import PasskeyHTTPParsing
import Testing

/// docs/contracts/identity.md's redirect-URI comparison: exact strings, the port of an http loopback URI aside.
@Suite struct RedirectURITests {
    @Test func exactStringsOnly() {
        let registered = "https://wiki.example/callback"
        #expect(RedirectURI.matches("https://wiki.example/callback", registered: registered))
        for other in [
            "https://wiki.example/callback/", "https://WIKI.example/callback", "https://wiki.example/Callback",
            "https://wiki.example/callback?x=1", "https://wiki.example/callback/../callback", "https://wiki.example:443/callback",
            "https://wiki.example/%63allback", "https://wiki.example.evil/callback", "https://wiki.example/callbackx",
            "http://wiki.example/callback", "https://wiki.example/callback#", "",
        ] {
            #expect(!RedirectURI.matches(other, registered: registered), "\(other)")
        }
    }

    /// RFC 8252 §7.3: any port on a loopback http URI, nothing else looser.
    @Test func theLoopbackPortIsLeftOut() {
        #expect(RedirectURI.matches("http://127.0.0.1:51234/cb", registered: "http://127.0.0.1/cb"))
        #expect(RedirectURI.matches("http://127.0.0.1/cb", registered: "http://127.0.0.1:8080/cb"))
        #expect(RedirectURI.matches("http://[::1]:9/cb?a=1", registered: "http://[::1]/cb?a=1"))
        #expect(RedirectURI.matches("http://localhost:3000/", registered: "http://localhost/"))
        for other in [
            "http://127.0.0.1:51234/cb2", "http://127.0.0.2:5/cb", "http://LOCALHOST:1/cb", "http://a@127.0.0.1:1/cb",
            "http://127.0.0.1:123456/cb", "http://127.0.0.1:/cb", "http://127.0.0.1:1x/cb", "https://127.0.0.1:1/cb",
            "http://[::1]:1/cb", "http://127.0.0.1.evil:1/cb",
        ] {
            #expect(!RedirectURI.matches(other, registered: "http://127.0.0.1/cb"), "\(other)")
        }
        #expect(!RedirectURI.matches("http://wiki.example:81/cb", registered: "http://wiki.example/cb"))
        #expect(RedirectURI.match("http://localhost:7/cb", in: ["https://a.example/cb", "http://localhost/cb"]) == "http://localhost/cb")
        #expect(RedirectURI.match("http://localhost:7/other", in: ["http://localhost/cb"]) == nil)
    }
}
