import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJOSE
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Synchronization
import Testing

/// Taking an account back from an intruder: a completed recovery or reset link, and an admin's disable or "end sessions", end every
/// other session with its applications told by back-channel logout, and a recovery or reset
/// revokes every grant of the account, offline refresh tokens included.
@Suite struct TakingAccountsBackTests {
    /// The intruder's holdings: a session, and a client's online and offline tokens from it.
    struct Holdings {
        let session: String
        let online: [String: Any]
        let offline: [String: Any]
    }

    static func intruder(_ server: TestServer, _ ceremonies: Ceremonies, _ rp: TestRelyingParty) async throws -> (Holdings, (session: String, userID: String, credential: TestCredential)) {
        let ada = try await TestRelyingParty.signedIn(ceremonies)
        let online = try await OpenIDLogoutTests.tokens(rp, session: ada.session)
        let offline = try await OpenIDLogoutTests.tokens(rp, session: ada.session, scope: "openid offline_access")
        return (Holdings(session: ada.session, online: online, offline: offline), ada)
    }

    static func rp(_ server: TestServer, _ backChannel: BackChannelStandIn) async throws -> TestRelyingParty {
        try await TestRelyingParty.register(server) {
            $0.backchannelLogoutURI = backChannel.uri
            $0.scopes = ["openid", "profile", "offline_access"]
        }
    }

    /// Nothing the intruder held still works, and the client was told of the session.
    static func expectLockedOut(
        _ holdings: Holdings, _ rp: TestRelyingParty, _ client: Client, _ backChannel: BackChannelStandIn, offlineToo: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(try await client.get("/me", bearer: holdings.session).status == 401, sourceLocation: sourceLocation)
        #expect(try await rp.userinfo(holdings.online["access_token"] as? String ?? "").status == 401, sourceLocation: sourceLocation)
        if offlineToo {
            #expect(try await rp.userinfo(holdings.offline["access_token"] as? String ?? "").status == 401, sourceLocation: sourceLocation)
            let refresh = try await rp.token([("grant_type", "refresh_token"), ("refresh_token", holdings.offline["refresh_token"] as? String ?? "")])
            #expect(refresh.status == 400 && refresh.error == "invalid_grant", sourceLocation: sourceLocation)
        }
        let tokens = try await backChannel.waitForTokens(1)
        #expect(tokens.count >= 1, "no back-channel logout", sourceLocation: sourceLocation)
        let idClaims = try await rp.verified(holdings.online["id_token"] as? String ?? "", typ: "JWT")
        if let token = tokens.first {
            let claims = try await rp.verified(token, typ: "logout+jwt")
            #expect(claims["sid"] == idClaims["sid"], sourceLocation: sourceLocation)
        }
    }

    @Test func aCompletedRecoveryLocksTheIntruderOutEverywhere() async throws {
        let backChannel = await BackChannelStandIn.start()
        defer { Task { await backChannel.stop() } }
        try await withServer { server, ceremonies, client in
            let rp = try await Self.rp(server, backChannel)
            let (holdings, ada) = try await Self.intruder(server, ceremonies, rp)
            let codes = try await RecoveryTests.codes(client, ada.session)
            // The owner, with a code: a recovery session, then a new passkey.
            let opened = try await RecoveryTests.recover(client, "ada", codes[0])
            let recovery = try #require(opened.json["session"] as? String)
            // Until the recovery completes, nothing is taken from anyone.
            #expect(try await client.get("/me", bearer: holdings.session).status == 200)
            let (finalize, _) = try await RecoveryTests.register(server, "ada", session: recovery, finalizeWith: recovery)
            #expect(finalize.status == 200, "\(String(decoding: finalize.body, as: UTF8.self))")
            try await Self.expectLockedOut(holdings, rp, client, backChannel)
            // The owner's own session stands, and may get tokens again.
            #expect(try await client.get("/me", bearer: recovery).status == 200)
            let again = try await OpenIDLogoutTests.tokens(rp, session: recovery, scope: "openid offline_access")
            #expect(again["refresh_token"] is String)
        }
    }

    @Test func aResetLinkLocksTheIntruderOutEverywhere() async throws {
        let backChannel = await BackChannelStandIn.start()
        defer { Task { await backChannel.stop() } }
        try await withServer { server, ceremonies, client in
            let rp = try await Self.rp(server, backChannel)
            let (holdings, _) = try await Self.intruder(server, ceremonies, rp)
            let reset = try await InvitationTests.link(server, "ada")
            let (_, finalize, _) = try await InvitationTests.register(server, invite: reset)
            #expect(finalize?.status == 200)
            try await Self.expectLockedOut(holdings, rp, client, backChannel)
        }
    }

    @Test func anAdminEndingTheSessionsOrDisablingTellsTheApplications() async throws {
        for action in ["sessions", "disable"] {
            let backChannel = await BackChannelStandIn.start()
            try await withServer { server, ceremonies, client in
                let rp = try await Self.rp(server, backChannel)
                let (holdings, ada) = try await Self.intruder(server, ceremonies, rp)
                let token = try await AdminAPITests.token(server)
                let path = "/admin/api/users/" + ada.userID
                let answer = action == "sessions"
                    ? try await AdminAPITests.send(client, "DELETE", path + "/sessions", token: token)
                    : try await AdminAPITests.send(client, "PATCH", path, json: ["disabled": true], token: token)
                #expect(answer.status == 200, "\(action)")
                try await Self.expectLockedOut(holdings, rp, client, backChannel)
            }
            await backChannel.stop()
        }
    }

    /// The command line runs in another process and sends nothing: it queues the notices in the
    /// database, and the serving instance sends them within seconds.
    @Test func theCommandLinesDisableRevokeAndDeleteTellTheApplications() async throws {
        for verb in ["disable", "revoke-sessions", "delete"] {
            let backChannel = await BackChannelStandIn.start()
            try await withServer { server, ceremonies, client in
                let rp = try await Self.rp(server, backChannel)
                let (holdings, _) = try await Self.intruder(server, ceremonies, rp)
                let run = try await CommandRun.run(["users", verb, "ada", "--database", server.databasePath])
                #expect(run.status == 0, "\(verb): \(run.errors)")
                // From the command's end: the child's own start-up is not the server's to answer
                // for, and under the whole suite's load it has taken more than 10 s.
                let started = Date()
                if verb == "delete" {
                    #expect(try await client.get("/me", bearer: holdings.session).status == 401)
                    let tokens = try await backChannel.waitForTokens(1)
                    #expect(tokens.count == 1, "\(verb)")
                } else {
                    try await Self.expectLockedOut(holdings, rp, client, backChannel)
                }
                #expect(Date().timeIntervalSince(started) < 15, "\(verb): the notice took too long")
                // Sent once: the queue is empty afterwards.
                #expect(try await server.app.store.takeLogoutNotices(limit: 10).isEmpty)
                try await Task.sleep(for: .seconds(3))
                #expect(backChannel.tokens.withLock { $0.count } == 1, "\(verb): sent more than once")
            }
            await backChannel.stop()
        }
    }
}
