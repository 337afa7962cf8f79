import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyApp
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// `GET /me/events`: the signed-in account's own audit trail, newest first, paged by cursor.
@Suite struct EventsTests {
    static func events(_ client: Client, _ token: String, _ query: String = "") async throws -> (items: [[String: Any]], next: String?) {
        let result = try await client.get("/me/events" + query, bearer: token)
        try #require(result.status == 200, "\(String(decoding: result.body, as: UTF8.self))")
        return (result.json["events"] as? [[String: Any]] ?? [], result.json["next_before"] as? String)
    }

    @Test func anAccountSeesItsOwnEventsAndNeverAnothers() async throws {
        try await withServer { _, ceremonies, client in
            let (registered, credential, _) = try await ceremonies.register("alice")
            let token = try #require(registered.json["session"] as? String)
            let (bobRegistered, bobCredential, _) = try await ceremonies.register("bob")
            let bobToken = try #require(bobRegistered.json["session"] as? String)
            _ = try await ceremonies.signIn("bob", credential: bobCredential, signCount: 1)

            let signedIn = try await ceremonies.signIn("alice", credential: credential, signCount: 4)
            let second = try #require(signedIn.result.json["session"] as? String)
            // A regressed counter is refused and recorded.
            #expect(try await ceremonies.signIn("alice", credential: credential, signCount: 2).result.error == "counter_regression")
            let id = Base64URL.encode(credential.id)
            #expect(try await client.send("PATCH", "/credentials/\(id)", body: Data(#"{"name":"Laptop"}"#.utf8), bearer: token).status == 200)
            #expect(try await client.send("POST", "/logout", body: Data("{}".utf8), bearer: second, headers: ["User-Agent": "PasskeyTest/2.0"]).status == 200)

            let (items, next) = try await Self.events(client, token)
            #expect(next == nil)
            // The last page says so with an explicit null.
            let raw = String(decoding: try await client.get("/me/events", bearer: token).body, as: UTF8.self)
            #expect(raw.contains(#""next_before":null"#))
            #expect(items.map { $0["type"] as? String } == ["session_ended", "credential_renamed", "counter_regression", "sign_in", "registration"])
            #expect(items.allSatisfy { ($0["ip"] as? String) == "127.0.0.1" })
            #expect(items.first?["user_agent"] as? String == "PasskeyTest/2.0")
            #expect((items.first?["details"] as? [String: String])?["everywhere"] == "false")
            #expect((items[1]["details"] as? [String: String])?["name"] == "Laptop")
            #expect((items[2]["details"] as? [String: String])?["credential"] == id)
            #expect((items[3]["details"] as? [String: String])?["method"] == "passkey")
            #expect((items.last?["at"] as? String)?.hasSuffix("Z") == true)
            // Nothing of bob's, and bob sees only his.
            #expect(items.allSatisfy { (($0["details"] as? [String: String])?["credential"]).map { $0 != Base64URL.encode(bobCredential.id) } ?? true })
            let bobs = try await Self.events(client, bobToken).items
            #expect(bobs.map { $0["type"] as? String } == ["sign_in", "registration"])
            #expect(Set(bobs.compactMap { $0["id"] as? String }).isDisjoint(with: items.compactMap { $0["id"] as? String }))

            // Without a session: 401. Out-of-range paging: 400.
            #expect(try await client.get("/me/events").status == 401)
            for bad in ["?limit=0", "?limit=101", "?limit=x", "?before=-1", "?before=abc"] {
                #expect(try await client.get("/me/events" + bad, bearer: token).error == "invalid_request", "\(bad)")
            }
        }
    }

    @Test func pagesFollowTheCursor() async throws {
        try await withServer { _, ceremonies, client in
            let (registered, credential, _) = try await ceremonies.register("carol")
            let token = try #require(registered.json["session"] as? String)
            for count in 1...4 {
                #expect(try await ceremonies.signIn("carol", credential: credential, signCount: UInt32(count)).result.status == 200)
            }
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await Self.events(client, token, "?limit=2" + (cursor.map { "&before=\($0)" } ?? ""))
                #expect(page.items.count <= 2)
                seen += page.items.compactMap { $0["type"] as? String }
                cursor = page.next
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 3)
            #expect(seen == ["sign_in", "sign_in", "sign_in", "sign_in", "registration"])
        }
    }

    @Test func oldEventsAreSweptAfterTheRetentionPeriod() async throws {
        try await withServer({ $0.auditRetention = 86400 }) { server, ceremonies, client in
            let (registered, _, _) = try await ceremonies.register("dora")
            let token = try #require(registered.json["session"] as? String)
            #expect(try await Self.events(client, token).items.count == 1)
            server.clock.advance(2 * 86400)
            let swept = try await server.app.service.sweep()
            #expect(swept.events == 1)
            #expect(try await Self.events(client, token).items.isEmpty)
        }
    }
}
