import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// The sessions the user can see and end (docs/contracts/accounts.md): `GET /me/sessions`,
/// `DELETE /me/sessions/{id}`, and `last_seen_at` kept to the minute without a write per request.
@Suite struct SessionListTests {
    static func sessions(_ client: Client, _ token: String) async throws -> [[String: Any]] {
        let result = try await client.get("/me/sessions", bearer: token)
        #expect(result.status == 200, "\(String(decoding: result.body, as: UTF8.self))")
        return result.json["sessions"] as? [[String: Any]] ?? []
    }

    @Test func theAccountsSessionsAreListedAndOneCanBeEnded() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            server.clock.advance(5)
            let second = try await ceremonies.signIn("ada", credential: ada.credential, signCount: 1)
            let other = try #require(second.result.json["session"] as? String)

            let listed = try await Self.sessions(client, other)
            #expect(listed.count == 2)
            // Newest first; the asking one is current; ids are not the tokens.
            #expect(listed.map { $0["current"] as? Bool } == [true, false])
            #expect(listed.allSatisfy { ($0["id"] as? String).map { $0 != ada.session && $0 != other && $0.count == 22 } ?? false })
            #expect(listed.allSatisfy { $0["method"] as? String == "passkey" })
            #expect(listed.allSatisfy { $0["credential_id"] as? String == Base64URL.encode(ada.credential.id) })
            #expect(listed.allSatisfy { $0["ip"] as? String == "127.0.0.1" })
            #expect(listed.allSatisfy { ($0["created_at"] as? String)?.hasSuffix("Z") == true && $0["last_seen_at"] is String && $0["auth_time"] is String })
            #expect(listed.allSatisfy { $0["clients"] as? [String] == [] })
            let first = try #require(listed[1]["id"] as? String)

            // Another account cannot end it, an unknown id is 404, and ending it signs it out.
            let bob = try await TestRelyingParty.signedIn(ceremonies, "bob")
            #expect(try await client.send("DELETE", "/me/sessions/\(first)", bearer: bob.session).status == 404)
            #expect(try await client.send("DELETE", "/me/sessions/AAAAAAAAAAAAAAAAAAAAAA", bearer: other).status == 404)
            #expect(try await client.get("/me", bearer: ada.session).status == 200)
            #expect(try await client.send("DELETE", "/me/sessions/\(first)", bearer: other).status == 200)
            #expect(try await client.get("/me", bearer: ada.session).status == 401)
            #expect(try await Self.sessions(client, other).count == 1)
            let events = try await server.app.store.events(userHandle: try #require(Base64URL.decode(ada.userID)), before: nil, limit: 10)
            #expect(events.contains { $0.type == "session_ended" && $0.details["session"] == first })
            // Without a session: 401.
            #expect(try await client.get("/me/sessions").status == 401)
        }
    }

    @Test func endingASessionEndsTheApplicationsTokensFromIt() async throws {
        try await withServer { server, ceremonies, client in
            let rp = try await TestRelyingParty.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let tokens = try await rp.tokens(for: ada.session)
            let accessToken = try #require(tokens.json["access_token"] as? String)
            let second = try await ceremonies.signIn("ada", credential: ada.credential, signCount: 1)
            let other = try #require(second.result.json["session"] as? String)
            let listed = try await Self.sessions(client, other)
            let withTokens = try #require(listed.first { $0["current"] as? Bool == false })
            #expect(withTokens["clients"] as? [String] == ["wiki"])
            // The id is the sid of the tokens it gave.
            let id = try await rp.verified(try #require(tokens.json["id_token"] as? String), typ: "JWT")
            #expect(id["sid"]?.stringValue == withTokens["id"] as? String)
            #expect(try await client.send("DELETE", "/me/sessions/\(try #require(withTokens["id"] as? String))", bearer: other).status == 200)
            #expect(try await rp.userinfo(accessToken).status == 401)
        }
    }

    @Test func lastSeenIsKeptToTheMinuteWithoutAWritePerRequest() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let opened = try #require(try await Self.sessions(client, ada.session).first?["last_seen_at"] as? String)
            server.clock.advance(30)
            _ = try await client.get("/me", bearer: ada.session)
            #expect(try await Self.sessions(client, ada.session).first?["last_seen_at"] as? String == opened)
            server.clock.advance(40)
            _ = try await client.get("/me", bearer: ada.session)
            // Written in the background: it shows within a moment.
            var seen = opened
            for _ in 0..<50 where seen == opened {
                try await Task.sleep(for: .milliseconds(20))
                seen = try #require(try await Self.sessions(client, ada.session).first?["last_seen_at"] as? String)
            }
            // The time of the request that was a minute past (ISO 8601 in UTC sorts as time does).
            #expect(seen > opened && seen <= PasskeySignIn.timestamp(server.clock.now()))
        }
    }
}
