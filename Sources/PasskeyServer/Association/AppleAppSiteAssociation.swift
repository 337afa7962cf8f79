public import Foundation

/// The apple-app-site-association file as Apple's CDN fetches it: the top-level file's JSON,
/// with `--ios-app-id` values merged into `webcredentials.apps`, validated once at start-up.
public struct AppleAppSiteAssociation: Sendable {
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The JSON served, byte for byte.
    public let json: [UInt8]
    /// Problems that do not stop start-up (unknown top-level keys).
    public let warnings: [String]

    /// Apple's limit on the file's size.
    public static let maximumSize = 128 * 1024
    static let knownTopLevelKeys: Set<String> = ["applinks", "webcredentials", "appclips", "activitycontinuation"]

    /// - Parameters:
    ///   - file: the file's bytes, or nil when there is no file.
    ///   - source: how to name the file in messages.
    ///   - appIDs: `TEAMID.bundle.id` values to merge into `webcredentials.apps`.
    public init(file: [UInt8]?, source: String = "apple-app-site-association", appIDs: [String]) throws(Invalid) {
        var root: [String: Any] = [:]
        var warnings: [String] = []
        if let file {
            guard let object = try? JSONSerialization.jsonObject(with: Data(file)), let dictionary = object as? [String: Any] else {
                throw Invalid(message: "\(source): not a JSON object. Fix: the file must be one JSON object such as {\"webcredentials\": {\"apps\": [\"TEAMID.bundle.id\"]}}.")
            }
            root = dictionary
            for key in root.keys.sorted() where !Self.knownTopLevelKeys.contains(key) {
                warnings.append("\(source): unknown top-level key \"\(key)\" is served as it is but Apple ignores it.")
            }
        }
        for appID in appIDs {
            try Self.checkAppID(appID, where: "--ios-app-id")
        }
        var apps: [String] = []
        if let webcredentials = root["webcredentials"] {
            guard let section = webcredentials as? [String: Any] else {
                throw Invalid(message: "\(source): \"webcredentials\" must be an object with an \"apps\" array.")
            }
            guard let listed = section["apps"] as? [Any] else {
                throw Invalid(message: "\(source): \"webcredentials.apps\" must be an array of \"TEAMID.bundle.id\" strings.")
            }
            for (index, entry) in listed.enumerated() {
                guard let appID = entry as? String else {
                    throw Invalid(message: "\(source): webcredentials.apps[\(index)] is not a string. Fix: list app IDs as \"TEAMID.bundle.id\" strings.")
                }
                try Self.checkAppID(appID, where: "\(source): webcredentials.apps[\(index)]")
                apps.append(appID)
            }
        }
        guard file != nil || !appIDs.isEmpty else {
            throw Invalid(message: "no association file and no --ios-app-id given")
        }
        for appID in appIDs where !apps.contains(appID) {
            apps.append(appID)
        }
        var webcredentials = root["webcredentials"] as? [String: Any] ?? [:]
        webcredentials["apps"] = apps
        root["webcredentials"] = webcredentials
        let data: Data
        do {
            data = try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw Invalid(message: "\(source): cannot be serialised again: \(error)")
        }
        guard data.count <= Self.maximumSize else {
            throw Invalid(message: "\(source): \(data.count) bytes; Apple fetches at most \(Self.maximumSize).")
        }
        self.json = [UInt8](data)
        self.warnings = warnings
    }

    /// An app ID is a 10-character team ID (upper-case letters and digits), a dot, and a bundle
    /// ID (letters, digits, hyphens and dots).
    static func checkAppID(_ appID: String, where location: String) throws(Invalid) {
        let parts = appID.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let fix = "Fix: use TEAMID.bundle.id, e.g. ABCDE12345.com.example.app (the team ID is 10 upper-case letters or digits)."
        guard parts.count == 2 else { throw Invalid(message: "\(location): \"\(appID)\" has no dot between team ID and bundle ID. \(fix)") }
        let team = parts[0], bundle = parts[1]
        guard team.count == 10, team.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) }) else {
            throw Invalid(message: "\(location): \"\(appID)\" has team ID \"\(team)\", not 10 upper-case letters or digits. \(fix)")
        }
        guard !bundle.isEmpty, !bundle.hasPrefix("."), !bundle.hasSuffix("."), !bundle.contains(".."),
              bundle.unicodeScalars.allSatisfy({
                  ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "."
              })
        else {
            throw Invalid(message: "\(location): \"\(appID)\" has an invalid bundle ID \"\(bundle)\". \(fix)")
        }
    }
}
