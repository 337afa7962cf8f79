public import PasskeyJSON
public import Foundation

/// The checks `passkey-server aasa check` runs: on a file's bytes, and on what a site answers
/// at `/.well-known/apple-app-site-association`, the way Apple's fetcher sees them.
/// Each check is a named function; the server's start-up validation uses the same rules.
public enum AppleAppSiteAssociationChecker {
    public static let path = "/.well-known/apple-app-site-association"
    /// Apple's limit on the file's size.
    public static let maximumSize = 128 * 1024
    public static let knownTopLevelKeys: Set<String> = ["applinks", "webcredentials", "appclips", "activitycontinuation"]
    public static let example = #"{"webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}"#

    // MARK: Whole runs

    /// The file checks, in order, then one check per `--app-id`. A check that later ones
    /// depend on (parsing, the object) ends the list when it fails.
    public static func checkFile(_ bytes: [UInt8], appIDs: [String] = []) -> [AssociationCheck] {
        var checks = [checkSize(bytes.count)]
        let parsed = checkJSON(bytes)
        checks.append(parsed.check)
        guard let value = parsed.value else { return checks }
        let object = checkTopLevelObject(value)
        checks.append(object.check)
        guard let root = object.root else { return checks }
        checks.append(checkTopLevelKeys(root))
        let section = checkWebCredentials(root)
        checks.append(section.check)
        guard let section = section.section else { return checks + appIDs.map { checkListed($0, apps: []) } }
        let apps = checkAppsArray(section)
        checks.append(apps.check)
        for app in apps.apps { checks.append(checkAppIDFormat(app)) }
        for appID in appIDs { checks.append(checkListed(appID, apps: apps.apps)) }
        return checks
    }

    /// What `url`'s site answered at `path`: redirect, status, content type, size, then the
    /// file checks on the body and the RP ID against the host.
    public static func checkFetched(_ document: FetchedDocument, appIDs: [String] = [], rpID: String? = nil) -> [AssociationCheck] {
        var checks: [AssociationCheck] = []
        if let rpID { checks.append(SiteChecks.checkRPID(rpID, url: document.url)) }
        checks.append(SiteChecks.checkNoRedirect(document))
        checks.append(SiteChecks.checkStatus(document))
        guard checks.last?.ok == true else { return checks }
        checks.append(SiteChecks.checkContentType(document))
        if document.truncated {
            checks.append(.fail("size", "more than \(document.body.count) bytes", fix: "keep the file under \(maximumSize / 1024) KB."))
            return checks
        }
        return checks + checkFile(document.body, appIDs: appIDs)
    }

    /// Fetches `site`'s association file and checks it. A URL that is not https (outside
    /// localhost) or a fetch that fails ends the list there.
    public static func check(site: URL, appIDs: [String] = [], rpID: String? = nil, fetcher: some WellKnownFetching) async -> [AssociationCheck] {
        let scheme = SiteChecks.checkScheme(site)
        guard scheme.ok else { return [scheme] }
        let url = SiteChecks.url(site, path: path)
        do {
            let document = try await fetcher.fetch(url)
            return [scheme, .pass("fetch", "GET \(url.absoluteString)")] + checkFetched(document, appIDs: appIDs, rpID: rpID)
        } catch {
            return [scheme, .fail("fetch", "GET \(url.absoluteString) failed: \(error)",
                                  fix: "make the site reachable over https from the internet with a certificate from a public CA.")]
        }
    }

    // MARK: Rules

    /// Apple fetches at most 128 KB.
    public static func checkSize(_ count: Int) -> AssociationCheck {
        if count <= maximumSize { return .pass("size", "\(count) bytes (limit \(maximumSize))") }
        return .fail("size", "\(count) bytes, over Apple's limit of \(maximumSize)",
                     fix: "shrink the file under \(maximumSize / 1024) KB, e.g. with fewer applinks components (wildcards cover many paths).")
    }

    public static func checkJSON(_ bytes: [UInt8]) -> (check: AssociationCheck, value: JSONValue?) {
        do {
            let value = try JSONValue(parsing: bytes)
            return (.pass("JSON", "parses"), value)
        } catch {
            return (.fail("JSON", "not valid JSON: \(error)", fix: "make the file valid JSON (quotes, commas, braces), e.g. \(example)."), nil)
        }
    }

    public static func checkTopLevelObject(_ value: JSONValue) -> (check: AssociationCheck, root: [String: JSONValue]?) {
        if let root = value.objectValue { return (.pass("top-level object", "the file is a JSON object"), root) }
        return (.fail("top-level object", "the file is \(value.kind), not a JSON object", fix: "make the whole file one JSON object, e.g. \(example)."), nil)
    }

    /// Keys Apple does not know are ignored by Apple; usually they are a misspelt section.
    public static func checkTopLevelKeys(_ root: [String: JSONValue]) -> AssociationCheck {
        let unknown = root.keys.filter { !knownTopLevelKeys.contains($0) }.sorted()
        guard !unknown.isEmpty else {
            return .pass("top-level keys", root.isEmpty ? "none" : root.keys.sorted().joined(separator: ", "))
        }
        let list = unknown.map { "\"\($0)\"" }.joined(separator: ", ")
        return .fail("top-level keys", "unknown top-level key\(unknown.count == 1 ? "" : "s") \(list), which Apple ignores",
                     fix: "rename or remove \(list); Apple reads only applinks, webcredentials, appclips and activitycontinuation.")
    }

    /// Passkeys in apps need `webcredentials`, an object.
    public static func checkWebCredentials(_ root: [String: JSONValue]) -> (check: AssociationCheck, section: [String: JSONValue]?) {
        guard let value = root["webcredentials"] else {
            return (.fail("webcredentials", "no \"webcredentials\" key", fix: "add \"webcredentials\": {\"apps\": [\"TEAMID.bundle.id\"]} (or start the server with --ios-app-id)."), nil)
        }
        guard let section = value.objectValue else {
            return (.fail("webcredentials", "\"webcredentials\" is \(value.kind), not an object", fix: "make it an object: \"webcredentials\": {\"apps\": [\"TEAMID.bundle.id\"]}."), nil)
        }
        return (.pass("webcredentials", "present"), section)
    }

    /// `webcredentials.apps`: a non-empty array of strings.
    public static func checkAppsArray(_ section: [String: JSONValue]) -> (check: AssociationCheck, apps: [String]) {
        let name = "webcredentials.apps"
        guard let value = section["apps"] else {
            return (.fail(name, "\"webcredentials\" has no \"apps\" key", fix: "add \"apps\": [\"TEAMID.bundle.id\"] inside \"webcredentials\"."), [])
        }
        guard let array = value.arrayValue else {
            return (.fail(name, "\"webcredentials.apps\" is \(value.kind), not an array", fix: "make it an array of strings: \"apps\": [\"TEAMID.bundle.id\"]."), [])
        }
        var apps: [String] = []
        for (index, entry) in array.enumerated() {
            guard let app = entry.stringValue else {
                return (.fail(name, "webcredentials.apps[\(index)] is \(entry.kind), not a string", fix: "list each app as a \"TEAMID.bundle.id\" string."), [])
            }
            apps.append(app)
        }
        guard !apps.isEmpty else {
            return (.fail(name, "\"webcredentials.apps\" is empty", fix: "list your app: \"apps\": [\"TEAMID.bundle.id\"] (or start the server with --ios-app-id)."), [])
        }
        return (.pass(name, "\(apps.count) app\(apps.count == 1 ? "" : "s")"), apps)
    }

    /// Each listed app ID is TEAMID.bundle.id.
    public static func checkAppIDFormat(_ appID: String) -> AssociationCheck {
        let name = "app ID format: \(appID)"
        if let problem = AppleAppID.problem(appID) { return .fail(name, problem, fix: AppleAppID.fix) }
        return .pass(name, "team ID \(appID.prefix(10)), bundle ID \(appID.dropFirst(11))")
    }

    /// The app given with `--app-id` is listed (exact, case-sensitive, as Apple compares).
    public static func checkListed(_ appID: String, apps: [String]) -> AssociationCheck {
        let name = "app listed: \(appID)"
        if apps.contains(appID) { return .pass(name, "in webcredentials.apps") }
        if let near = apps.first(where: { $0.lowercased() == appID.lowercased() }) {
            return .fail(name, "listed only as \(near) (app IDs are case-sensitive)", fix: "list it exactly as \(appID).")
        }
        return .fail(name, "not in webcredentials.apps", fix: "add \"\(appID)\" to webcredentials.apps, or start the server with --ios-app-id \(appID).")
    }
}
