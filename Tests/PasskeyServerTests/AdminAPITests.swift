import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyCrypto
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyStoreContract
import PasskeyTestSupport
import Testing

/// The admin API (docs/contracts/accounts.md, "Administration"): who may call it, and what it does.
@Suite struct AdminAPITests {
    static func makeAdmin(_ server: TestServer, _ userID: String) async throws {
        _ = try await server.app.store.addToGroup(userHandle: try #require(Base64URL.decode(userID)), name: "admins", nameKey: "admins", event: nil)
    }

    static func credential(for user: UserRecord, at: Date) -> CredentialRecord {
        CredentialRecord(
            id: SecureRandom.bytes(16), userHandle: user.handle, publicKey: [0xA5, 0x01, 0x02], algorithm: -7, signCount: 0, transports: [],
            backupEligible: false, backupState: false, uvInitialized: true, aaguid: [UInt8](repeating: 0, count: 16),
            attestationFormat: "none", attestationType: "none", attestationTrusted: false, authenticatorName: nil, name: "Passkey",
            createdAt: at, lastUsedAt: nil, possiblyCloned: false)
    }

    static func token(_ server: TestServer, _ name: String = "ci") async throws -> String {
        try await AccountAdministration(store: server.app.store).createAdminToken(name: name, now: server.clock.now())
    }

    static func send(_ client: Client, _ method: String, _ path: String, json: Any? = nil, token: String) async throws -> HTTPResult {
        try await client.send(method, path, body: try json.map { try JSONSerialization.data(withJSONObject: $0) }, bearer: token)
    }

    @Test func onlyAnAdminWithAFreshStepUpOrAnAdminTokenGetsIn() async throws {
        try await withServer { server, ceremonies, client in
            #expect(try await client.get("/admin/api/users").error == "unauthorized")
            let ada = try await TestRelyingParty.signedIn(ceremonies, "ada")
            let bob = try await TestRelyingParty.signedIn(ceremonies, "bob")
            let notAdmin = try await client.get("/admin/api/users", bearer: bob.session)
            #expect(notAdmin.status == 403 && notAdmin.error == "forbidden")
            try await Self.makeAdmin(server, ada.userID)
            #expect(try await client.get("/admin/api/users", bearer: ada.session).status == 200)
            #expect(try await client.get("/admin/api/users", cookie: ada.session).status == 200)
            server.clock.advance(301)
            let stale = try await client.get("/admin/api/users", bearer: ada.session)
            #expect(stale.status == 401 && stale.error == "reauthentication_required")

            let token = try await Self.token(server)
            #expect(token.hasPrefix("pka_"))
            #expect(try await client.get("/admin/api/users", bearer: token).status == 200)
            // Beside a non-admin's session cookie, an admin token is refused.
            let beside = try await client.get("/admin/api/users", bearer: token, cookie: bob.session)
            #expect(beside.status == 403 && beside.error == "forbidden")
            // A token that is not one, and a revoked one.
            #expect(try await client.get("/admin/api/users", bearer: "pka_" + Base64URL.encode([UInt8](repeating: 7, count: 32))).status == 401)
            #expect(try await AccountAdministration(store: server.app.store).revokeAdminToken(name: "ci", now: server.clock.now()) == true)
            #expect(try await client.get("/admin/api/users", bearer: token).status == 401)
            // An unknown sub is 404 for an admin.
            let other = try await Self.token(server, "other")
            #expect(try await client.get("/admin/api/users/" + Base64URL.encode([UInt8](repeating: 1, count: 32)), bearer: other).status == 404)
            #expect(try await client.get("/admin/api/users/not-a-sub", bearer: other).status == 404)
        }
    }

    @Test func theUserListPagesByCursorInAStableOrder() async throws {
        try await withServer { server, _, client in
            for name in ["erin", "ada", "dave", "carol", "bob", "adam"] {
                let user = UserRecord.newAccount(try UserName(name), displayName: name, createdAt: server.clock.now())
                try await #require(server.app.store as? any StoreFixtures).registerCredential(Self.credential(for: user, at: server.clock.now()), newUser: user)
            }
            let token = try await Self.token(server)
            var names: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let path = "/admin/api/users?limit=4" + (cursor.map { "&cursor=" + $0 } ?? "")
                let page = try await client.get(path, bearer: token)
                #expect(page.status == 200)
                names += (page.json["users"] as? [[String: Any]] ?? []).compactMap { $0["user_name"] as? String }
                cursor = page.json["next_cursor"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(names == ["ada", "adam", "bob", "carol", "dave", "erin"])
            #expect(pages == 2)
            let found = try await client.get("/admin/api/users?query=AD", bearer: token)
            #expect((found.json["users"] as? [[String: Any]])?.compactMap { $0["user_name"] as? String } == ["ada", "adam"])
            #expect(try await client.get("/admin/api/users?cursor=%00%01", bearer: token).error == "invalid_request")
            #expect(try await client.get("/admin/api/users?limit=0", bearer: token).error == "invalid_request")
        }
    }

    @Test func anAdminDisablesEndsSessionsDeletesAPasskeyAndTheAccountEachAnEventNamingTheAdmin() async throws {
        try await withServer { server, ceremonies, client in
            let bob = try await TestRelyingParty.signedIn(ceremonies, "bob")
            let second = try await ceremonies.register("bob", session: bob.session)
            #expect(second.result.status == 200)
            let token = try await Self.token(server)
            let path = "/admin/api/users/" + bob.userID
            let shown = try await client.get(path, bearer: token)
            #expect(shown.json["user_name"] as? String == "bob")
            #expect((shown.json["credentials"] as? [Any])?.count == 2)
            #expect((shown.json["sessions"] as? [Any])?.count == 2)
            #expect(shown.json["recovery_codes_left"] as? Int == 0)

            let patched = try await Self.send(client, "PATCH", path, json: ["display_name": "Bob B.", "groups": ["staff", "Ops"], "disabled": true], token: token)
            #expect(patched.status == 200, "\(String(decoding: patched.body, as: UTF8.self))")
            #expect(patched.json["display_name"] as? String == "Bob B." && patched.json["disabled"] as? Bool == true)
            #expect(patched.json["groups"] as? [String] == ["Ops", "staff"])
            #expect(try await client.get("/me", bearer: bob.session).status == 401)
            // A bad member changes nothing.
            let refused = try await Self.send(client, "PATCH", path, json: ["display_name": "x", "groups": [7]], token: token)
            #expect(refused.status == 400)
            #expect(try await client.get(path, bearer: token).json["display_name"] as? String == "Bob B.")
            _ = try await Self.send(client, "PATCH", path, json: ["disabled": false, "groups": ["staff"]], token: token)
            #expect(try await client.get(path, bearer: token).json["groups"] as? [String] == ["staff"])

            let signedIn = try await ceremonies.signIn("bob", credential: bob.credential, signCount: 1)
            #expect(signedIn.result.status == 200)
            let ended = try await Self.send(client, "DELETE", path + "/sessions", token: token)
            #expect(ended.json["ended"] as? Int == 1)

            let credentialPath = path + "/credentials/" + Base64URL.encode(second.credential.id)
            #expect(try await Self.send(client, "DELETE", credentialPath, token: token).status == 200)
            #expect(try await Self.send(client, "DELETE", credentialPath, token: token).status == 404)

            let reset = try await Self.send(client, "POST", path + "/invite", token: token)
            #expect(reset.status == 201 && reset.json["reset"] as? Bool == true)
            #expect((reset.json["url"] as? String)?.hasPrefix(server.origin + "/?invite=") == true)

            let events = try await client.get("/admin/api/events?user=" + bob.userID, bearer: token)
            let byAdmin = (events.json["events"] as? [[String: Any]] ?? []).filter { ($0["details"] as? [String: String])?["by"] == "token:ci" }
            #expect(Set(byAdmin.compactMap { $0["type"] as? String }).isSuperset(of: [
                "display_name_changed", "group_joined", "group_left", "account_disabled", "account_enabled", "session_ended", "credential_deleted",
                "reset_link_created",
            ]))
            let typed = try await client.get("/admin/api/events?type=account_disabled&user=" + bob.userID, bearer: token)
            #expect((typed.json["events"] as? [[String: Any]])?.count == 1)

            #expect(try await Self.send(client, "DELETE", path, token: token).status == 200)
            #expect(try await client.get(path, bearer: token).status == 404)
            #expect(try await server.app.store.user(nameKey: "bob") == nil)
        }
    }

    @Test func anInvitationFromTheAPIJoinsItsGroupsWhenUsed() async throws {
        try await withServer({ $0.registration = .closed }) { server, _, client in
            let token = try await Self.token(server)
            // A display name refused changes nothing: no link is made.
            let bad = try await Self.send(client, "POST", "/admin/api/users", json: ["user_name": "Carol", "display_name": 7], token: token)
            #expect(bad.status == 400)
            let control = try await Self.send(client, "POST", "/admin/api/users", json: ["user_name": "Carol", "display_name": "a\u{7}b"], token: token)
            #expect(control.status == 400)
            let made = try await Self.send(
                client, "POST", "/admin/api/users", json: ["user_name": "Carol", "display_name": "Carol Example", "groups": ["staff"]], token: token)
            #expect(made.status == 201 && made.json["reset"] as? Bool == false)
            let url = try #require(made.json["url"] as? String)
            let invite = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "invite" }?.value)
            let (_, finalize, _) = try await InvitationTests.register(server, invite: invite)
            #expect(finalize?.status == 200)
            let carol = try #require(try await server.app.store.user(nameKey: "carol"))
            #expect(try await server.app.store.groups(userHandle: carol.handle).map(\.name) == ["staff"])
            // The registration gave no display name: the invitation's is the account's.
            #expect(carol.displayName == "Carol Example")
            // A taken name is 409.
            let taken = try await Self.send(client, "POST", "/admin/api/users", json: ["user_name": "carol"], token: token)
            #expect(taken.status == 409 && taken.error == "user_exists")
            let groups = try await client.get("/admin/api/groups", bearer: token)
            #expect((groups.json["groups"] as? [[String: Any]])?.first?["name"] as? String == "staff")
        }
    }

    @Test func clientsAreAddedListedAndRemoved() async throws {
        try await withServer { server, _, client in
            let token = try await Self.token(server)
            let added = try await Self.send(
                client, "POST", "/admin/api/clients",
                json: ["client_id": "wiki", "name": "Wiki", "redirect_uris": ["https://wiki.example/cb"]], token: token)
            #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
            #expect((added.json["client_secret"] as? String)?.isEmpty == false)
            let listed = try await client.get("/admin/api/clients", bearer: token)
            #expect((listed.json["clients"] as? [[String: Any]])?.first?["client_id"] as? String == "wiki")
            #expect((listed.json["clients"] as? [[String: Any]])?.first?["client_secret"] == nil)
            let bad = try await Self.send(client, "POST", "/admin/api/clients", json: ["client_id": "x", "redirect_uris": ["ftp://x"]], token: token)
            #expect(bad.status == 400)
            #expect(try await Self.send(client, "DELETE", "/admin/api/clients/wiki", token: token).status == 200)
            #expect(try await Self.send(client, "DELETE", "/admin/api/clients/wiki", token: token).status == 404)
            // Both changes are audit events naming the admin; the refused one is none.
            let addedEvents = try await client.get("/admin/api/events?type=client_added", bearer: token)
            let removed = try await client.get("/admin/api/events?type=client_removed", bearer: token)
            for page in [addedEvents, removed] {
                let events = page.json["events"] as? [[String: Any]] ?? []
                #expect(events.count == 1 && (events.first?["details"] as? [String: String]) == ["client_id": "wiki", "by": "token:ci"])
            }
        }
    }
}
