import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// `--clients-file`: clients and forward-auth rules as code. The file is read and checked whole
/// (each problem names its line); each start makes the database match it, touching only the
/// clients an earlier run of a clients file made.
@Suite struct ClientsFileTests {
    static let secret = "s3cret-from-a-file-0123456789abcdefghij"

    /// The file's text in a folder of its own, with a secret file beside it.
    static func write(_ text: String) throws -> (path: String, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-clients-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data((secret + "\n").utf8).write(to: folder.appendingPathComponent("app.secret"))
        try Data("short\n".utf8).write(to: folder.appendingPathComponent("short.secret"))
        let path = folder.appendingPathComponent("clients.json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return (path, folder)
    }

    static func load(_ text: String) throws -> ClientsFile {
        let (path, folder) = try write(text)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try ClientsFile.load(path: path)
    }

    /// The refusal of `text`: its message after the path.
    static func refusal(_ text: String) throws -> String {
        let (path, folder) = try write(text)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            _ = try ClientsFile.load(path: path)
            return "accepted"
        } catch {
            #expect(error.description.hasPrefix(path + " line "), "\(error.description)")
            return String(error.description.dropFirst((path + " line ").count))
        }
    }

    static let good = """
        {
          "clients": [
            {
              "client_id": "app",
              "name": "The app",
              "redirect_uris": ["https://app.example.com/callback"],
              "scope": "openid profile groups",
              "secret_file": "app.secret",
              "created_at": "2026-01-01T00:00:00Z"
            },
            {"client_id": "spa", "public": true, "redirect_uris": ["https://spa.example.com/cb"], "require_acr": "phr"}
          ],
          "forward_auth_rules": ["app.example.com=staff", "*.internal.example.com/admin=admins"]
        }
        """

    @Test func aGoodFileReadsWithItsSecretsAndRules() throws {
        let file = try Self.load(Self.good)
        #expect(file.clients.map(\.registration.id) == ["app", "spa"])
        #expect(file.clients.map(\.line) == [3, 11])
        let app = file.clients[0]
        #expect(app.secret == Self.secret)   // the trailing newline dropped
        #expect(app.registration.name == "The app" && app.registration.scopes == ["openid", "profile", "groups"] && !app.registration.isPublic)
        #expect(file.clients[1].secret == nil && file.clients[1].registration.requiredACR == "phr")
        #expect(file.forwardAuthRules.map(\.host) == ["app.example.com", "*.internal.example.com"])
        #expect(try Self.load("{}").clients.isEmpty)
    }

    @Test func eachProblemNamesItsLine() throws {
        #expect(try Self.refusal("{\n  \"clients\": [\n    {\"client_id\": \"a\",,}\n  ]\n}").hasPrefix("3: not JSON"))
        #expect(try Self.refusal("[]") == "1: the file is a JSON object with \"clients\" and \"forward_auth_rules\"")
        #expect(try Self.refusal("{\n\"clients\": [],\n\"client\": []\n}") == "3: client is not a member of the file (clients, forward_auth_rules)")
        #expect(try Self.refusal("{\"clients\": {}}").hasPrefix("1: clients is an array"))
        let withSecret = "{\"clients\": [\n{\"client_id\": \"a\", \"redirect_uris\": [\"https://a.example/cb\"], \"client_secret\": \"x\"}]}"
        #expect(try Self.refusal(withSecret).hasPrefix("2: client_secret does not belong in the file"))
        let noSecret = "{\"clients\": [\n\n{\"client_id\": \"a\", \"redirect_uris\": [\"https://a.example/cb\"]}]}"
        #expect(try Self.refusal(noSecret).hasPrefix("3: client a is confidential: give its secret as secret_file"))
        let publicSecret = "{\"clients\": [{\"client_id\": \"a\", \"public\": true, \"redirect_uris\": [\"https://a.example/cb\"], \"secret_file\": \"app.secret\"}]}"
        #expect(try Self.refusal(publicSecret).hasPrefix("1: client a is public"))
        let badURI = "{\"clients\": [\n{\"client_id\": \"ok\", \"public\": true, \"redirect_uris\": [\"https://a.example/cb\"]},\n{\"client_id\": \"bad\", \"public\": true, \"redirect_uris\": [\"http://a.example/cb\"]}]}"
        #expect(try Self.refusal(badURI).hasPrefix("3: client bad: --redirect-uri http://a.example/cb: http is allowed only on a loopback host"))
        let twice = "{\"clients\": [\n{\"client_id\": \"a\", \"public\": true, \"redirect_uris\": [\"https://a.example/cb\"]},\n{\"client_id\": \"a\", \"public\": true, \"redirect_uris\": [\"https://b.example/cb\"]}]}"
        #expect(try Self.refusal(twice) == "3: a second client with the id a")
        let unknownMember = "{\"clients\": [{\"client_id\": \"a\", \"public\": true, \"redirect_uris\": [\"https://a.example/cb\"], \"colour\": \"red\"}]}"
        #expect(try Self.refusal(unknownMember).hasPrefix("1: colour is not a member of a client"))
        let missing = "{\"clients\": [{\"client_id\": \"a\", \"redirect_uris\": [\"https://a.example/cb\"], \"secret_file\": \"none.secret\"}]}"
        #expect(try Self.refusal(missing).hasPrefix("1: client a: secret_file none.secret"))
        let short = "{\"clients\": [{\"client_id\": \"a\", \"redirect_uris\": [\"https://a.example/cb\"], \"secret_file\": \"short.secret\"}]}"
        #expect(try Self.refusal(short).hasPrefix("1: client a: the secret in short.secret must be at least 32 characters"))
        #expect(try Self.refusal("{\"forward_auth_rules\": [\n\"app.example.com=staff\",\n\"=staff\"]}").hasPrefix("3: "))
        #expect(try Self.refusal("{\"forward_auth_rules\": [\n\"app.example.com=staff\",\n\"app.example.com=admins\"]}").hasPrefix("1: two --forward-auth-rule"))
        #expect(try Self.refusal("{\"forward_auth_rules\": [\n7]}") == "2: a forward-auth rule is a string")
        #expect(throws: ClientsFile.Invalid.self) { try ClientsFile.load(path: "/nonexistent/clients.json") }
    }

    @Test func theDatabaseFollowsTheFileAndOnlyTheFilesClients() async throws {
        try await withServer { server, _, _ in
            let registry = ClientRegistry(store: server.app.store)
            var made = ClientRegistry.Registration(id: "cli-app")
            made.redirectURIs = ["https://cli.example.com/cb"]
            _ = try await registry.add(made, now: server.clock.now())

            let first = try Self.load(Self.good)
            let applied = try await registry.reconcile(first, now: server.clock.now())
            #expect(applied == .init(added: ["app", "spa"]))
            let app = try #require(try await server.app.store.client(id: "app"))
            #expect(app.fromClientsFile && ClientRegistry.secretMatches(Self.secret, client: app))
            #expect(ClientRegistry.json(app, secret: nil).objectValue?["clients_file"] == .bool(true))
            // The same file again changes nothing.
            #expect(try await registry.reconcile(first, now: server.clock.now()) == .init(unchanged: ["app", "spa"]))

            // app changed, spa gone, tv new; the command line's client untouched.
            let second = try Self.load("""
                {"clients": [
                  {"client_id": "app", "redirect_uris": ["https://app.example.com/other"], "secret_file": "app.secret"},
                  {"client_id": "tv", "public": true, "device_flow": true}
                ]}
                """)
            #expect(try await registry.reconcile(second, now: server.clock.now()) == .init(added: ["tv"], updated: ["app"], removed: ["spa"]))
            #expect(try await server.app.store.client(id: "app")?.redirectURIs == ["https://app.example.com/other"])
            #expect(try await server.app.store.client(id: "app")?.createdAt == app.createdAt)
            #expect(try await server.app.store.client(id: "spa") == nil)
            let untouched = try #require(try await server.app.store.client(id: "cli-app"))
            #expect(!untouched.fromClientsFile)

            // A file that names the command line's client stops, and changes nothing.
            let takeover = try Self.load("""
                {"clients": [{"client_id": "cli-app", "public": true, "redirect_uris": ["https://evil.example/cb"]}]}
                """)
            await #expect(throws: ClientRegistry.Failure.self) { try await registry.reconcile(takeover, now: server.clock.now()) }
            #expect(try await server.app.store.client(id: "cli-app") == untouched)
            #expect(try await server.app.store.client(id: "tv") != nil)

            let events = try await server.app.store.events(userHandle: nil, since: nil, after: nil, limit: 100)
            let byFile = events.filter { $0.details["by"] == "--clients-file" }.map { "\($0.type) \($0.details["client_id"] ?? "")" }
            #expect(byFile.sorted() == ["client_added app", "client_added spa", "client_added tv", "client_removed spa", "client_updated app"])
        }
    }
}
