import Foundation
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// `serve --clients-file` through the binary: a good file's clients are there when it listens
/// (marked as the file's in `clients list`), its rules guard forward authentication; an invalid
/// file stops the start with its line and changes nothing.
@Suite(.serialized) struct ClientsFileCommandTests {
    @Test func theFileIsAppliedAtStartAndABadOneStopsIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-clients-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let file = directory.appendingPathComponent("clients.json")
        try Data("0123456789abcdef0123456789abcdef-secret\n".utf8).write(to: directory.appendingPathComponent("app.secret"))
        try Data("""
            {"clients": [{"client_id": "app", "redirect_uris": ["https://app.example.com/cb"], "secret_file": "app.secret"}],
             "forward_auth_rules": ["app.example.com=staff"]}
            """.utf8).write(to: file)

        let server = try await ServerProcess.start(arguments: ["--port", "0", "--database", database], environment: ["PASSKEY_CLIENTS_FILE": file.path])
        // The file's rule is in force: a signed-in user outside its group is refused (with no
        // rule at all, any signed-in user would pass).
        let client = Client(base: server.base)
        let options = try #require(try await client.get("/registration_initialize?user_name=dana").json["publicKey"] as? [String: Any])
        let handle = try #require(Base64URL.decode((options["user"] as? [String: Any])?["id"] as? String ?? ""))
        let builder = RegistrationBuilder(
            credential: try TestCredential(userHandle: handle), rpID: "localhost", origin: server.origin,
            challenge: try #require(Base64URL.decode(options["challenge"] as? String ?? "")))
        let session = try #require(try await client.post("/registration_finalize", bytes: try builder.json()).json["session"] as? String)
        let forward = try await client.send("GET", "/auth/request", bearer: session, headers: ["X-Original-URL": "https://app.example.com/"])
        #expect(forward.status == 403)
        #expect(server.terminate() == 0)
        let listed = try await CommandRun.run(["clients", "show", "app", "--database", database])
        #expect(listed.status == 0 && listed.json["clients_file"] as? Bool == true, "\(listed.output) \(listed.errors)")

        try Data("{\"clients\": [\n{\"client_id\": \"app\", \"redirect_uris\": [\"http://app.example.com/cb\"], \"secret_file\": \"app.secret\"}]}".utf8)
            .write(to: file)
        let refused = try await CommandRun.run(["serve", "--port", "0", "--database", database, "--clients-file", file.path])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("--clients-file: \(file.path) line 2: client app: --redirect-uri"), "\(refused.errors)")
        // Nothing changed: the client is as the good file made it.
        let after = try await CommandRun.run(["clients", "show", "app", "--database", database])
        #expect(after.json["redirect_uris"] as? [String] == ["https://app.example.com/cb"])
    }
}
