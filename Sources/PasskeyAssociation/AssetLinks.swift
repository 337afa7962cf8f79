public import PasskeyJSON

/// `/.well-known/assetlinks.json` (Digital Asset Links) letting Android apps use the RP's
/// passkeys: one statement per package with relation `get_login_creds`.
public enum AssetLinks {
    public static let path = "/.well-known/assetlinks.json"
    public static let loginRelation = "delegate_permission/common.get_login_creds"

    /// One statement per package, in the order first given; a package given with several
    /// fingerprints (key rotation, debug + release) lists them all.
    public static func statements(for apps: [AndroidApp]) -> JSONValue {
        var packages: [String] = []
        var fingerprints: [String: [String]] = [:]
        for app in apps {
            if fingerprints[app.packageName] == nil { packages.append(app.packageName) }
            if fingerprints[app.packageName, default: []].contains(app.fingerprintText) == false {
                fingerprints[app.packageName, default: []].append(app.fingerprintText)
            }
        }
        return .array(packages.map { package in
            .object([
                "relation": .array([.string(loginRelation)]),
                "target": .object([
                    "namespace": .string("android_app"),
                    "package_name": .string(package),
                    "sha256_cert_fingerprints": .array((fingerprints[package] ?? []).map(JSONValue.string)),
                ]),
            ])
        })
    }

    /// The file's bytes.
    public static func document(for apps: [AndroidApp]) -> [UInt8] {
        statements(for: apps).encoded()
    }
}
