import Foundation
import PasskeyJOSE
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// `passkey-server keys`: the binary on the running server's database (the SQLite file, or the
/// PostgreSQL database in the second pass): what it rotates, the server publishes.
@Suite struct KeysCommandTests {
    static func lines(_ run: CommandRun) throws -> [[String: Any]] {
        try run.output.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func listAndRotateOnTheServersDatabase() async throws {
        try await withServer { server, _, client in
            let database = server.postgresDatabase ?? server.directory.appendingPathComponent("db.sqlite").path
            let listed = try await CommandRun.run(["keys", "list", "--database", database])
            #expect(listed.status == 0, "\(listed.errors)")
            let keys = try Self.lines(listed)
            #expect(keys.map { $0["alg"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == ["ES256", "RS256"])
            #expect(keys.allSatisfy { $0["state"] as? String == "signing" && $0["generation"] as? Int == 1 })
            #expect(!listed.output.contains("PRIVATE") && keys.allSatisfy { $0["d"] == nil && $0["private_key"] == nil })

            let rotated = try await CommandRun.run(["keys", "rotate", "--alg", "RS256", "--database", database])
            #expect(rotated.status == 0, "\(rotated.errors)")
            let key = try #require(try Self.lines(rotated).last)
            #expect(key["alg"] as? String == "RS256" && key["generation"] as? Int == 2 && key["state"] as? String == "upcoming")
            let kid = try #require(key["kid"] as? String)
            // The running server publishes it at once.
            let set = try JWKSet(json: Array(try await client.get("/oauth/jwks").body))
            #expect(set.key(id: kid) != nil)
            #expect(set.keys.count == 3)

            let after = try Self.lines(try await CommandRun.run(["keys", "list", "--database", database]))
            #expect(after.count == 3)

            // Mistakes say what is wrong and change nothing.
            let badAlg = try await CommandRun.run(["keys", "rotate", "--alg", "HS256", "--database", database])
            #expect(badAlg.status == 2 && badAlg.errors.contains("--alg"))
            let badAhead = try await CommandRun.run(["keys", "rotate", "--key-publish-ahead", "-5", "--database", database])
            #expect(badAhead.status == 2)
            let missing = server.directory.appendingPathComponent("absent.sqlite").path
            let absent = try await CommandRun.run(["keys", "list", "--database", missing])
            #expect(absent.status == 1 && absent.errors.contains("no database at"))
            #expect(!FileManager.default.fileExists(atPath: missing))
            #expect(try Self.lines(try await CommandRun.run(["keys", "list", "--database", database])).count == 3)
        }
    }
}
