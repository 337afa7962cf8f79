import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// Invitation and reset links (docs/contracts/accounts.md, "Account recovery"): an operator's one-time link
/// creates the account it names, whatever `--registration` says, or registers a new passkey to
/// an existing one and ends its other sessions; used or expired, it is `invalid_invite`.
@Suite struct InvitationTests {
    static func link(_ server: TestServer, _ name: String, ttl: TimeInterval = 86400) async throws -> String {
        let url = try await AccountAdministration(store: server.app.store).invite(
            userName: name, ttl: ttl, origin: server.origin, by: "test", now: server.clock.now())
        return try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "invite" }?.value)
    }

    /// registration_initialize with the invitation → the authenticator → finalize.
    static func register(_ server: TestServer, invite: String) async throws -> (initialize: HTTPResult, finalize: HTTPResult?, credential: TestCredential?) {
        let client = Client(base: server.base)
        let initialize = try await client.post("/registration_initialize", json: ["invite": invite])
        guard initialize.status == 200, let options = initialize.json["publicKey"] as? [String: Any],
              let challenge = Base64URL.decode(options["challenge"] as? String ?? ""),
              let user = options["user"] as? [String: Any], let handle = Base64URL.decode(user["id"] as? String ?? "")
        else { return (initialize, nil, nil) }
        let credential = try TestCredential(userHandle: handle)
        let builder = RegistrationBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge)
        return (initialize, try await client.post("/registration_finalize", bytes: try builder.json()), credential)
    }

    @Test func anInvitationOpensTheAccountItNamesOnceEvenWithRegistrationClosed() async throws {
        try await withServer({ $0.registration = .closed }) { server, _, client in
            let invite = try await Self.link(server, "Newbie")
            let shown = try await client.post("/invitation", json: ["invite": invite])
            #expect(shown.status == 200)
            #expect(shown.json["user_name"] as? String == "Newbie" && shown.json["reset"] as? Bool == false)
            let (initialize, finalize, _) = try await Self.register(server, invite: invite)
            #expect(((initialize.json["publicKey"] as? [String: Any])?["user"] as? [String: Any])?["name"] as? String == "Newbie")
            #expect(finalize?.status == 200, "\(String(decoding: finalize?.body ?? Data(), as: UTF8.self))")
            let session = try #require(finalize?.json["session"] as? String)
            #expect(try await client.get("/me", bearer: session).json["user_name"] as? String == "Newbie")
            // Once: the link is spent.
            #expect(try await client.post("/invitation", json: ["invite": invite]).json["error"] as? String == "invalid_invite")
            #expect(try await client.post("/registration_initialize", json: ["invite": invite]).json["error"] as? String == "invalid_invite")
            // Registration stays closed for everyone else.
            #expect(try await client.get("/registration_initialize?user_name=other").status == 403)
        }
    }

    @Test func aResetLinkAddsAPasskeyAndEndsTheOtherSessions() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let invite = try await Self.link(server, "ADA")
            #expect(try await client.post("/invitation", json: ["invite": invite]).json["reset"] as? Bool == true)
            let (_, finalize, credential) = try await Self.register(server, invite: invite)
            #expect(finalize?.status == 200)
            let session = try #require(finalize?.json["session"] as? String)
            #expect(try await client.get("/me", bearer: ada.session).status == 401)
            let me = try await client.get("/me", bearer: session)
            #expect(me.json["user_name"] as? String == "ada")
            let ids = (me.json["credentials"] as? [[String: Any]])?.compactMap { $0["credential_id"] as? String } ?? []
            #expect(Set(ids) == [Base64URL.encode(ada.credential.id), Base64URL.encode(try #require(credential).id)])
        }
    }

    @Test func aLinkIsRefusedOnceExpiredAndWhenSpentByAConcurrentFinalize() async throws {
        try await withServer { server, _, client in
            let stale = try await Self.link(server, "late", ttl: 60)
            server.clock.advance(61)
            #expect(try await client.post("/invitation", json: ["invite": stale]).json["error"] as? String == "invalid_invite")
            #expect(try await client.post("/invitation", json: ["invite": "not-a-token"]).status == 400)

            // Two ceremonies with one link: the first finalize spends it, the second stores nothing.
            let invite = try await Self.link(server, "twice")
            let first = try await client.post("/registration_initialize", json: ["invite": invite])
            let second = try await client.post("/registration_initialize", json: ["invite": invite])
            func finalize(_ initialize: HTTPResult) async throws -> HTTPResult {
                let options = try #require(initialize.json["publicKey"] as? [String: Any])
                let handle = try #require(Base64URL.decode((options["user"] as? [String: Any])?["id"] as? String ?? ""))
                let builder = RegistrationBuilder(
                    credential: try TestCredential(userHandle: handle), rpID: "localhost", origin: server.origin,
                    challenge: try #require(Base64URL.decode(options["challenge"] as? String ?? "")))
                return try await client.post("/registration_finalize", bytes: try builder.json())
            }
            #expect(try await finalize(first).status == 200)
            let refused = try await finalize(second)
            #expect(refused.status == 400 && refused.json["error"] as? String == "invalid_invite")
            let user = try #require(try await server.app.store.user(nameKey: "twice"))
            #expect(try await server.app.store.credentials(userHandle: user.handle).count == 1)
        }
    }
}
