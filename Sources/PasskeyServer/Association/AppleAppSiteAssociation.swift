internal import PasskeyJSON
internal import PasskeyAccounts
internal import PasskeyAssociation

/// The apple-app-site-association file as Apple's CDN fetches it: the top-level file's JSON,
/// with `--ios-app-id` values merged into `webcredentials.apps`, validated once at start-up
/// with the rules of `passkey-server aasa check`.
public struct AppleAppSiteAssociation: Sendable {
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The JSON served: the file byte for byte when there is nothing to merge, else the file
    /// re-encoded with the merged `webcredentials.apps` (every other section kept as written).
    public let json: [UInt8]
    /// Problems that do not stop start-up (unknown top-level keys, no app listed).
    public let warnings: [String]
    /// The apps whose passkeys this site serves (`webcredentials.apps` as served).
    public let apps: [String]

    /// Apple's limit on the file's size.
    public static let maximumSize = AppleAppSiteAssociationChecker.maximumSize
    public static var knownTopLevelKeys: Set<String> { AppleAppSiteAssociationChecker.knownTopLevelKeys }

    /// - Parameters:
    ///   - file: the file's bytes, or nil when there is no file.
    ///   - source: how to name the file in messages.
    ///   - appIDs: `TEAMID.bundle.id` values to merge into `webcredentials.apps`.
    public init(file: [UInt8]?, source: String = "apple-app-site-association", appIDs: [String]) throws(Invalid) {
        typealias Rules = AppleAppSiteAssociationChecker
        for appID in appIDs {
            if let problem = AppleAppID.problem(appID) {
                throw Invalid(message: "--ios-app-id: \(problem). Fix: \(AppleAppID.fix)")
            }
        }
        guard let file else {
            guard !appIDs.isEmpty else {
                throw Invalid(message: "no association file and no --ios-app-id given. Fix: give --aasa FILE or --ios-app-id TEAMID.bundle.id.")
            }
            var apps: [String] = []
            for appID in appIDs where !apps.contains(appID) { apps.append(appID) }
            self.json = JSONValue.object(["webcredentials": .object(["apps": .array(apps.map(JSONValue.string))])]).encoded()
            self.warnings = []
            self.apps = apps
            return
        }
        try Self.require(Rules.checkSize(file.count), source)
        let parsed = Rules.checkJSON(file)
        try Self.require(parsed.check, source)
        guard let value = parsed.value else { throw Self.invalid(parsed.check, source) }
        let object = Rules.checkTopLevelObject(value)
        try Self.require(object.check, source)
        guard var root = object.root else { throw Self.invalid(object.check, source) }

        var warnings: [String] = []
        let keys = Rules.checkTopLevelKeys(root)
        if !keys.ok { warnings.append("\(source): \(keys.detail). Fix: \(keys.fix ?? "")") }

        // webcredentials: optional in the file when --ios-app-id supplies the apps.
        var section: [String: JSONValue] = [:]
        var apps: [String] = []
        if root["webcredentials"] != nil {
            let found = Rules.checkWebCredentials(root)
            try Self.require(found.check, source)
            section = found.section ?? [:]
            if section["apps"] != nil, section["apps"] != .array([]) {
                let listed = Rules.checkAppsArray(section)
                try Self.require(listed.check, source)
                apps = listed.apps
                for (index, appID) in apps.enumerated() {
                    if let problem = AppleAppID.problem(appID) {
                        throw Invalid(message: "\(source): webcredentials.apps[\(index)]: \(problem). Fix: \(AppleAppID.fix)")
                    }
                }
            }
        }
        for appID in appIDs where !apps.contains(appID) { apps.append(appID) }
        if apps.isEmpty {
            warnings.append("\(source): webcredentials.apps lists no app, so no iOS app can use this site's passkeys. Fix: add \"webcredentials\": {\"apps\": [\"TEAMID.bundle.id\"]} or start with --ios-app-id.")
        }

        guard !appIDs.isEmpty else {
            self.json = file   // nothing to merge: served exactly as written
            self.warnings = warnings
            self.apps = apps
            return
        }
        section["apps"] = .array(apps.map(JSONValue.string))
        root["webcredentials"] = .object(section)
        let merged = JSONValue.object(root).encoded()
        let size = Rules.checkSize(merged.count)
        guard size.ok else {
            throw Invalid(message: "\(source) with the --ios-app-id values merged: \(size.detail). Fix: \(size.fix ?? "")")
        }
        self.json = merged
        self.warnings = warnings
        self.apps = apps
    }

    /// A failed rule stops start-up; the message names the file, the key and the fix.
    private static func require(_ check: AssociationCheck, _ source: String) throws(Invalid) {
        guard check.ok else { throw invalid(check, source) }
    }

    private static func invalid(_ check: AssociationCheck, _ source: String) -> Invalid {
        Invalid(message: "\(source): \(check.name): \(check.detail). Fix: \(check.fix ?? "see passkey-server aasa check \(source)")")
    }
}
