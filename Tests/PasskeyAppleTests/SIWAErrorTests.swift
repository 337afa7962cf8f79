import PasskeyCore
import PasskeyApple
import Testing

@Suite struct SIWAErrorTests {
    @Test func keysUnavailableIsA503() {
        #expect(SIWAError.keysUnavailable("down").status == 503)
        #expect(SIWAError.invalidToken("bad").status == 400)
    }
}
