import Foundation
import PasskeyAssociation
import PasskeyOutbound
import Testing

/// The fetcher against a canned local server: redirects come back as themselves, bodies are
/// capped, silence times out.
@Suite struct FetcherTests {
    static let aasa = #"{"webcredentials":{"apps":["ABCDE12345.com.example.app"]}}"#
    /// Seconds for the fetches that test what comes back, not how long it takes: the whole
    /// suite runs at once on two cores, and the event loops answer late then.
    static let patient: TimeInterval = 30

    @Test func redirectsAreNotFollowed() async throws {
        let server = try CannedHTTPServer([
            "/.well-known/apple-app-site-association": CannedHTTPServer.response(
                "301 Moved Permanently", headers: ["Location": "/elsewhere"]),
            "/elsewhere": CannedHTTPServer.response("200 OK", headers: ["Content-Type": "application/json"], body: Self.aasa),
        ])
        defer { server.stop() }
        let document = try await WellKnownFetcher(timeout: Self.patient).fetch(server.base.appendingPathComponent(".well-known/apple-app-site-association"))
        #expect(document.status == 301)
        #expect(document.location == "/elsewhere")
        #expect(server.received.count == 1)   // /elsewhere was never asked for

        let checks = await AppleAppSiteAssociationChecker.check(
            site: server.base, appIDs: ["ABCDE12345.com.example.app"], fetcher: WellKnownFetcher(timeout: Self.patient, userAgent: "AASA-Bot/1.0.0"))
        let redirect = try #require(checks.first { $0.name == "no redirect" })
        #expect(!redirect.ok)
        #expect(redirect.detail.contains("301") && redirect.detail.contains("/elsewhere"))
        #expect(server.received.allSatisfy { !$0.hasPrefix("GET /elsewhere") })
        // Apple's fetcher's user agent, so CDNs that treat it specially answer as they would.
        #expect(server.received.last?.contains("AASA-Bot/1.0.0") == true)
    }

    @Test func aGoodSitePasses() async throws {
        let server = try CannedHTTPServer([
            "/.well-known/apple-app-site-association": CannedHTTPServer.response("200 OK", headers: ["Content-Type": "application/json"], body: Self.aasa),
        ])
        defer { server.stop() }
        let checks = await AppleAppSiteAssociationChecker.check(
            site: server.base, appIDs: ["ABCDE12345.com.example.app"], rpID: "127.0.0.1", fetcher: WellKnownFetcher(timeout: Self.patient))
        #expect(checks.allSatisfy { $0.ok }, "\(checks)")
        #expect(checks.map(\.name).prefix(3) == ["https", "fetch", "RP ID"])
    }

    @Test func oversizedBodiesAreCapped() async throws {
        let body = "{\"x\":\"" + String(repeating: "a", count: 200_000) + "\"}"
        let server = try CannedHTTPServer([
            "/.well-known/apple-app-site-association": CannedHTTPServer.response("200 OK", headers: ["Content-Type": "application/json"], body: body),
        ])
        defer { server.stop() }
        let capped = try await WellKnownFetcher(timeout: Self.patient, maximumBytes: 1000).fetch(server.base.appendingPathComponent(".well-known/apple-app-site-association"))
        #expect(capped.truncated)
        #expect(capped.body.count == 1000)
        // With the default cap the whole body arrives and the size rule refuses it.
        let checks = await AppleAppSiteAssociationChecker.check(site: server.base, fetcher: WellKnownFetcher(timeout: Self.patient))
        let size = try #require(checks.first { $0.name == "size" }, "\(checks)")
        #expect(!size.ok)
        #expect(size.detail.contains("\(body.utf8.count) bytes"))
    }

    @Test func silenceTimesOut() async throws {
        let server = try CannedHTTPServer(["/.well-known/assetlinks.json": .silence])
        defer { server.stop() }
        // The server closes the connection after 3 s without answering: "timed out" (not
        // "connection lost") shows the 1 s timeout fired first.
        let checks = await AssetLinksChecker.check(site: server.base, fetcher: WellKnownFetcher(timeout: 1))
        let fetch = try #require(checks.first { $0.name == "fetch" })
        #expect(!fetch.ok)
        #expect(fetch.detail.contains("timed out"), "\(fetch.detail)")
    }

    @Test func refusedConnectionsAreAFailedFetch() async throws {
        let refusing = try RefusingPort()
        let checks = await AssetLinksChecker.check(site: refusing.base, fetcher: WellKnownFetcher(timeout: 2))
        withExtendedLifetime(refusing) {}
        #expect(checks.map(\.name) == ["https", "fetch"])
        #expect(checks.last?.ok == false)
        #expect(checks.last?.fix?.isEmpty == false)
    }
}
