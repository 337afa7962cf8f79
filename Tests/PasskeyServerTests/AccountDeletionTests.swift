import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// `DELETE /me` (docs/contracts/accounts.md, "Deleting the account"): step-up and the user name to confirm;
/// everything of the account goes in one transaction, its events stay under its opaque handle
/// without names, its applications hear a back-channel logout, and the name is free again.
@Suite struct AccountDeletionTests {
    @Test func theAccountIsDeletedWholeAndItsApplicationsAreTold() async throws {
        let backChannel = await BackChannelStandIn.start()
        defer { Task { await backChannel.stop() } }
        try await withServer { server, ceremonies, client in
            let rp = try await TestRelyingParty.register(server) { $0.backchannelLogoutURI = backChannel.uri }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let handle = try #require(Base64URL.decode(ada.userID))
            let tokens = try await rp.tokens(for: ada.session)
            _ = try await server.app.store.addToGroup(userHandle: handle, name: "Staff", nameKey: "staff", event: nil)

            // Anything but the user name changes nothing.
            for body in [["confirm": "ADA"], ["confirm": "bob"], [:]] as [[String: String]] {
                let refused = try await client.send("DELETE", "/me", body: try JSONSerialization.data(withJSONObject: body), bearer: ada.session)
                #expect(refused.status == 400 && refused.json["error"] as? String == "invalid_request")
            }
            #expect(try await client.send("DELETE", "/me", bearer: ada.session).status == 400)
            #expect(try await client.get("/me", bearer: ada.session).status == 200)
            // A stale session steps up first.
            server.clock.advance(301)
            let stale = try await client.send("DELETE", "/me", body: Data(#"{"confirm":"ada"}"#.utf8), bearer: ada.session)
            #expect(stale.status == 401 && stale.json["error"] as? String == "reauthentication_required")
            _ = try await StepUpTests.reauthenticate(server, ada.session, credential: ada.credential, signCount: 1)

            let deleted = try await client.send("DELETE", "/me", body: Data(#"{"confirm":"ada"}"#.utf8), bearer: ada.session)
            #expect(deleted.status == 200, "\(String(decoding: deleted.body, as: UTF8.self))")
            #expect(deleted.json["status"] as? String == "deleted")
            #expect(deleted.json["credential_ids"] as? [String] == [Base64URL.encode(ada.credential.id)])
            #expect(deleted.setCookie?.contains("Max-Age=0") == true)
            #expect(try await client.get("/me", bearer: ada.session).status == 401)
            #expect(try await rp.userinfo(try #require(tokens.json["access_token"] as? String)).status == 401)
            let store = server.app.store
            #expect(try await store.user(handle: handle) == nil)
            #expect(try await store.credential(id: ada.credential.id) == nil)
            #expect(try await store.groups(userHandle: handle).isEmpty)
            #expect(try await store.grants(userHandle: handle).isEmpty)
            // The events stay under the opaque handle, without the passkey's name.
            let events = try await store.events(userHandle: handle, before: nil, limit: 50)
            #expect(events.first?.type == "account_deleted")
            #expect(events.contains { $0.type == "registration" })
            #expect(events.allSatisfy { $0.details["name"] == nil })
            // The application is told.
            let received = try await backChannel.waitForTokens(1)
            let logout = try await rp.verified(try #require(received.first), typ: "logout+jwt")
            #expect(logout["sub"]?.stringValue == ada.userID)
            // The name is free again; the new account is another subject.
            let again = try await TestRelyingParty.signedIn(ceremonies)
            #expect(again.userID != ada.userID)
        }
    }
}
