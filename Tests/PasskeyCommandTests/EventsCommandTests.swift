import Foundation
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

@Suite struct EventsCommandTests {
    /// `passkey-server events`: the binary reads the running server's database (the SQLite file,
    /// or the PostgreSQL database in the second pass) and prints JSON lines, oldest first.
    @Test func operatorsExportTheTrailAsJSONLines() async throws {
        try await withServer { server, ceremonies, _ in
            let (registered, credential, _) = try await ceremonies.register("Erin")
            _ = try #require(registered.json["session"] as? String)
            _ = try await ceremonies.register("frank")
            let midway = server.clock.now()
            server.clock.advance(60)
            #expect(try await ceremonies.signIn("erin", credential: credential, signCount: 1).result.status == 200)
            let database = server.postgresDatabase ?? server.directory.appendingPathComponent("db.sqlite").path

            func lines(_ arguments: [String]) async throws -> [[String: Any]] {
                let run = try await CommandRun.run(["events", "--database", database] + arguments)
                try #require(run.status == 0, "\(run.errors)")
                return try run.output.split(separator: "\n").map {
                    try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
            }
            let all = try await lines([])
            #expect(all.map { $0["type"] as? String } == ["registration", "registration", "sign_in"])
            #expect(all.map { $0["user"] as? String } == ["Erin", "frank", "Erin"])
            let ids = all.compactMap { ($0["id"] as? String).flatMap(Int64.init) }
            #expect(ids.count == 3 && ids == ids.sorted())
            #expect(all.allSatisfy { $0["ip"] as? String == "127.0.0.1" && ($0["at"] as? String)?.hasSuffix("Z") == true })
            #expect((all[2]["details"] as? [String: String])?["method"] == "passkey")
            #expect(all[0]["user_handle"] as? String == all[2]["user_handle"] as? String)

            // One account, by its name in any case; from a time on.
            #expect(try await lines(["--user", "ERIN"]).map { $0["type"] as? String } == ["registration", "sign_in"])
            let since = ISO8601DateFormatter().string(from: midway.addingTimeInterval(30))
            #expect(try await lines(["--since", since]).map { $0["type"] as? String } == ["sign_in"])
            #expect(try await lines(["--user", "frank", "--since", since]).isEmpty)

            // Mistakes say what is wrong and print no events.
            let unknown = try await CommandRun.run(["events", "--database", database, "--user", "nobody"])
            #expect(unknown.status == 1 && unknown.output.isEmpty && unknown.errors.contains("no account is named nobody"))
            let badTime = try await CommandRun.run(["events", "--database", database, "--since", "yesterday"])
            #expect(badTime.status == 2 && badTime.errors.contains("--since"))
            let missing = server.directory.appendingPathComponent("absent.sqlite").path
            let absent = try await CommandRun.run(["events", "--database", missing])
            #expect(absent.status == 1 && absent.errors.contains("no database at"))
            #expect(!FileManager.default.fileExists(atPath: missing))
        }
    }
}
