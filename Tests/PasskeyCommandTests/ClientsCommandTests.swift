import Foundation
import PasskeyApp
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// `passkey-server clients`: the binary on the running server's database (the SQLite file, or
/// the PostgreSQL database in the second pass).
@Suite struct ClientsCommandTests {
    static func objects(_ run: CommandRun) throws -> [[String: Any]] {
        try run.output.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func addListShowRotateAndRemove() async throws {
        try await withServer { server, _, _ in
            let database = server.postgresDatabase ?? server.directory.appendingPathComponent("db.sqlite").path
            func run(_ arguments: [String]) async throws -> CommandRun {
                try await CommandRun.run(["clients"] + arguments + ["--database", database])
            }
            let added = try await run([
                "add", "--id", "wiki", "--name", "The wiki", "--redirect-uri", "https://wiki.example/callback",
                "--redirect-uri", "http://127.0.0.1/cb", "--allowed-group", "staff", "--require-acr", "phrh", "--id-token-alg", "ES256",
            ])
            #expect(added.status == 0, "\(added.errors)")
            let wiki = try #require(try Self.objects(added).last)
            #expect(wiki["client_id"] as? String == "wiki" && wiki["public"] as? Bool == false)
            #expect(wiki["redirect_uris"] as? [String] == ["https://wiki.example/callback", "http://127.0.0.1/cb"])
            #expect(wiki["scope"] as? String == "openid profile email groups")
            #expect(wiki["require_acr"] as? String == "phrh" && wiki["id_token_alg"] as? String == "ES256")
            let secret = try #require(wiki["client_secret"] as? String)
            #expect(secret.utf8.count == 43)  // 256 bits in base64url

            let app = try #require(try Self.objects(try await run([
                "add", "--id", "ios.app", "--public", "--redirect-uri", "com.example.app:/callback", "--scope", "openid offline_access", "--refresh",
            ])).last)
            #expect(app["public"] as? Bool == true && app["client_secret"] == nil && app["refresh"] as? Bool == true)

            // The secret is shown once: never by list or show, and the database holds its hash only.
            let listed = try await run(["list"])
            #expect(try Self.objects(listed).map { $0["client_id"] as? String } == ["ios.app", "wiki"])
            let listedObjects = try Self.objects(listed)
            #expect(!listed.output.contains(secret) && listedObjects.allSatisfy { $0["client_secret"] == nil })
            let shown = try await run(["show", "wiki"])
            #expect(try Self.objects(shown).first?["name"] as? String == "The wiki" && !shown.output.contains(secret))
            #expect(try Self.objects(shown).first?["client_secret"] == nil)
            #expect(try Self.objects(shown).first?["token_endpoint_auth_method"] as? String == "client_secret_basic")
            let stored = try #require(try await server.app.store.client(id: "wiki"))
            #expect(stored.secretHash?.count == 32 && stored.secretHash != Array(secret.utf8))

            let rotated = try #require(try Self.objects(try await run(["rotate-secret", "wiki"])).last)
            let newSecret = try #require(rotated["client_secret"] as? String)
            #expect(newSecret != secret)
            #expect(try await server.app.store.client(id: "wiki")?.secretHash != stored.secretHash)
            let publicRotate = try await run(["rotate-secret", "ios.app"])
            #expect(publicRotate.status == 1 && publicRotate.errors.contains("public client"))

            #expect(try await run(["remove", "ios.app"]).status == 0)
            let again = try await run(["remove", "ios.app"])
            #expect(again.status == 1 && again.errors.contains("no client has the id ios.app"))
            #expect(try Self.objects(try await run(["list"])).map { $0["client_id"] as? String } == ["wiki"])
        }
    }

    /// docs/contracts/identity.md's rules for a registration, each refused with what is wrong, storing nothing.
    @Test func refusalsSayWhatIsWrongAndStoreNothing() async throws {
        try await withServer { server, _, _ in
            let database = server.postgresDatabase ?? server.directory.appendingPathComponent("db.sqlite").path
            let refusals: [([String], String)] = [
                (["--id", "wiki", "--redirect-uri", "http://wiki.example/cb"], "loopback"),
                (["--id", "wiki", "--redirect-uri", "https://wiki.example/cb#top"], "fragment"),
                (["--id", "wiki", "--redirect-uri", "/cb"], "absolute URI"),
                (["--id", "wiki", "--redirect-uri", "com.example.app:/cb"], "confidential"),
                (["--id", "app", "--public", "--redirect-uri", "myapp:/cb"], "private-use scheme"),
                (["--id", "wiki"], "--redirect-uri is required"),
                (["--id", "wiki space", "--redirect-uri", "https://wiki.example/cb"], "--id"),
                (["--id", "wiki", "--redirect-uri", "https://wiki.example/cb", "--scope", "openid \"admin\""], "not a scope token"),
                (["--id", "svc", "--public", "--client-credentials"], "confidential client"),
                (["--id", "svc", "--client-credentials", "--audience", "https://api.example/#x"], "--audience"),
                (["--id", "svc", "--client-credentials", "--jwks-uri", "http://keys.example/jwks.json"], "--jwks-uri"),
                (["--id", "svc", "--client-credentials", "--jwks-uri", "https://keys.example/j", "--jwks", "/dev/null"], "not both"),
                (["--id", "svc", "--client-credentials", "--jwks", "/nonexistent/jwks.json"], "cannot be read"),
                (["--id", "wiki", "--redirect-uri", "https://wiki.example/cb", "--id-token-alg", "HS256"], "--id-token-alg"),
                (["--id", "wiki", "--redirect-uri", "https://wiki.example/cb", "--require-acr", "mfa"], "--require-acr"),
                (["--id", "wiki", "--redirect-uri", "https://wiki.example/cb", "--backchannel-logout-uri", "com.example.app:/logout"], "--backchannel-logout-uri"),
                (["--id", "app", "--redirect-uri", "https://app.example/cb", "--authorization-challenge"], "--public"),
                (["--id", "app", "--public", "--authorization-challenge", "--device-flow"], "needs a --redirect-uri"),
                (["--id", "agent", "--ciba", "push"], "poll or ping"),
                (["--id", "agent", "--public", "--ciba", "poll"], "confidential"),
                (["--id", "agent", "--ciba", "ping"], "needs a --notification-endpoint"),
                (["--id", "agent", "--ciba", "poll", "--notification-endpoint", "https://agent.example/cb"], "for --ciba ping"),
                (["--id", "agent", "--ciba", "ping", "--notification-endpoint", "http://agent.example/cb"], "--notification-endpoint"),
                (["--id", "wiki", "--redirect-uri", "https://wiki.example/cb", "--notification-endpoint", "https://wiki.example/n"], "for --ciba ping"),
            ]
            for (arguments, reason) in refusals {
                let run = try await CommandRun.run(["clients", "add"] + arguments + ["--database", database])
                #expect(run.status == 1, "\(arguments)")
                #expect(run.errors.contains(reason), "\(arguments): \(run.errors)")
            }
            #expect(try await server.app.store.clients().isEmpty)
            // Only the device flow, introspection, token exchange or client credentials may go without a redirect URI.
            let device = try await CommandRun.run(["clients", "add", "--id", "tv", "--public", "--device-flow", "--database", database])
            #expect(device.status == 0, "\(device.errors)")
            let taken = try await CommandRun.run(["clients", "add", "--id", "tv", "--public", "--device-flow", "--database", database])
            #expect(taken.status == 1 && taken.errors.contains("exists already"))
            #expect(try await server.app.store.clients().count == 1)
            // A native app for the authorization challenge, and a CIBA client without a redirect URI.
            let native = try await CommandRun.run([
                "clients", "add", "--id", "notes", "--public", "--authorization-challenge", "--redirect-uri", "com.example.notes:/cb",
                "--database", database,
            ])
            #expect(native.status == 0, "\(native.errors)")
            let agent = try await CommandRun.run([
                "clients", "add", "--id", "agent", "--ciba", "ping", "--notification-endpoint", "http://127.0.0.1:9/ciba", "--database", database,
            ])
            #expect(agent.status == 0, "\(agent.errors)")
            let listed = try Self.objects(try await CommandRun.run(["clients", "list", "--database", database]))
            let byID = Dictionary(uniqueKeysWithValues: listed.compactMap { object in (object["client_id"] as? String).map { ($0, object) } })
            #expect(byID["notes"]?["authorization_challenge"] as? Bool == true)
            #expect(byID["agent"]?["ciba"] as? String == "ping" && byID["agent"]?["notification_endpoint"] as? String == "http://127.0.0.1:9/ciba")
        }
    }
}
