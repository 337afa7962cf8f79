import PasskeyCore
import PasskeyApple
import Testing

@Suite struct SIWAErrorTests {
    /// The codes are Sign in with Apple's own; their HTTP statuses are the server's
    /// (ErrorStatusTests).
    @Test func eachRefusalHasItsContractCode() {
        #expect(SIWAError.keysUnavailable("down").code == .keysUnavailable)
        #expect(SIWAError.keysUnavailable("down").code.rawValue == "apple_keys_unavailable")
        #expect(SIWAError.invalidToken("bad").code.rawValue == "invalid_token")
        #expect(SIWAError.nonceMismatch("n").code.rawValue == "nonce_mismatch")
    }
}
