/// An app ID as the apple-app-site-association file lists it: a 10-character team ID (upper-case
/// letters and digits), a dot, and the bundle ID (letters, digits, hyphens, dots).
public enum AppleAppID {
    public static let fix = "write it as TEAMID.bundle.id, e.g. ABCDE12345.com.example.app (the team ID is the 10 upper-case letters or digits shown under Membership on developer.apple.com)."

    /// nil when `appID` is well formed, else what is wrong with it.
    public static func problem(_ appID: String) -> String? {
        let parts = appID.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return "\"\(appID)\" has no dot between team ID and bundle ID" }
        let team = parts[0], bundle = parts[1]
        guard team.count == 10, team.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) }) else {
            return "\"\(appID)\" has team ID \"\(team)\", not 10 upper-case letters or digits"
        }
        guard !bundle.isEmpty, !bundle.hasPrefix("."), !bundle.hasSuffix("."), !bundle.contains(".."),
              bundle.unicodeScalars.allSatisfy({
                  ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "."
              })
        else { return "\"\(appID)\" has an invalid bundle ID \"\(bundle)\"" }
        return nil
    }
}
