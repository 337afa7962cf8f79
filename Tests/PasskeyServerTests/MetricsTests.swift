import Foundation
import PasskeyCore
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// `GET /metrics`: each metric of the operations spec moves after the action it counts.
@Suite struct MetricsTests {
    /// The metrics text, parsed: one value per series (`name` plus its labels).
    struct Scrape {
        let series: [(name: String, labels: [String: String], value: Double)]

        init(_ text: String) {
            series = text.split(separator: "\n").compactMap { line in
                guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...])
                else { return nil }
                let key = line[..<space]
                guard let brace = key.firstIndex(of: "{") else { return (String(key), [:], value) }
                var labels: [String: String] = [:]
                for pair in key[key.index(after: brace)..<key.index(before: key.endIndex)].split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { labels[String(parts[0])] = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                }
                return (String(key[..<brace]), labels, value)
            }
        }

        /// The value of the series with this name and (at least) these labels; 0 when absent.
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
            series.filter { series in
                series.name == name && labels.allSatisfy { key, value in series.labels[key] == value }
            }.map(\.value).reduce(0, +)
        }

        func names() -> Set<String> { Set(series.map(\.name)) }
    }

    static func scrape(_ client: Client) async throws -> Scrape {
        let result = try await client.get("/metrics")
        try #require(result.status == 200)
        #expect(result.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        return Scrape(String(decoding: result.body, as: UTF8.self))
    }

    @Test func ceremoniesRequestsAndCommitsAreCounted() async throws {
        try await withServer { server, ceremonies, client in
            let before = try await Self.scrape(client)

            let (registered, credential, _) = try await ceremonies.register("mallory")
            #expect(registered.status == 200)
            #expect(try await ceremonies.signIn("mallory", credential: credential, signCount: 1).result.status == 200)
            // A refusal: the same assertion body again is a spent challenge.
            let replay = try await ceremonies.signIn("mallory", credential: credential, signCount: 0)
            #expect(replay.result.error == "counter_regression" || replay.result.status == 400)
            let unknown = try await client.post("/authentication_finalize", bytes: Array(#"{"id":"AA","rawId":"AA","type":"public-key","response":{"clientDataJSON":"AA","authenticatorData":"AA","signature":"AA"}}"#.utf8))
            #expect(unknown.status == 400)
            // A parameterised route: the template is the label, never the raw id.
            let token = try #require(registered.json["session"] as? String)
            #expect(try await client.send("DELETE", "/credentials/bm90LWEtcmVhbC1pZA", bearer: token).status == 404)

            let after = try await Self.scrape(client)
            func moved(_ name: String, _ labels: [String: String], by expected: Double, _ comment: Comment? = nil) {
                #expect(after.value(name, labels) - before.value(name, labels) == expected, comment ?? "\(name) \(labels)")
            }
            moved("passkey_ceremonies_total", ["ceremony": "registration", "outcome": "ok", "error": "none"], by: 1)
            moved("passkey_ceremonies_total", ["ceremony": "authentication", "outcome": "ok", "error": "none"], by: 1)
            let refusedCode = try #require(replay.result.error)
            moved("passkey_ceremonies_total", ["ceremony": "authentication", "outcome": "refused", "error": refusedCode], by: 1)
            let unknownCode = try #require(unknown.error)
            moved("passkey_ceremonies_total", ["ceremony": "authentication", "outcome": "refused", "error": unknownCode],
                  by: refusedCode == unknownCode ? 2 : 1)
            moved("http_requests_total", ["route": "/registration_finalize", "method": "POST", "status": "200"], by: 1)
            moved("http_requests_total", ["route": "/registration_initialize", "method": "GET", "status": "200"], by: 1)
            moved("http_requests_total", ["route": "/authentication_finalize", "method": "POST", "status": "400"], by: 2)
            moved("http_requests_total", ["route": "/credentials/{id}", "method": "DELETE", "status": "404"], by: 1)
            moved("http_requests_total", ["route": "/metrics", "method": "GET", "status": "200"], by: 1)
            #expect(after.series.allSatisfy { $0.labels["route"].map { !$0.contains("bm90LWEtcmVhbC1pZA") } ?? true })
            #expect(after.value("http_request_duration_seconds_count", ["route": "/registration_finalize", "method": "POST"])
                    > before.value("http_request_duration_seconds_count", ["route": "/registration_finalize", "method": "POST"]))
            // Each finalize wrote once, durably: commits and their batch sizes were recorded.
            #expect(after.value("passkey_db_commit_seconds_count") >= before.value("passkey_db_commit_seconds_count") + 3)
            #expect(after.value("passkey_db_commit_batch_size_count") >= before.value("passkey_db_commit_batch_size_count") + 3)
            #expect(after.value("passkey_db_commit_batch_size_sum") >= after.value("passkey_db_commit_batch_size_count"))
            // No metadata BLOB: not stale.
            #expect(after.names().contains("passkey_mds_blob_stale"))
            #expect(after.value("passkey_mds_blob_stale") == 0)
        }
    }

    @Test func aStaleMetadataBLOBShowsAsOne() async throws {
        try await withServer(TrustTests.withMetadata("stale.jwt")) { (_, _, client) async throws in
            #expect(try await Self.scrape(client).value("passkey_mds_blob_stale") == 1)
        }
        try await withServer(TrustTests.withMetadata()) { server, _, client in
            #expect(try await Self.scrape(client).value("passkey_mds_blob_stale") == 0)
            // Judged again when asked (/healthz, and each sweep): ten years on, stale.
            server.clock.advance(10 * 365 * 86400)
            _ = try await client.get("/healthz")
            #expect(try await Self.scrape(client).value("passkey_mds_blob_stale") == 1)
        }
    }

    @Test func metricsListenServesThemElsewhereOnly() async throws {
        let port = try TestPorts.free()
        try await withServer({ $0.metricsListen = ("127.0.0.1", port) }) { (_, _, client) async throws in
            #expect(try await client.get("/metrics").status == 404)
            let separate = Client(base: URL(string: "http://127.0.0.1:\(port)")!)
            var answered = false
            for _ in 0..<50 where !answered {
                if let result = try? await separate.get("/metrics"), result.status == 200 {
                    answered = String(decoding: result.body, as: UTF8.self).contains("passkey_mds_blob_stale")
                } else {
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            #expect(answered)
        }
    }
}
