import Foundation
import PasskeyAssociation
import Testing

/// One file per rule of `aasa check`, each breaking only that rule.
@Suite struct AppleAppSiteAssociationCheckerTests {
    static let good = #"{"applinks": {"details": []}, "webcredentials": {"apps": ["ABCDE12345.com.example.app", "FGHIJ67890.com.example.other"]}}"#

    func checks(_ text: String, appIDs: [String] = []) -> [AssociationCheck] {
        AppleAppSiteAssociationChecker.checkFile(Array(text.utf8), appIDs: appIDs)
    }

    /// The single failed check of a run, or nil when there is not exactly one.
    func onlyFailure(_ checks: [AssociationCheck]) -> AssociationCheck? {
        let failed = checks.filter { !$0.ok }
        return failed.count == 1 ? failed[0] : nil
    }

    @Test func aGoodFilePassesEveryCheck() {
        let result = checks(Self.good, appIDs: ["ABCDE12345.com.example.app"])
        #expect(result.allSatisfy { $0.ok }, "\(result)")
        #expect(result.map(\.name) == [
            "size", "JSON", "top-level object", "top-level keys", "webcredentials", "webcredentials.apps",
            "app ID format: ABCDE12345.com.example.app", "app ID format: FGHIJ67890.com.example.other",
            "app listed: ABCDE12345.com.example.app",
        ])
        #expect(result.allSatisfy { $0.fix == nil })
    }

    @Test func overTheSizeLimit() throws {
        let padding = String(repeating: "a", count: AppleAppSiteAssociationChecker.maximumSize)
        let failure = try #require(onlyFailure(checks(#"{"applinks": {"details": [], "x": "\#(padding)"}, "webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}"#)))
        #expect(failure.name == "size")
        #expect(failure.detail.contains("131072"))
        #expect(failure.fix?.isEmpty == false)
        // Exactly at the limit is fine.
        #expect(AppleAppSiteAssociationChecker.checkSize(AppleAppSiteAssociationChecker.maximumSize).ok)
    }

    @Test func notJSON() throws {
        let result = checks(#"{"webcredentials": {"apps": ["ABCDE12345.com.example.app",]}"#)
        let failure = try #require(onlyFailure(result))
        #expect(failure.name == "JSON")
        #expect(result.last == failure)   // nothing after a file that does not parse
    }

    @Test func notAnObject() throws {
        let failure = try #require(onlyFailure(checks(#"[{"webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}]"#)))
        #expect(failure.name == "top-level object")
        #expect(failure.detail.contains("an array"))
    }

    @Test func unknownTopLevelKey() throws {
        let failure = try #require(onlyFailure(checks(#"{"webcredentials": {"apps": ["ABCDE12345.com.example.app"]}, "webcredential": {}}"#)))
        #expect(failure.name == "top-level keys")
        #expect(failure.detail.contains("\"webcredential\""))
        #expect(failure.fix?.contains("applinks, webcredentials, appclips and activitycontinuation") == true)
    }

    @Test func noWebCredentials() throws {
        let failure = try #require(onlyFailure(checks(#"{"applinks": {"details": []}}"#)))
        #expect(failure.name == "webcredentials")
        #expect(failure.fix?.contains("--ios-app-id") == true)
    }

    @Test func webCredentialsNotAnObject() throws {
        let failure = try #require(onlyFailure(checks(#"{"webcredentials": ["ABCDE12345.com.example.app"]}"#)))
        #expect(failure.name == "webcredentials")
        #expect(failure.detail.contains("an array"))
    }

    @Test(arguments: [
        (#"{"webcredentials": {}}"#, "no \"apps\""),
        (#"{"webcredentials": {"apps": "ABCDE12345.com.example.app"}}"#, "a string, not an array"),
        (#"{"webcredentials": {"apps": [12]}}"#, "apps[0] is a number"),
        (#"{"webcredentials": {"apps": []}}"#, "empty"),
    ])
    func appsArray(_ text: String, _ detail: String) throws {
        let failure = try #require(onlyFailure(checks(text)))
        #expect(failure.name == "webcredentials.apps")
        #expect(failure.detail.contains(detail), "\(failure.detail)")
    }

    @Test(arguments: [
        ("abcde12345.com.example.app", "team ID"),
        ("ABCDE1234.com.example.app", "team ID"),
        ("ABCDE12345", "no dot"),
        ("ABCDE12345.com..app", "bundle ID"),
        ("ABCDE12345.com.example.app.", "bundle ID"),
        ("ABCDE12345.com.exa mple", "bundle ID"),
    ])
    func appIDFormat(_ appID: String, _ detail: String) throws {
        let failure = try #require(onlyFailure(checks(#"{"webcredentials": {"apps": ["\#(appID)"]}}"#)))
        #expect(failure.name == "app ID format: \(appID)")
        #expect(failure.detail.contains(detail), "\(failure.detail)")
        #expect(failure.fix?.contains("TEAMID.bundle.id") == true)
    }

    @Test func appNotListed() throws {
        let failure = try #require(onlyFailure(checks(Self.good, appIDs: ["KLMNO12345.com.example.app"])))
        #expect(failure.name == "app listed: KLMNO12345.com.example.app")
        #expect(failure.fix?.contains("--ios-app-id KLMNO12345.com.example.app") == true)
        // App IDs compare case-sensitively, as Apple compares them.
        let wrongCase = try #require(onlyFailure(checks(Self.good, appIDs: ["ABCDE12345.com.example.App"])))
        #expect(wrongCase.detail.contains("case-sensitive"))
    }

    // MARK: What a site answers

    func document(status: Int = 200, headers: [String: String] = ["Content-Type": "application/json"], body: String = good,
                  url: String = "https://login.example.com/.well-known/apple-app-site-association") -> FetchedDocument {
        FetchedDocument(url: URL(string: url)!, status: status, headers: headers, body: Array(body.utf8))
    }

    @Test func aGoodAnswerPasses() {
        let result = AppleAppSiteAssociationChecker.checkFetched(document(), appIDs: ["ABCDE12345.com.example.app"], rpID: "example.com")
        #expect(result.allSatisfy { $0.ok }, "\(result)")
        #expect(Array(result.map(\.name).prefix(4)) == ["RP ID", "no redirect", "status 200", "content type"])
    }

    @Test func aRedirectIsReportedWithItsLocation() throws {
        let answer = document(status: 301, headers: ["Location": "https://www.example.com/.well-known/apple-app-site-association"], body: "")
        let result = AppleAppSiteAssociationChecker.checkFetched(answer)
        let redirect = try #require(result.first { $0.name == "no redirect" })
        #expect(!redirect.ok)
        #expect(redirect.detail.contains("301") && redirect.detail.contains("https://www.example.com/.well-known/apple-app-site-association"))
        #expect(result.map(\.name) == ["no redirect", "status 200"])   // no file checks on a redirect
    }

    @Test func notFound() throws {
        let failure = try #require(onlyFailure(AppleAppSiteAssociationChecker.checkFetched(document(status: 404, body: "nope"))))
        #expect(failure.name == "status 200")
        #expect(failure.detail.contains("404"))
    }

    @Test func wrongContentType() throws {
        let failure = try #require(onlyFailure(AppleAppSiteAssociationChecker.checkFetched(document(headers: ["Content-Type": "text/html"]))))
        #expect(failure.name == "content type")
        #expect(failure.fix?.contains("application/json") == true)
        let missing = try #require(onlyFailure(AppleAppSiteAssociationChecker.checkFetched(document(headers: [:]))))
        #expect(missing.detail == "no Content-Type header")
        // Parameters are fine.
        #expect(AppleAppSiteAssociationChecker.checkFetched(document(headers: ["content-type": "Application/JSON; charset=utf-8"])).allSatisfy { $0.ok })
    }

    @Test func truncatedAnswerIsTooLarge() throws {
        let big = FetchedDocument(url: URL(string: "https://example.com/.well-known/apple-app-site-association")!, status: 200,
                                  headers: ["Content-Type": "application/json"], body: Array(repeating: 0x20, count: 1000), truncated: true)
        let failure = try #require(onlyFailure(AppleAppSiteAssociationChecker.checkFetched(big)))
        #expect(failure.name == "size")
    }

    @Test(arguments: [
        ("https://example.com", "example.com", true),
        ("https://login.example.com", "example.com", true),
        ("https://Login.Example.com.", "example.com", true),
        ("https://example.com", "login.example.com", false),
        ("https://notexample.com", "example.com", false),
        ("https://example.com", "com", false),
        ("https://example.co.uk", "co.uk", false),
        ("https://shop.example.co.uk", "example.co.uk", true),
        ("http://127.0.0.1:8080", "127.0.0.1", true),
        ("http://127.0.0.1:8080", "0.1", false),
        ("http://[::1]:8080", "::1", true),
        ("http://localhost:8080", "localhost", true),
    ])
    func rpIDMatchesTheHost(_ site: String, _ rpID: String, _ ok: Bool) {
        let check = SiteChecks.checkRPID(rpID, url: URL(string: site)!)
        #expect(check.ok == ok, "\(check)")
        #expect(check.name == "RP ID")
        #expect((check.fix == nil) == ok)
    }

    @Test(arguments: [
        ("https://example.com", true), ("http://example.com", false), ("http://localhost:8080", true),
        ("http://127.0.0.1:1", true), ("http://[::1]:1", true), ("http://127.0.0.2", false),
    ])
    func httpsIsRequiredOutsideLoopback(_ site: String, _ ok: Bool) {
        #expect(SiteChecks.checkScheme(URL(string: site)!).ok == ok)
    }

    /// A fetcher that must not be asked.
    struct RefusingFetcher: WellKnownFetching {
        func fetch(_ url: URL) async throws(WellKnownFetchFailure) -> FetchedDocument {
            Issue.record("fetched \(url)")
            throw WellKnownFetchFailure("not to be fetched")
        }
    }

    @Test func plainHTTPIsNotFetched() async {
        let result = await AppleAppSiteAssociationChecker.check(site: URL(string: "http://example.invalid")!, fetcher: RefusingFetcher())
        #expect(result.count == 1)
        #expect(result.first?.name == "https")
        #expect(result.first?.ok == false)
    }

    @Test func siteOriginIgnoresPathAndQuery() {
        #expect(SiteChecks.origin("https://Example.com/some/path?x=1")?.absoluteString == "https://Example.com")
        #expect(SiteChecks.origin("HTTP://127.0.0.1:8080/")?.absoluteString == "http://127.0.0.1:8080")
        #expect(SiteChecks.origin("example.com") == nil)
        #expect(SiteChecks.origin("ftp://example.com") == nil)
        #expect(SiteChecks.url(URL(string: "https://example.com:8443")!, path: "/.well-known/webauthn").absoluteString == "https://example.com:8443/.well-known/webauthn")
    }
}
