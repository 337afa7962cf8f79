import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// Recovery codes and the recovery session (docs/contracts/accounts.md, "Account recovery").
@Suite struct RecoveryTests {
    static func codes(_ client: Client, _ session: String) async throws -> [String] {
        let made = try await client.post("/me/recovery-codes", json: [String: String](), bearer: session)
        #expect(made.status == 200, "\(String(decoding: made.body, as: UTF8.self))")
        return made.json["codes"] as? [String] ?? []
    }

    static func recover(_ client: Client, _ name: String, _ code: String) async throws -> HTTPResult {
        try await client.post("/recovery", json: ["user_name": name, "code": code])
    }

    /// registration_initialize and _finalize, both carrying `session`.
    static func register(_ server: TestServer, _ name: String, session: String?, finalizeWith: String?) async throws -> (HTTPResult, TestCredential?) {
        let client = Client(base: server.base)
        let initialize = try await client.post("/registration_initialize", json: ["user_name": name], bearer: session)
        guard initialize.status == 200, let options = initialize.json["publicKey"] as? [String: Any],
              let challenge = Base64URL.decode(options["challenge"] as? String ?? ""),
              let user = options["user"] as? [String: Any], let handle = Base64URL.decode(user["id"] as? String ?? "")
        else { return (initialize, nil) }
        let credential = try TestCredential(userHandle: handle)
        let builder = RegistrationBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge)
        return (try await client.post("/registration_finalize", bytes: try builder.json(), bearer: finalizeWith), credential)
    }

    @Test func aCodeOpensARecoverySessionThatOnlyRegistersAndThenBecomesNormal() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let codes = try await Self.codes(client, ada.session)
            #expect(codes.count == 10)
            #expect(codes.allSatisfy { $0.count == 19 && $0.split(separator: "-").count == 4 })
            #expect(Set(codes).count == 10)
            #expect(try await client.get("/me", bearer: ada.session).json["recovery_codes_left"] as? Int == 10)
            // Only keyed hashes are stored: no code appears in the database.
            if server.postgresDatabase == nil {
                let file = try Data(contentsOf: URL(fileURLWithPath: server.databasePath + "-wal")) + (try Data(contentsOf: URL(fileURLWithPath: server.databasePath)))
                #expect(!codes.contains { file.range(of: Data($0.replacingOccurrences(of: "-", with: "").utf8)) != nil })
            }

            // Typed in lower case without dashes: still the code.
            let typed = codes[2].lowercased().replacingOccurrences(of: "-", with: "")
            let opened = try await Self.recover(client, "ADA", typed)
            #expect(opened.status == 200, "\(String(decoding: opened.body, as: UTF8.self))")
            #expect(opened.json["recovery"] as? Bool == true && opened.json["user_name"] as? String == "ada")
            #expect(opened.setCookie?.contains("Max-Age=600") == true)
            let recovery = try #require(opened.json["session"] as? String)
            let me = try await client.get("/me", bearer: recovery)
            #expect(me.status == 200 && me.json["recovery"] as? Bool == true)
            #expect(me.json["recovery_codes_left"] as? Int == 9)

            // Everything else is refused.
            for (method, path) in [("GET", "/me/sessions"), ("GET", "/me/events"), ("POST", "/me/recovery-codes"), ("DELETE", "/me")] {
                let refused = try await client.send(method, path, body: method == "POST" ? Data("{}".utf8) : nil, bearer: recovery)
                #expect(refused.status == 403 && refused.error == "recovery_only", "\(method) \(path)")
            }
            // Another account's name is not this session's to register.
            _ = try await ceremonies.register("bob")
            let other = try await client.post("/registration_initialize", json: ["user_name": "bob"], bearer: recovery)
            #expect(other.status == 409 || other.status == 403)

            // A finalize without the recovery session's token opens nothing.
            let (stolen, _) = try await Self.register(server, "ada", session: recovery, finalizeWith: nil)
            #expect(stolen.status == 401)

            // Registering a passkey: the same token is now a normal session; the others ended.
            let (finalize, credential) = try await Self.register(server, "ada", session: recovery, finalizeWith: recovery)
            #expect(finalize.status == 200, "\(String(decoding: finalize.body, as: UTF8.self))")
            #expect(finalize.json["session"] as? String == recovery)
            let after = try await client.get("/me", bearer: recovery)
            #expect(after.json["recovery"] as? Bool == false)
            let ids = (after.json["credentials"] as? [[String: Any]])?.compactMap { $0["credential_id"] as? String } ?? []
            #expect(Set(ids) == [Base64URL.encode(ada.credential.id), Base64URL.encode(try #require(credential).id)])
            #expect(try await client.get("/me", bearer: ada.session).status == 401)
            #expect(try await client.get("/me/sessions", bearer: recovery).status == 200)
            let sessions = try await server.app.store.sessions(userHandle: try #require(Base64URL.decode(ada.userID)), now: server.clock.now())
            #expect(sessions.count == 1 && sessions.first?.isRecovery == false)
            let types = try await server.app.store.events(userHandle: try #require(Base64URL.decode(ada.userID)), before: nil, limit: 5).map(\.type)
            #expect(types.prefix(2) == ["registration", "recovery_started"])

            // Spent: the same code again is refused.
            #expect(try await Self.recover(client, "ada", codes[2]).error == "invalid_recovery_code")
        }
    }

    @Test func aWrongCodeAnUnknownNameAndADisabledAccountAnswerAlike() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let codes = try await Self.codes(client, ada.session)
            let wrong = try await Self.recover(client, "ada", "AAAA-AAAA-AAAA-AAAA")
            let unknown = try await Self.recover(client, "nobody", codes[0])
            let malformed = try await Self.recover(client, "ada", "not a code")
            for answer in [wrong, unknown, malformed] {
                #expect(answer.status == 400 && answer.body == wrong.body && answer.setCookie == nil)
            }
            _ = try await AccountAdministration(store: server.app.store).disable(userName: "ada", by: "test", now: server.clock.now())
            let disabled = try await Self.recover(client, "ada", codes[0])
            #expect(disabled.status == 400 && disabled.body == wrong.body)
            // Nothing was spent.
            #expect(try await server.app.store.recoveryCodeCount(userHandle: try #require(Base64URL.decode(ada.userID))) == 10)
        }
    }

    @Test func everyAttemptCountsAndAGoodCodeRefusedWith429StaysUnspent() async throws {
        try await withServer({ $0.rateLimitRecovery = 3 }) { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let codes = try await Self.codes(client, ada.session)
            // The limit counts in hourly windows: a run that crosses the hour must not refill it.
            server.clock.freeze()
            for _ in 0..<3 { #expect(try await Self.recover(client, "ada", "AAAA-AAAA-AAAA-AAAA").status == 400) }
            let limited = try await Self.recover(client, "ada", codes[0])
            #expect(limited.status == 429 && limited.error == "rate_limited")
            #expect(try await server.app.store.recoveryCodeCount(userHandle: try #require(Base64URL.decode(ada.userID))) == 10)
            // The address is limited too, whatever the name.
            #expect(try await Self.recover(client, "someone-else", codes[0]).status == 429)
            // An hour later the good code works.
            server.clock.advance(3600)
            #expect(try await Self.recover(client, "ada", codes[0]).status == 200)
        }
    }

    @Test func aRecoverySessionLastsTenMinutesAndIsNoSignInForTheProvider() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let codes = try await Self.codes(client, ada.session)
            let recovery = try #require(try await Self.recover(client, "ada", codes[0]).json["session"] as? String)
            let authorize = try await client.get("/oauth/authorize?client_id=x&response_type=code", bearer: recovery)
            #expect(authorize.status == 403 && authorize.error == "recovery_only")
            server.clock.advance(601)
            #expect(try await client.get("/me", bearer: recovery).status == 401)
        }
    }

    @Test func makingCodesNeedsAStepUpAndANewSetVoidsTheOld() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let first = try await Self.codes(client, ada.session)
            server.clock.advance(301)
            let stale = try await client.post("/me/recovery-codes", json: [String: String](), bearer: ada.session)
            #expect(stale.status == 401 && stale.error == "reauthentication_required")
            let (_, stepped) = try await StepUpTests.reauthenticate(server, ada.session, credential: ada.credential, signCount: 1)
            #expect(stepped.status == 200)
            let second = try await Self.codes(client, ada.session)
            #expect(Set(first).isDisjoint(with: second))
            #expect(try await Self.recover(client, "ada", first[0]).error == "invalid_recovery_code")
            #expect(try await Self.recover(client, "ada", second[0]).status == 200)
        }
    }

    @Test func codesTurnedOffAreRefusedAndNotCounted() async throws {
        try await withServer({ $0.recoveryCodes = false }) { _, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let made = try await client.post("/me/recovery-codes", json: [String: String](), bearer: ada.session)
            #expect(made.status == 403 && made.error == "recovery_codes_disabled")
            #expect(try await Self.recover(client, "ada", "AAAA-AAAA-AAAA-AAAA").error == "recovery_codes_disabled")
            let me = try await client.get("/me", bearer: ada.session)
            #expect(me.json.keys.contains("recovery_codes_left") && me.json["recovery_codes_left"] is NSNull)
        }
    }

    @Test func withADelayTheRecoveryWaitsAndTheOwnerCanCancelIt() async throws {
        try await withServer({ $0.recoveryDelay = 3600 }) { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let codes = try await Self.codes(client, ada.session)
            // Time moves only when the test moves it: the seconds left are exact.
            server.clock.freeze()
            let started = try await Self.recover(client, "ada", codes[0])
            #expect(started.status == 202 && started.setCookie == nil, "\(String(decoding: started.body, as: UTF8.self))")
            #expect(started.json["status"] as? String == "waiting" && started.json["seconds_left"] as? Int == 3600)
            let id = try #require(started.json["recovery_id"] as? String)
            // The code is spent at once; wrong codes still answer as before.
            #expect(try await Self.recover(client, "ada", codes[0]).error == "invalid_recovery_code")
            #expect(try await Self.recover(client, "nobody", codes[1]).error == "invalid_recovery_code")

            // The owner sees it and says "this wasn't me".
            let me = try await client.get("/me", bearer: ada.session)
            let waiting = try #require((me.json["waiting_recoveries"] as? [[String: Any]])?.first)
            #expect(waiting["ip"] as? String == "127.0.0.1")
            server.clock.advance(1800)
            let status = try await client.get("/recovery/" + id)
            #expect(status.status == 200 && status.json["status"] as? String == "waiting" && status.json["seconds_left"] as? Int == 1800)
            #expect(status.setCookie == nil)
            let publicID = try #require(waiting["id"] as? String)
            #expect(try await client.send("DELETE", "/me/recoveries/" + publicID, bearer: ada.session).status == 200)
            #expect(try await client.send("DELETE", "/me/recoveries/" + publicID, bearer: ada.session).status == 404)
            server.clock.advance(1800)
            let cancelled = try await client.get("/recovery/" + id)
            #expect(cancelled.status == 200 && cancelled.json["status"] as? String == "cancelled" && cancelled.setCookie == nil)
            #expect((try await client.get("/me", bearer: ada.session).json["waiting_recoveries"] as? [Any])?.isEmpty == true)

            // Not cancelled: once the delay is over, the recovery session opens, once.
            let second = try #require(try await Self.recover(client, "ada", codes[1]).json["recovery_id"] as? String)
            #expect(try await client.get("/recovery/" + second).json["status"] as? String == "waiting")
            server.clock.advance(3600)
            let opened = try await client.get("/recovery/" + second)
            #expect(opened.status == 200 && opened.json["recovery"] as? Bool == true && opened.setCookie?.contains("Max-Age=600") == true)
            let session = try #require(opened.json["session"] as? String)
            #expect(try await client.get("/me", bearer: session).json["recovery"] as? Bool == true)
            #expect(try await client.get("/recovery/" + second).status == 404)
            #expect(try await client.get("/recovery/" + Base64URL.encode([UInt8](repeating: 1, count: 32))).status == 404)
            #expect(try await client.get("/recovery/short").status == 404)
            // A recovery session cannot cancel the owner's veto list or anything else.
            #expect(try await client.send("DELETE", "/me/recoveries/x", bearer: session).error == "recovery_only")
        }
    }

}
