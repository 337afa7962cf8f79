import Foundation
import PasskeyApp
import PasskeyJSON
import PasskeyStorage
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// `passkey-server users disable|enable|revoke-sessions|show` on the running server's database
/// (docs/contracts/accounts.md, "Administration"): a disabled account's sessions end at once and it signs in by
/// no method until enabled; the verified assertion opens nothing.
@Suite struct UsersCommandTests {
    @Test func disablingFromTheCommandLineEndsTheSessionsAndRefusesSignIn() async throws {
        try await withServer { server, ceremonies, client in
            func run(_ arguments: [String]) async throws -> CommandRun {
                try await CommandRun.run(arguments + ["--database", server.databasePath])
            }
            let (registered, credential, _) = try await ceremonies.register("Ada")
            let session = try #require(registered.json["session"] as? String)
            let shown = try await run(["users", "show", "ADA"])
            #expect(shown.status == 0, "\(shown.errors)")
            let account = try #require(try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any])
            #expect(account["user_name"] as? String == "Ada" && account["disabled"] as? Bool == false && account["sessions"] as? Int == 1)
            #expect((account["passkeys"] as? [[String: Any]])?.first?["id"] as? String == Base64URL.encode(credential.id))

            let disabled = try await run(["users", "disable", "ada"])
            #expect(disabled.status == 0 && disabled.output.contains("is disabled"), "\(disabled.errors)")
            #expect(try await run(["users", "disable", "ada"]).output.contains("already"))
            #expect(try await client.get("/me", bearer: session).status == 401)
            // The assertion verifies, then nothing opens, and the refusal is recorded.
            let refused = try await ceremonies.signIn("ada", credential: credential, signCount: 1)
            #expect(refused.result.status == 403)
            #expect(refused.result.json["error"] as? String == "account_disabled")
            #expect(refused.result.json["session"] == nil)
            let handle = try #require(try await server.app.store.user(nameKey: "ada")).handle
            #expect(try await server.app.store.sessions(userHandle: handle, now: server.clock.now()).isEmpty)
            let events = try await server.app.store.events(userHandle: handle, before: nil, limit: 5)
            #expect(events.first?.type == "sign_in_refused" && events.first?.details["error"] == "account_disabled")
            #expect(events.contains { $0.type == "account_disabled" && $0.details["by"] == "command line" })

            #expect(try await run(["users", "enable", "ada"]).output.contains("is enabled"))
            #expect(try await run(["users", "enable", "ada"]).output.contains("was not disabled"))
            let again = try await ceremonies.signIn("ada", credential: credential, signCount: 2)
            #expect(again.result.status == 200)
            let fresh = try #require(again.result.json["session"] as? String)
            let revoked = try await run(["users", "revoke-sessions", "ada"])
            #expect(revoked.status == 0 && revoked.output.hasPrefix("1 session of ada ended"), "\(revoked.output)")
            #expect(try await client.get("/me", bearer: fresh).status == 401)

            let unknown = try await run(["users", "disable", "nobody"])
            #expect(unknown.status == 1 && unknown.errors.contains("no account is named nobody"))
        }
    }

    @Test func accountsAreListedAndDeletedFromTheCommandLine() async throws {
        try await withServer { server, ceremonies, client in
            func run(_ arguments: [String]) async throws -> CommandRun {
                try await CommandRun.run(arguments + ["--database", server.databasePath])
            }
            for name in ["Zoe", "ada", "Adam", "bo%b"] { _ = try await ceremonies.register(name) }
            #expect(try await run(["users", "add-to-group", "zoe", "Staff"]).status == 0)
            func names(_ run: CommandRun) throws -> [String] {
                try run.output.split(separator: "\n").map { line in
                    let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    return object?["user_name"] as? String ?? "?"
                }
            }
            #expect(try names(try await run(["users", "list", "--json"])) == ["ada", "Adam", "bo%b", "Zoe"])
            // Without --json: a line of name and sub each, tab-separated.
            let plain = try await run(["users", "list"]).output.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }
            #expect(plain == ["ada", "Adam", "bo%b", "Zoe"])
            #expect(try names(try await run(["users", "list", "--json", "--query", "AD"])) == ["ada", "Adam"])
            // A query is a prefix, and its % is a letter, not a pattern.
            #expect(try names(try await run(["users", "list", "--json", "--query", "bo%"])) == ["bo%b"])
            #expect(try await run(["users", "list", "--json", "--query", "%"]).output.isEmpty)
            #expect(try await run(["users", "list", "--json", "--query", "dam"]).output.isEmpty)
            #expect(try names(try await run(["users", "list", "--json", "--group", "staff"])) == ["Zoe"])
            #expect(try await run(["users", "list", "--json", "--query", "nobody"]).output.isEmpty)

            let (registered, _, _) = try await ceremonies.register("eve")
            let session = try #require(registered.json["session"] as? String)
            let handle = try #require(try await server.app.store.user(nameKey: "eve")).handle
            let deleted = try await run(["users", "delete", "eve"])
            #expect(deleted.status == 0 && deleted.output.hasPrefix("eve is deleted: 1 passkey"), "\(deleted.errors)")
            #expect(try await client.get("/me", bearer: session).status == 401)
            #expect(try await server.app.store.user(handle: handle) == nil)
            let events = try await server.app.store.events(userHandle: handle, before: nil, limit: 5)
            #expect(events.first?.type == "account_deleted" && events.first?.details["by"] == "command line")
            #expect(try await run(["users", "delete", "EVE"]).status == 1)
        }
    }

    @Test func anInvitationLinkIsPrintedAloneOnTheLastLine() async throws {
        try await withServer { server, _, client in
            let made = try await CommandRun.run(["users", "invite", "Newbie", "--ttl", "10m", "--origin", "https://id.example.com/", "--database", server.databasePath])
            #expect(made.status == 0, "\(made.errors)")
            let link = try #require(made.output.split(separator: "\n").last.map(String.init))
            #expect(link.hasPrefix("https://id.example.com/?invite=") && link.count == "https://id.example.com/?invite=".count + 43)
            let token = String(link.dropFirst("https://id.example.com/?invite=".count))
            let shown = try await client.post("/invitation", json: ["invite": token])
            #expect(shown.json["user_name"] as? String == "Newbie")
            let wrong = try await CommandRun.run(["users", "invite", "x", "--ttl", "forever", "--database", server.databasePath])
            #expect(wrong.status != 0 && wrong.errors.contains("--ttl"))
        }
    }
}
