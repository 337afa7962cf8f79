import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyCrypto
import PasskeyJOSE
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// An access token the provider signed and that comes back unchanged skips the second verify
/// of its own signature; nothing else does: a token changed in any byte, or one signed by
/// another instance, is verified as before.
@Suite struct SignedTokensTests {
    @Test func onlyTheExactBytesAreKnownAndTheOldestAreForgotten() {
        let tokens = SignedTokens(capacity: 3)
        tokens.remember("a.b.c")
        #expect(tokens.signedHere("a.b.c"))
        #expect(!tokens.signedHere("a.b.d"))
        #expect(!tokens.signedHere("a.b.c "))
        tokens.remember("a.b.c")
        #expect(tokens.count == 1)
        for token in ["1", "2", "3"] { tokens.remember(token) }
        // Three at most: the first one signed went first.
        #expect(tokens.count == 3)
        #expect(!tokens.signedHere("a.b.c"))
        #expect(tokens.signedHere("1") && tokens.signedHere("2") && tokens.signedHere("3"))
        tokens.remember("4")
        #expect(!tokens.signedHere("1") && tokens.signedHere("4"))
    }

    @Test func aTokenChangedAfterSigningOrSignedElsewhereIsVerified() async throws {
        try await withServer { server, ceremonies, _ in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let accessToken = try #require(try await rp.tokens(for: ada.session).json["access_token"] as? String)
            #expect(try await rp.userinfo(accessToken).status == 200)

            // The same header and signature over other claims (a wider `scope`): refused, though
            // its signature is one this server made.
            let parts = accessToken.split(separator: ".").map(String.init)
            let jws = try JWS(compact: accessToken)
            var claims = try jws.claims()
            claims["scope"] = .string("openid profile groups email")
            let forged = [parts[0], Base64URL.encode(JSONValue.object(claims).encoded()), parts[2]].joined(separator: ".")
            #expect(try await rp.userinfo(forged).status == 401)

            // The same claims signed by another instance's keys (the same keys, from the store):
            // not signed here, so verified, and good; one changed signature byte is refused.
            let keys = SigningKeys(store: server.app.store)
            let signer = try await keys.signer(.es256, now: server.clock.now())
            let elsewhere = try JWS.sign(
                header: ["typ": .string("at+jwt"), "kid": .string(signer.record.keyID)], claims: try jws.claims(),
                key: signer.privateKey, algorithm: .es256)
            #expect(elsewhere != accessToken)
            #expect(try await rp.userinfo(elsewhere).status == 200)
            var signature = try #require(Base64URL.decodeStrict(String(elsewhere.split(separator: ".")[2])))
            signature[5] ^= 0x01
            let broken = elsewhere.split(separator: ".").prefix(2).joined(separator: ".") + "." + Base64URL.encode(signature)
            #expect(try await rp.userinfo(broken).status == 401)
        }
    }
}
