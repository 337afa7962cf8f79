import PasskeyHTTPParsing
import Testing

/// The one form encoder (RFC 3986 unreserved characters kept, every other byte of the UTF-8
/// percent-encoded) and the query appender the OAuth answers and outbound posts use.
@Suite struct FormEncodingTests {
    @Test func everyByteButTheUnreservedIsEscapedNonASCIIIncluded() throws {
        #expect(FormURLEncoded.encode("aZ09-._~") == "aZ09-._~")
        #expect(FormURLEncoded.encode("é ü+&=/?#%") == "%C3%A9%20%C3%BC%2B%26%3D%2F%3F%23%25")
        #expect(FormURLEncoded.encode([(name: "state", value: "a b"), (name: "code", value: "é")]) == "state=a%20b&code=%C3%A9")
        // What it writes reads back.
        let pairs = [(name: "n é", value: "v&=+")]
        #expect(try FormURLEncoded.pairs(FormURLEncoded.encode(pairs)).map { "\($0.name)|\($0.value)" } == ["n é|v&=+"])
    }

    @Test func appendingKeepsTheURIsQueryAndFragment() {
        #expect(FormURLEncoded.appending([(name: "code", value: "c")], to: "https://a.example/cb") == "https://a.example/cb?code=c")
        #expect(FormURLEncoded.appending([(name: "code", value: "c")], to: "https://a.example/cb?x=1") == "https://a.example/cb?x=1&code=c")
        #expect(FormURLEncoded.appending([(name: "code", value: "c")], to: "https://a.example/cb#f") == "https://a.example/cb?code=c#f")
    }
}
