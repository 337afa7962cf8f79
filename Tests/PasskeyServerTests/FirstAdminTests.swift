import Foundation
import Logging
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// The first admin: while the admin group has no member, each start logs a one-time setup link
/// (`/setup?token=`, an hour, one use, only its hash kept) whose registrant names the account,
/// which joins the admin group; every such link dies once the group has a member.
@Suite struct FirstAdminTests {
    static func setupLink(_ server: TestServer) async throws -> String? {
        try await AccountAdministration(store: server.app.store).firstAdminLink(adminGroup: "admins", now: server.clock.now())
    }

    /// registration_initialize with the setup link and a name → the authenticator → finalize.
    static func register(_ server: TestServer, token: String, name: String?) async throws -> (initialize: HTTPResult, finalize: HTTPResult?) {
        let client = Client(base: server.base)
        var body: [String: Any] = ["invite": token]
        if let name { body["user_name"] = name }
        let initialize = try await client.post("/registration_initialize", json: body)
        guard initialize.status == 200, let options = initialize.json["publicKey"] as? [String: Any],
              let challenge = Base64URL.decode(options["challenge"] as? String ?? ""),
              let user = options["user"] as? [String: Any], let handle = Base64URL.decode(user["id"] as? String ?? "")
        else { return (initialize, nil) }
        let builder = RegistrationBuilder(credential: try TestCredential(userHandle: handle), rpID: "localhost", origin: server.origin, challenge: challenge)
        return (initialize, try await client.post("/registration_finalize", bytes: try builder.json()))
    }

    @Test func theStartLogsASetupLinkWhileNoAdminExists() async throws {
        let sink = LogSink()
        // The repository's page, which /setup serves.
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Public").path
        try await withServer({ $0.registration = .closed; $0.publicDirectory = page }, logger: Logger(label: "test") { _ in sink }) { server, _, client in
            let line = try #require(sink.lines.first { $0.contains("/setup?token=") }, "\(sink.lines)")
            #expect(line.hasPrefix("notice"))
            let url = try #require(line.split(separator: " ").first { $0.hasPrefix("http") }.map(String.init))
            #expect(url.hasPrefix(server.origin + "/setup?token="))
            let token = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "token" }?.value)
            // The logged link works, as a page and as an invitation.
            let page = try await client.get("/setup?token=" + token)
            #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("app.js"))
            let shown = try await client.post("/invitation", json: ["invite": token])
            #expect(shown.json["first_admin"] as? Bool == true && shown.json["user_name"] as? String == "")
            // Making the link writes no audit event (a server restarted until someone sets it up
            // would write one each time).
            #expect(try await server.app.store.events(userHandle: nil, since: nil, after: nil, limit: 50).isEmpty)
        }
    }

    @Test func theSetupLinkMakesTheFirstAdminOnceAndThenEveryLinkDies() async throws {
        try await withServer({ $0.registration = .closed }) { server, _, client in
            let older = try #require(try await Self.setupLink(server))
            let token = try #require(try await Self.setupLink(server))
            // A name is needed, and a taken one is refused without spending the link.
            #expect(try await Self.register(server, token: token, name: nil).initialize.json["error"] as? String == "invalid_request")
            let (initialize, finalize) = try await Self.register(server, token: token, name: "Root")
            #expect(((initialize.json["publicKey"] as? [String: Any])?["user"] as? [String: Any])?["name"] as? String == "Root")
            #expect(finalize?.status == 200, "\(String(decoding: finalize?.body ?? Data(), as: UTF8.self))")
            let session = try #require(finalize?.json["session"] as? String)
            // The account is an admin: the admin API lets its fresh session in.
            #expect(try await client.get("/admin/api/users", bearer: session).status == 200)
            // Spent, and the older link died with it: the group has a member now.
            for link in [token, older] {
                #expect(try await client.post("/invitation", json: ["invite": link]).json["error"] as? String == "invalid_invite")
                #expect(try await client.post("/registration_initialize", json: ["invite": link, "user_name": "Second"]).json["error"] as? String == "invalid_invite")
            }
            // No new link while an admin exists.
            #expect(try await Self.setupLink(server) == nil)
            #expect(try await server.app.store.user(nameKey: "second") == nil)
        }
    }

    @Test func aSetupLinkDiesWhenAnAdminIsMadeAnotherWay() async throws {
        try await withServer { server, ceremonies, client in
            let token = try #require(try await Self.setupLink(server))
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            #expect(try await Self.register(server, token: token, name: "ada").initialize.json["error"] as? String == "user_exists")
            try await AdminAPITests.makeAdmin(server, ada.userID)
            #expect(try await client.post("/invitation", json: ["invite": token]).json["error"] as? String == "invalid_invite")
            #expect(try await Self.register(server, token: token, name: "Mallory").initialize.json["error"] as? String == "invalid_invite")
            #expect(try await server.app.store.user(nameKey: "mallory") == nil)
        }
    }

    @Test func aSetupLinkExpiresAfterAnHour() async throws {
        try await withServer { server, _, client in
            let token = try #require(try await Self.setupLink(server))
            server.clock.advance(AccountAdministration.setupLinkLifetime + 1)
            #expect(try await client.post("/invitation", json: ["invite": token]).json["error"] as? String == "invalid_invite")
            #expect(try await Self.register(server, token: token, name: "Late").initialize.json["error"] as? String == "invalid_invite")
        }
    }
}
