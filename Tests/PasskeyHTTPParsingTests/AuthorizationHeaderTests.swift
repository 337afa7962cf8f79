import PasskeyHTTPParsing
import Testing

/// `AuthorizationHeader`: the scheme without case, the token without the spaces and tabs
/// around it (RFC 9110's optional whitespace) and nothing else taken away.
@Suite struct AuthorizationHeaderTests {
    @Test func aBearerTokenIsReadWithoutTheWhitespaceAroundIt() {
        #expect(AuthorizationHeader.bearer("Bearer abc") == "abc")
        #expect(AuthorizationHeader.bearer("bEaReR \t abc.def-_ \t ") == "abc.def-_")
        #expect(AuthorizationHeader.bearer("Bearer a b") == "a b")
        #expect(AuthorizationHeader.bearer("Bearer \t") == "")
        // Only spaces and tabs are optional whitespace: a no-break space is part of the token
        // (which then matches no session), as is a line feed.
        #expect(AuthorizationHeader.bearer("Bearer abc\u{00A0}") == "abc\u{00A0}")
        #expect(AuthorizationHeader.bearer("Bearer abc\n") == "abc\n")
        #expect(AuthorizationHeader.bearer("Bearer é ") == "é")
        #expect(AuthorizationHeader.bearer("Basic abc") == nil)
        #expect(AuthorizationHeader.bearer("Bearer") == nil)
        #expect(AuthorizationHeader.bearer("") == nil)
    }
}
