import Foundation
import Logging
import PasskeyServerTestSupport
import PasskeyTestSupport
@testable import PasskeyTelemetry
import Testing

/// JSON logs: one object per line, a request id on every line written for a request and in
/// `X-Request-Id`, client text escaped, and no secret anywhere.
@Suite struct LogTests {
    @Test func jsonLinesCarryRequestIDsAndNoSecrets() async throws {
        let lines = Gathered<String>()
        var logger = Logger(label: "passkey-server") { label, _ in
            JSONLogHandler(label: label, metadataProvider: RequestID.metadataProvider, write: { lines.append($0) })
        }
        logger.logLevel = .trace
        var tokens: [String] = []
        var requestIDs: [String] = []
        try await withServer({ _ in }, logger: logger) { _, ceremonies, client in
            let (registered, credential, _) = try await ceremonies.register("olivia")
            let first = try #require(registered.json["session"] as? String)
            let signedIn = try await ceremonies.signIn("olivia", credential: credential, signCount: 3)
            let second = try #require(signedIn.result.json["session"] as? String)
            tokens = [first, second]
            #expect(try await client.get("/me", bearer: first).status == 200)
            #expect(try await client.send("POST", "/logout", body: Data("{}".utf8), bearer: second).status == 200)
            // A refusal whose reason carries client text meant to forge a line.
            let forged = try await ceremonies.register("mallory") { $0.clientData.origin = "https://x\n{\"level\":\"critical\"}" }
            #expect(forged.result.error == "origin_mismatch")
            requestIDs.append(try #require(forged.result.header("X-Request-Id")))

            // A well-formed id from a proxy is kept; anything else is replaced.
            let kept = try await client.send("GET", "/authentication_initialize", headers: ["X-Request-Id": "edge-7f.3:abc_DEF"])
            #expect(kept.header("X-Request-Id") == "edge-7f.3:abc_DEF")
            for bad in ["two words", String(repeating: "a", count: 65), "ünïcode"] {
                let replaced = try await client.send("GET", "/healthz", headers: ["X-Request-Id": bad])
                let id = try #require(replaced.header("X-Request-Id"))
                #expect(id != bad)
                #expect(id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            }
            // Errors carry one too.
            #expect(try await client.get("/no-such-path").header("X-Request-Id") != nil)
        }

        let all = lines.items
        #expect(!all.isEmpty)
        var objects: [[String: Any]] = []
        for line in all {
            #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil, "one object per line: \(line)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(object["ts"] is String && object["level"] is String && object["msg"] is String, "\(line)")
            objects.append(object)
        }
        // The refusal's line is there, its client text escaped inside one object, with the id
        // the response named.
        let refusal = try #require(objects.first { ($0["msg"] as? String)?.contains("registration refused") == true })
        #expect(refusal["request_id"] as? String == requestIDs.first)
        #expect((refusal["reason"] as? String)?.contains("critical") == true)
        #expect(objects.allSatisfy { ($0["level"] as? String) != "critical" })
        // No session token, in any form, anywhere.
        let text = all.joined()
        for token in tokens {
            #expect(!text.contains(token))
            #expect(!text.contains(token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")))
        }
    }

    @Test func stringsAreEscapedAsJSON() {
        #expect(JSONLogHandler.quoted("a\"b\\c\nd\u{1b}[31m\u{2028}") == #""a\"b\\c\nd\u001b[31m\u2028""#)
        #expect(RequestID.accepted("abc-123") == "abc-123")
        #expect(RequestID.accepted("") == nil)
        #expect(RequestID.accepted("a\nb") == nil)
        #expect(RequestID.make() != RequestID.make())
    }

    @Test("request ids are 32 lowercase hex digits and do not repeat")
    func requestIDsAreDistinct() {
        let ids = (0..<10_000).map { _ in RequestID.make() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.utf8.count == 32 && $0.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) } })
        // Consecutive ids differ in more than the last digits: the counter is scrambled.
        #expect(ids[0].suffix(16).prefix(8) != ids[1].suffix(16).prefix(8))
    }
}
