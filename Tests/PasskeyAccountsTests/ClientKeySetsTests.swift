import Foundation
@testable import PasskeyAccounts
import Testing

/// How long a fetched client key set is kept (docs/contracts/identity.md, "Machine and agent clients").
@Suite struct ClientKeySetsTests {
    @Test func aKeySetIsKeptAsItsCacheControlSaysWithinAMinuteAndADay() {
        #expect(ClientKeySets.lifetime(cacheControl: nil) == 300)
        #expect(ClientKeySets.lifetime(cacheControl: "public, max-age=7200") == 7200)
        #expect(ClientKeySets.lifetime(cacheControl: "max-age=5") == 60)
        #expect(ClientKeySets.lifetime(cacheControl: "max-age=9999999") == 86400)
        #expect(ClientKeySets.lifetime(cacheControl: "no-store") == 60)
        #expect(ClientKeySets.lifetime(cacheControl: "max-age=abc") == 300)
    }
}
