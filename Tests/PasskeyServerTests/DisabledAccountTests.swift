import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyStoreContract
import PasskeyTestSupport
import Testing

/// A disabled account (docs/contracts/accounts.md, "Administration"): its OpenID tokens end with its sessions,
/// and a session that somehow outlived the disabling is not honoured.
@Suite struct DisabledAccountTests {
    @Test func disablingEndsTheApplicationsTokensAndNoSessionOfItIsHonoured() async throws {
        try await withServer { server, ceremonies, client in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let tokens = try await rp.tokens(for: ada.session)
            let accessToken = try #require(tokens.json["access_token"] as? String)
            let refreshToken = try #require(tokens.json["refresh_token"] as? String)
            let administration = AccountAdministration(store: server.app.store)
            #expect(try await administration.disable(userName: "ada", by: "test", now: server.clock.now()))
            #expect(try await rp.userinfo(accessToken).status == 401)
            #expect(try await rp.token([("grant_type", "refresh_token"), ("refresh_token", refreshToken)]).json["error"] as? String == "invalid_grant")
            #expect(try await client.get("/me", bearer: ada.session).status == 401)

            // A session written after the disabling (a race with a sign-in) is still refused.
            let handle = try #require(Base64URL.decode(ada.userID))
            let (token, record) = server.app.service.sessions.newSession(userHandle: handle, credentialID: nil)
            try await #require(server.app.store as? any StoreFixtures).insertSession(record)
            #expect(try await client.get("/me", bearer: token).status == 401)
            #expect(try await administration.enable(userName: "ada", by: "test", now: server.clock.now()))
            #expect(try await client.get("/me", bearer: token).status == 200)
        }
    }
}
