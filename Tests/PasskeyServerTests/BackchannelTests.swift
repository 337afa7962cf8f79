import Foundation
import Hummingbird
import PasskeyApp
import PasskeyCrypto
import PasskeyJSON
import PasskeyPush
@testable import PasskeyAccounts
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Synchronization
import Testing

/// A CIBA ping client's notification endpoint on 127.0.0.1: records each POST (its
/// `Authorization` and body); with `hang`, never answers.
final class PingStandIn: Sendable {
    final class Log: Sendable {
        let entries = Mutex<[(authorization: String?, body: [String: String])]>([])
    }

    let log: Log
    private let server: LocalServer
    var url: String { "http://127.0.0.1:\(server.port)/ciba" }

    private init(server: LocalServer, log: Log) {
        self.server = server
        self.log = log
    }

    static func start(hang: Bool = false) async -> PingStandIn {
        let log = Log()
        let router = Router()
        router.post("/ciba") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 16)
            let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: String] ?? [:]
            log.entries.withLock { $0.append((request.headers[.authorization], object)) }
            if hang { try await Task.sleep(for: .seconds(3600)) }
            return Response(status: .noContent)
        }
        return PingStandIn(server: await LocalServer.start(router: router), log: log)
    }

    /// Waits for the `count`-th notification.
    func notification(_ count: Int) async throws -> (authorization: String?, body: [String: String]) {
        for _ in 0..<200 {
            let all = log.entries.withLock { $0 }
            if all.count >= count { return all[count - 1] }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw POSIXError(.ETIMEDOUT)
    }

    func stop() async { await server.stop() }
}

/// Client-initiated backchannel authentication (docs/contracts/identity.md, "Approval on the
/// phone"): a client asks at `/oauth/bc-authorize`, the push goes to the user's enrolled phone
/// (the webhook stand-in), the device simulator answers, the client polls or is pinged, then
/// redeems its tokens once.
@Suite struct BackchannelTests {
    /// A CIBA client with a secret; no redirect URI.
    static func agent(_ server: TestServer, id: String = "agent", mode: String = "poll", endpoint: String? = nil) async throws -> TestRelyingParty {
        try await TestRelyingParty.register(server, id: id) { registration in
            registration.name = "Support desk"
            registration.redirectURIs = []
            registration.cibaMode = mode
            registration.notificationEndpoint = endpoint
        }
    }

    static func ask(_ agent: TestRelyingParty, _ parameters: [(String, String)], basic: Bool = true) async throws -> HTTPResult {
        var headers: [String: String] = [:]
        var parameters = parameters
        if basic, let secret = agent.secret {
            headers["Authorization"] = "Basic " + Data("\(agent.clientID):\(secret)".utf8).base64EncodedString()
        } else {
            parameters.append(("client_id", agent.clientID))
        }
        return try await agent.raw("POST", "/oauth/bc-authorize", headers: headers, body: TestRelyingParty.form(parameters))
    }

    static func standard(_ name: String = "ada", message: String? = "Call #42") -> [(String, String)] {
        [("scope", "openid profile"), ("login_hint", name)] + (message.map { [("binding_message", $0)] } ?? [])
    }

    static func poll(_ agent: TestRelyingParty, _ id: String) async throws -> HTTPResult {
        try await agent.token([("grant_type", OpenIDProvider.cibaGrant), ("auth_req_id", id)])
    }

    @Test func pollApproveOnThePhoneAndRedeemOnce() async throws {
        try await PushSignInTests.withPush { push in
            push.server.clock.freeze()
            let (session, deviceID) = try await push.enrolled("ada")
            let agent = try await Self.agent(push.server)
            let other = try await Self.agent(push.server, id: "other")
            let discovery = try await push.client.get("/.well-known/openid-configuration").json
            #expect(discovery["backchannel_authentication_endpoint"] as? String == push.server.origin + "/oauth/bc-authorize")
            #expect(discovery["backchannel_token_delivery_modes_supported"] as? [String] == ["poll", "ping"])
            #expect((discovery["grant_types_supported"] as? [String])?.contains(OpenIDProvider.cibaGrant) == true)

            let asked = try await Self.ask(agent, Self.standard())
            #expect(asked.status == 200, "\(String(decoding: asked.body, as: UTF8.self))")
            let id = try #require(asked.json["auth_req_id"] as? String)
            #expect(asked.json["expires_in"] as? Int == 300 && asked.json["interval"] as? Int == 5)
            // The push: the seed's data for this device, and the ciba member.
            let sent = try await push.gateway.push(1)
            #expect(sent["deviceId"] as? String == deviceID)
            let data = try #require(sent["data"] as? [String: String])
            #expect(data["numberChallenge"] == nil)
            let ciba = try #require(JSONValue.strictObject(Array((data["ciba"] ?? "").utf8)))
            #expect(ciba["client_name"]?.stringValue == "Support desk" && ciba["binding_message"]?.stringValue == "Call #42")
            #expect(ciba["ip"]?.stringValue == "127.0.0.1")

            // The first poll may come at once; the next too soon is slow_down, and the interval grows.
            #expect(try await Self.poll(agent, id).error == "authorization_pending")
            #expect(try await Self.poll(agent, id).error == "slow_down")
            push.server.clock.advance(6)
            #expect(try await Self.poll(agent, id).error == "slow_down")  // each slow_down adds 5 s: now 15
            push.server.clock.advance(16)
            #expect(try await Self.poll(agent, id).error == "authorization_pending")
            // Another client's poll of this id: invalid_grant, and nothing of the request changes.
            #expect(try await Self.poll(other, id).error == "invalid_grant")

            let approved = try await push.answer(sent)
            #expect(approved.status == 202, "\(String(decoding: approved.body, as: UTF8.self))")
            #expect(try await push.answer(sent).error == "already_answered")
            push.server.clock.advance(16)
            let tokens = try await Self.poll(agent, id)
            #expect(tokens.status == 200, "\(String(decoding: tokens.body, as: UTF8.self))")
            let idToken = try await agent.verified(try #require(tokens.json["id_token"] as? String), typ: "JWT")
            #expect(idToken["amr"]?.arrayValue?.compactMap(\.stringValue) == ["swk", "user", "mfa"])
            #expect(idToken["acr"] == nil)
            #expect(idToken["sid"]?.stringValue != nil)
            let access = try #require(tokens.json["access_token"] as? String)
            #expect(try await agent.userinfo(access).status == 200)
            // Polling after success: the id is used up.
            push.server.clock.advance(16)
            #expect(try await Self.poll(agent, id).error == "invalid_grant")

            // The approval is a session of its own, which the account sees and "sign out
            // everywhere" ends, and the tokens with it.
            let sessions = try #require(try await push.client.get("/me/sessions", bearer: session).json["sessions"] as? [[String: Any]])
            #expect(sessions.contains { $0["method"] as? String == "ciba" })
            let events = try await EventsTests.events(push.client, session).items.compactMap { $0["type"] as? String }
            #expect(events.contains("ciba_requested") && events.contains("ciba_approved"))
            #expect(try await push.client.post("/logout", json: ["everywhere": true], bearer: session).status == 200)
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await agent.userinfo(access).status == 401)

            // The ID token it got is a hint for the next request; another client's is not.
            let hinted = try await Self.ask(agent, [("scope", "openid"), ("id_token_hint", try #require(tokens.json["id_token"] as? String))])
            #expect(hinted.status == 200, "\(String(decoding: hinted.body, as: UTF8.self))")
            let foreign = try await Self.ask(other, [("scope", "openid"), ("id_token_hint", try #require(tokens.json["id_token"] as? String))])
            #expect(foreign.error == "invalid_request")
        }
    }

    @Test func hostileRequestsAreRefusedAndPushNothing() async throws {
        try await PushSignInTests.withPush({ $0.cibaRate = 3 }) { push in
            _ = try await push.enrolled("ada")
            _ = try await push.ceremonies.register("nophone")
            let agent = try await Self.agent(push.server)
            let plain = try await TestRelyingParty.register(push.server, id: "plain")
            let cases: [([(String, String)], String)] = [
                (Self.standard(message: "Line\nbreak"), "invalid_binding_message"),
                (Self.standard(message: String(repeating: "x", count: 65)), "invalid_binding_message"),
                (Self.standard(message: "zero\u{200B}width"), "invalid_binding_message"),
                ([("scope", "openid"), ("login_hint_token", "x")], "invalid_request"),
                ([("scope", "openid"), ("login_hint", "ada"), ("id_token_hint", "x")], "invalid_request"),
                ([("scope", "openid")], "invalid_request"),
                ([("scope", "openid"), ("id_token_hint", "not.a.token")], "invalid_request"),
                ([("scope", "profile"), ("login_hint", "ada")], "invalid_scope"),
                (Self.standard() + [("requested_expiry", "601")], "invalid_request"),
                (Self.standard() + [("requested_expiry", "-1")], "invalid_request"),
                (Self.standard() + [("acr_values", "gold")], "invalid_request"),
                (Self.standard("nobody"), "unknown_user_id"),
                (Self.standard("nophone"), "unknown_user_id"),
            ]
            for (parameters, error) in cases {
                let answer = try await Self.ask(agent, parameters)
                #expect(answer.status == 400 && answer.error == error, "\(parameters) → \(answer.status) \(answer.error ?? "")")
            }
            // Unknown and phone-less users are told apart by nothing.
            #expect(try await Self.ask(agent, Self.standard("nobody")).json["error_description"] as? String
                == (try await Self.ask(agent, Self.standard("nophone")).json["error_description"] as? String))
            #expect(try await Self.ask(plain, Self.standard()).error == "unauthorized_client")
            // At the token endpoint: a client not registered for CIBA, and no auth_req_id.
            #expect(try await Self.poll(plain, "x").error == "unauthorized_client")
            #expect(try await agent.token([("grant_type", OpenIDProvider.cibaGrant)]).error == "invalid_request")
            // The client's groups, and a disabled account: access_denied, saying which.
            let staffOnly = try await TestRelyingParty.register(push.server, id: "staff-desk") { registration in
                registration.redirectURIs = []
                registration.cibaMode = "poll"
                registration.allowedGroups = ["staff"]
            }
            let outsider = try await Self.ask(staffOnly, Self.standard())
            #expect(outsider.error == "access_denied" && (outsider.json["error_description"] as? String)?.contains("may not sign in") == true)
            _ = try await push.enrolled("dora")
            let dora = try #require(try await push.server.app.store.user(nameKey: "dora"))
            _ = try await push.server.app.store.setUserDisabled(handle: dora.handle, disabled: true, event: nil)
            let disabled = try await Self.ask(agent, Self.standard("dora"))
            #expect(disabled.error == "access_denied" && (disabled.json["error_description"] as? String)?.contains("disabled") == true)
            var wrongSecret = agent
            wrongSecret = TestRelyingParty(server: push.server, clientID: agent.clientID, secret: "wrong")
            #expect(try await Self.ask(wrongSecret, Self.standard()).status == 401)
            try await Task.sleep(for: .milliseconds(200))
            #expect(push.gateway.pushes.isEmpty)

            // Fatigue: one pending request per user and client; --ciba-rate a user an hour.
            let first = try await Self.ask(agent, Self.standard())
            #expect(first.status == 200)
            let second = try await Self.ask(agent, Self.standard())
            #expect(second.error == "access_denied" && (second.json["error_description"] as? String)?.contains("waiting") == true)
            let desk2 = try await Self.agent(push.server, id: "desk2"), desk3 = try await Self.agent(push.server, id: "desk3")
            #expect(try await Self.ask(desk2, Self.standard()).status == 200)
            let third = try await Self.ask(desk3, Self.standard())
            #expect(third.status == 200)
            let flood = try await Self.ask(try await Self.agent(push.server, id: "desk4"), Self.standard())
            #expect(flood.error == "access_denied" && (flood.json["error_description"] as? String)?.contains("hour") == true)
            // Three pushes (handed to the provider in the background), and no more.
            _ = try await push.gateway.push(3)
            try await Task.sleep(for: .milliseconds(300))
            #expect(push.gateway.pushes.count == 3)
            // The first request still stands: the phone can deny it, which is final.
            let firstID = try #require(first.json["auth_req_id"] as? String)
            let firstPushID = try await push.server.app.store.backchannelRequest(idHash: Digest.sha256.hash(Array(firstID.utf8)))?.pushID
            let firstPush = try #require(push.gateway.pushes.first { ($0["data"] as? [String: String])?["pushId"] == firstPushID })
            #expect(try await push.answer(firstPush, approve: false).status == 202)
            #expect(try await Self.poll(agent, firstID).error == "access_denied")
            // A request nobody answers expires.
            push.server.clock.advance(301)
            #expect(try await Self.poll(desk3, try #require(third.json["auth_req_id"] as? String)).error == "expired_token")
        }
    }

    /// A ping client is told once the user answered, with its notification token; a ping
    /// endpoint that never answers holds up neither the phone's answer nor the tokens.
    @Test func pingClientsAreToldAndAHangingEndpointBlocksNothing() async throws {
        let ping = await PingStandIn.start()
        let hanging = await PingStandIn.start(hang: true)
        try await PushSignInTests.withPush { push in
            _ = try await push.enrolled("ada")
            let agent = try await Self.agent(push.server, mode: "ping", endpoint: ping.url)
            let stuck = try await Self.agent(push.server, id: "stuck", mode: "ping", endpoint: hanging.url)
            #expect(try await Self.ask(agent, Self.standard()).error == "invalid_request")  // no client_notification_token
            let asked = try await Self.ask(agent, Self.standard() + [("client_notification_token", "nt-123")])
            let id = try #require(asked.json["auth_req_id"] as? String)
            let approved = try await push.answer(try await push.gateway.push(1))
            #expect(approved.status == 202)
            let told = try await ping.notification(1)
            #expect(told.authorization == "Bearer nt-123")
            #expect(told.body == ["auth_req_id": id])
            #expect(try await Self.poll(agent, id).status == 200)

            let stuckAsked = try await Self.ask(stuck, Self.standard() + [("client_notification_token", "nt-9")])
            let stuckID = try #require(stuckAsked.json["auth_req_id"] as? String)
            let started = ContinuousClock.now
            #expect(try await push.answer(try await push.gateway.push(2)).status == 202)
            _ = try await hanging.notification(1)
            #expect(try await Self.poll(stuck, stuckID).status == 200)
            #expect(ContinuousClock.now - started < .seconds(30))
        }
        await ping.stop()
        await hanging.stop()
    }

    /// The page lists the pending requests; approving needs a recent passkey ceremony and
    /// gives the tokens the passkey's class; denying is final; another id is not_found.
    @Test func theSignedInPageListsApprovesAndDenies() async throws {
        try await PushSignInTests.withPush { push in
            let (session, _) = try await push.enrolled("ada")
            let agent = try await Self.agent(push.server)
            let other = try await Self.agent(push.server, id: "other")
            let id = try #require(try await Self.ask(agent, Self.standard()).json["auth_req_id"] as? String)
            let deniedID = try #require(
                try await Self.ask(other, Self.standard(message: nil) + [("requested_expiry", "600")]).json["auth_req_id"] as? String)
            let listed = try #require(try await push.client.get("/me/approvals", bearer: session).json["approvals"] as? [[String: Any]])
            #expect(listed.count == 2)
            #expect(listed.first?["client_name"] as? String == "Support desk" && listed.first?["binding_message"] as? String == "Call #42")
            #expect(listed.first?["ip"] as? String == "127.0.0.1" && listed.last?["binding_message"] is NSNull)
            let approvalID = try #require(listed.first?["id"] as? String)
            #expect(try await push.client.post("/me/approvals/nope", json: ["decision": "approve"], bearer: session).status == 404)
            #expect(try await push.client.post("/me/approvals/\(approvalID)", json: ["decision": "maybe"], bearer: session).status == 400)
            #expect(try await push.client.get("/me/approvals").status == 401)

            // Within the step-up window the session's passkey approves: the tokens carry its class.
            #expect(try await push.client.post("/me/approvals/\(approvalID)", json: ["decision": "approve"], bearer: session).status == 200)
            let tokens = try await Self.poll(agent, id)
            #expect(tokens.status == 200, "\(String(decoding: tokens.body, as: UTF8.self))")
            let idToken = try await agent.verified(try #require(tokens.json["id_token"] as? String), typ: "JWT")
            #expect(idToken["acr"]?.stringValue == "phr")
            #expect(idToken["amr"]?.arrayValue?.compactMap(\.stringValue) == ["hwk", "user", "mfa"])

            // Past it, denying still works, approving asks for a step-up.
            push.server.clock.advance(301)
            #expect(try await push.client.post("/me/approvals/\(try #require(listed.last?["id"] as? String))", json: ["decision": "deny"], bearer: session).status == 200)
            #expect(try await Self.poll(other, deniedID).error == "access_denied")
            _ = try await Self.ask(agent, Self.standard())
            let pending = try #require(try await push.client.get("/me/approvals", bearer: session).json["approvals"] as? [[String: Any]])
            let stale = try await push.client.post("/me/approvals/\(try #require(pending.first?["id"] as? String))", json: ["decision": "approve"], bearer: session)
            #expect(stale.status == 401 && stale.error == "reauthentication_required")
        }
    }

    /// The device simulator (`push-device answer`) answers a CIBA push as it answers a sign-in's,
    /// with `--deny` too.
    @Test func theDeviceSimulatorAnswersCIBAPushes() async throws {
        try await PushSignInTests.withPush { push in
            let (keyFile, server) = try await push.enrolledSimulator("ada")
            let agent = try await Self.agent(push.server)
            let other = try await Self.agent(push.server, id: "other")
            for (index, (client, deny)) in [(agent, false), (other, true)].enumerated() {
                let id = try #require(try await Self.ask(client, Self.standard()).json["auth_req_id"] as? String)
                let sent = try await push.gateway.push(index + 1)
                let answered = try await CommandRun.run(
                    ["push-device", "answer", String(decoding: try JSONSerialization.data(withJSONObject: sent), as: UTF8.self), "--key", keyFile,
                     "--server", server] + (deny ? ["--deny"] : []))
                #expect(answered.status == 0, "\(answered.errors) \(answered.output)")
                let polled = try await Self.poll(client, id)
                #expect(deny ? polled.error == "access_denied" : polled.status == 200, "\(polled.json)")
            }
        }
    }
}
