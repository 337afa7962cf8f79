public import PasskeyJSON
public import Foundation

/// The checks `passkey-server assetlinks check` runs on an assetlinks.json file, or on what a
/// site answers at `/.well-known/assetlinks.json`, for passkeys in Android apps.
public enum AssetLinksChecker {
    public static let example = #"[{"relation": ["delegate_permission/common.get_login_creds"], "target": {"namespace": "android_app", "package_name": "com.example.app", "sha256_cert_fingerprints": ["14:6D:…"]}}]"#

    /// One statement as read from the file, for `checkListed`.
    public struct Statement: Sendable, Equatable {
        public var relations: [String]
        public var namespace: String?
        public var packageName: String?
        public var fingerprints: [String]
    }

    // MARK: Whole runs

    /// JSON, array, then per statement: relation, namespace, package name, fingerprints; then
    /// one check per `--android-app`.
    public static func checkFile(_ bytes: [UInt8], apps: [AndroidApp] = []) -> [AssociationCheck] {
        let parsed = AppleAppSiteAssociationChecker.checkJSON(bytes)
        var checks = [parsed.check.withFix(parsed.check.ok ? nil : "make the file valid JSON (quotes, commas, brackets), e.g. \(example).")]
        guard let value = parsed.value else { return checks }
        let array = checkTopLevelArray(value)
        checks.append(array.check)
        guard let items = array.items else { return checks }
        var statements: [Statement] = []
        for (index, item) in items.enumerated() {
            let label = "statement[\(index)]"
            guard let object = item.objectValue else {
                checks.append(.fail("\(label)", "is \(item.kind), not an object", fix: "make each statement an object with \"relation\" and \"target\", as in \(example)."))
                continue
            }
            let relation = checkRelation(object, label: label)
            let target = object["target"]?.objectValue ?? [:]
            let namespace = checkNamespace(object, label: label)
            let package = checkPackageName(target, label: label)
            let fingerprints = checkFingerprints(target, label: label)
            checks += [relation.check, namespace.check, package.check, fingerprints.check]
            statements.append(Statement(relations: relation.relations, namespace: namespace.namespace, packageName: package.name, fingerprints: fingerprints.values))
        }
        for app in apps { checks.append(checkListed(app, statements: statements)) }
        return checks
    }

    /// Redirect, status, content type, then the file checks on the body.
    public static func checkFetched(_ document: FetchedDocument, apps: [AndroidApp] = []) -> [AssociationCheck] {
        var checks = [SiteChecks.checkNoRedirect(document), SiteChecks.checkStatus(document)]
        guard checks.allSatisfy(\.ok) else { return checks }
        checks.append(SiteChecks.checkContentType(document))
        if document.truncated {
            checks.append(.fail("size", "more than \(document.body.count) bytes", fix: "keep assetlinks.json to the statements the site needs."))
            return checks
        }
        return checks + checkFile(document.body, apps: apps)
    }

    public static func check(site: URL, apps: [AndroidApp] = [], fetcher: some WellKnownFetching) async -> [AssociationCheck] {
        let scheme = SiteChecks.checkScheme(site)
        guard scheme.ok else { return [scheme] }
        let url = SiteChecks.url(site, path: AssetLinks.path)
        do {
            let document = try await fetcher.fetch(url)
            return [scheme, .pass("fetch", "GET \(url.absoluteString)")] + checkFetched(document, apps: apps)
        } catch {
            return [scheme, .fail("fetch", "GET \(url.absoluteString) failed: \(error)",
                                  fix: "make the site reachable over https from the internet with a certificate from a public CA.")]
        }
    }

    // MARK: Rules

    /// The file is a JSON array of statements, at least one.
    public static func checkTopLevelArray(_ value: JSONValue) -> (check: AssociationCheck, items: [JSONValue]?) {
        guard let items = value.arrayValue else {
            return (.fail("top-level array", "the file is \(value.kind), not an array", fix: "make the file a JSON array of statements, e.g. \(example)."), nil)
        }
        guard !items.isEmpty else {
            return (.fail("top-level array", "the array is empty", fix: "add a statement for your app, e.g. \(example) (or start the server with --android-app)."), nil)
        }
        return (.pass("top-level array", "\(items.count) statement\(items.count == 1 ? "" : "s")"), items)
    }

    /// The statement's `relation` array includes `delegate_permission/common.get_login_creds`.
    public static func checkRelation(_ statement: [String: JSONValue], label: String) -> (check: AssociationCheck, relations: [String]) {
        let name = "\(label) relation"
        let fix = "add \"\(AssetLinks.loginRelation)\" to \"relation\"; without it Credential Manager will not offer the site's passkeys to the app."
        guard let array = statement["relation"]?.arrayValue else {
            return (.fail(name, "no \"relation\" array", fix: fix), [])
        }
        let relations = array.compactMap(\.stringValue)
        guard relations.contains(AssetLinks.loginRelation) else {
            return (.fail(name, "relation is [\(relations.joined(separator: ", "))], without get_login_creds", fix: fix), relations)
        }
        return (.pass(name, "includes get_login_creds"), relations)
    }

    /// `target.namespace` is `android_app`.
    public static func checkNamespace(_ statement: [String: JSONValue], label: String) -> (check: AssociationCheck, namespace: String?) {
        let name = "\(label) namespace"
        guard let target = statement["target"]?.objectValue else {
            return (.fail(name, "no \"target\" object", fix: "add \"target\": {\"namespace\": \"android_app\", \"package_name\": …, \"sha256_cert_fingerprints\": […]}."), nil)
        }
        let namespace = target["namespace"]?.stringValue
        guard namespace == "android_app" else {
            return (.fail(name, namespace.map { "target.namespace is \"\($0)\"" } ?? "target has no \"namespace\" string",
                          fix: "set \"namespace\": \"android_app\" in the target."), namespace)
        }
        return (.pass(name, "android_app"), namespace)
    }

    /// `target.package_name` is a valid Android package name.
    public static func checkPackageName(_ target: [String: JSONValue], label: String) -> (check: AssociationCheck, name: String?) {
        let name = "\(label) package_name"
        guard let package = target["package_name"]?.stringValue else {
            return (.fail(name, "target has no \"package_name\" string", fix: "add \"package_name\": \"com.example.app\" (the applicationId)."), nil)
        }
        if let problem = AndroidApp.packageNameProblem(package) { return (.fail(name, problem, fix: AndroidApp.packageFix), package) }
        return (.pass(name, package), package)
    }

    /// `target.sha256_cert_fingerprints` is a non-empty array of 32-byte colon-separated hex.
    public static func checkFingerprints(_ target: [String: JSONValue], label: String) -> (check: AssociationCheck, values: [String]) {
        let name = "\(label) sha256_cert_fingerprints"
        guard let array = target["sha256_cert_fingerprints"]?.arrayValue, !array.isEmpty else {
            return (.fail(name, "no non-empty \"sha256_cert_fingerprints\" array", fix: "add \"sha256_cert_fingerprints\": [\"14:6D:…\"]: " + AndroidApp.fingerprintFix), [])
        }
        var values: [String] = []
        for entry in array {
            guard let text = entry.stringValue, AndroidApp.parseFingerprint(text) != nil else {
                let shown = entry.stringValue.map { "\"\($0)\"" } ?? entry.kind
                return (.fail(name, "\(shown) is not a SHA-256 fingerprint", fix: AndroidApp.fingerprintFix), values)
            }
            values.append(text)
        }
        return (.pass(name, "\(values.count) fingerprint\(values.count == 1 ? "" : "s")"), values)
    }

    /// The app from `--android-app` is listed: its package with its fingerprint, in a
    /// statement with get_login_creds.
    public static func checkListed(_ app: AndroidApp, statements: [Statement]) -> AssociationCheck {
        let name = "app listed: \(app.packageName)"
        let login = statements.filter { $0.relations.contains(AssetLinks.loginRelation) && $0.namespace == "android_app" }
        let samePackage = login.filter { $0.packageName == app.packageName }
        if samePackage.contains(where: { $0.fingerprints.compactMap(AndroidApp.parseFingerprint).contains(app.fingerprint) }) {
            return .pass(name, "with fingerprint \(app.fingerprintText)")
        }
        if !samePackage.isEmpty {
            return .fail(name, "listed, but not with the fingerprint \(app.fingerprintText)",
                         fix: "add \"\(app.fingerprintText)\" to its sha256_cert_fingerprints (the Play App Signing key differs from your upload key).")
        }
        return .fail(name, "no get_login_creds statement for \(app.packageName)",
                     fix: "add a statement for it, or start the server with --android-app \(app.packageName):\(app.fingerprintText).")
    }
}

extension AssociationCheck {
    /// The same check with another fix line.
    func withFix(_ fix: String?) -> AssociationCheck {
        AssociationCheck(name: name, ok: ok, detail: detail, fix: ok ? nil : fix)
    }
}
