import PasskeyJSON
import Foundation
import PasskeyAssociation
import PasskeyCore
import Testing

/// Google's documentation example fingerprint, as keytool prints it.
let keytoolFingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
let otherFingerprint = Array(repeating: "AB", count: 32).joined(separator: ":")

@Suite struct AndroidAppTests {
    @Test func parsesPackageAndKeytoolFingerprint() throws {
        let app = try AndroidApp(argument: "com.example.app:\(keytoolFingerprint)")
        #expect(app.packageName == "com.example.app")
        #expect(app.fingerprint.count == 32)
        #expect(app.fingerprint.first == 0x14 && app.fingerprint.last == 0xE5)
        #expect(app.fingerprintText == keytoolFingerprint)
        // Lower-case input is accepted and written back in upper case.
        #expect(try AndroidApp(argument: "com.example.app:\(keytoolFingerprint.lowercased())") == app)
    }

    /// The origin Credential Manager reports: base64url without padding of the 32 bytes,
    /// computed here with the core's own encoder and Foundation's.
    @Test func originIsTheApkKeyHash() throws {
        let app = try AndroidApp(argument: "com.example.app:\(keytoolFingerprint)")
        #expect(app.origin == "android:apk-key-hash:" + Base64URL.encode(app.fingerprint))
        #expect(!app.origin.contains("=") && !app.origin.contains("+") && !app.origin.contains("/"))
        let standard = Data(app.fingerprint).base64EncodedString()
        #expect(Base64URL.decode(String(app.origin.dropFirst("android:apk-key-hash:".count))) == Base64URL.decode(standard))
        // Origin.normalize keeps it verbatim, so the RP compares it exactly.
        #expect(try Origin.normalize(app.origin) == app.origin)
    }

    @Test(arguments: [
        "com.example.app",                                  // no fingerprint
        "com.example.app:\(keytoolFingerprint.dropLast(3))", // 31 bytes
        "com.example.app:\(keytoolFingerprint):AB",          // 33 bytes
        "com.example.app:\(keytoolFingerprint.replacingOccurrences(of: ":", with: ""))", // no colons
        "com.example.app:\(keytoolFingerprint.replacingOccurrences(of: "14", with: "G4"))",
        "com.example.app:\(keytoolFingerprint.replacingOccurrences(of: "14:", with: "1:4"))",
        "app:\(keytoolFingerprint)",                         // one segment
        "com.1example.app:\(keytoolFingerprint)",            // segment starts with a digit
        "com.example-app:\(keytoolFingerprint)",             // hyphen
        "com..app:\(keytoolFingerprint)",                    // empty segment
    ])
    func refusesMalformedArguments(_ argument: String) {
        #expect(throws: AndroidApp.Invalid.self) { try AndroidApp(argument: argument) }
        do { _ = try AndroidApp(argument: argument) } catch { #expect("\(error)".contains("Fix:")) }
    }

    @Test func documentGroupsFingerprintsByPackage() throws {
        let apps = [
            try AndroidApp(argument: "com.example.app:\(keytoolFingerprint)"),
            try AndroidApp(argument: "com.example.other:\(otherFingerprint)"),
            try AndroidApp(argument: "com.example.app:\(otherFingerprint)"),
            try AndroidApp(argument: "com.example.app:\(otherFingerprint)"),
        ]
        let parsed = try JSONSerialization.jsonObject(with: Data(AssetLinks.document(for: apps))) as? [[String: Any]]
        let statements = try #require(parsed)
        #expect(statements.count == 2)
        #expect(statements[0]["relation"] as? [String] == ["delegate_permission/common.get_login_creds"])
        let target = try #require(statements[0]["target"] as? [String: Any])
        #expect(target["namespace"] as? String == "android_app")
        #expect(target["package_name"] as? String == "com.example.app")
        #expect(target["sha256_cert_fingerprints"] as? [String] == [keytoolFingerprint, otherFingerprint])
        #expect((statements[1]["target"] as? [String: Any])?["package_name"] as? String == "com.example.other")
        // And the checker accepts what the server serves.
        #expect(AssetLinksChecker.checkFile(AssetLinks.document(for: apps), apps: apps).allSatisfy { $0.ok })
    }
}

/// One file per rule of `assetlinks check`.
@Suite struct AssetLinksCheckerTests {
    static func statement(relation: String = #"["delegate_permission/common.get_login_creds"]"#, namespace: String = "android_app",
                          package: String = "com.example.app", fingerprints: String = #"["\#(keytoolFingerprint)"]"#) -> String {
        #"{"relation": \#(relation), "target": {"namespace": "\#(namespace)", "package_name": "\#(package)", "sha256_cert_fingerprints": \#(fingerprints)}}"#
    }

    func onlyFailure(_ text: String, apps: [AndroidApp] = []) -> AssociationCheck? {
        let failed = AssetLinksChecker.checkFile(Array(text.utf8), apps: apps).filter { !$0.ok }
        return failed.count == 1 ? failed[0] : nil
    }

    @Test func aGoodFilePasses() throws {
        let app = try AndroidApp(argument: "com.example.app:\(keytoolFingerprint)")
        let checks = AssetLinksChecker.checkFile(Array("[\(Self.statement())]".utf8), apps: [app])
        #expect(checks.allSatisfy { $0.ok }, "\(checks)")
        #expect(checks.map(\.name) == [
            "JSON", "top-level array", "statement[0] relation", "statement[0] namespace", "statement[0] package_name",
            "statement[0] sha256_cert_fingerprints", "app listed: com.example.app",
        ])
    }

    @Test func notJSON() throws {
        #expect(try #require(onlyFailure("[\(Self.statement())")).name == "JSON")
    }

    @Test func notAnArray() throws {
        let failure = try #require(onlyFailure(Self.statement()))
        #expect(failure.name == "top-level array")
        #expect(failure.detail.contains("an object"))
    }

    @Test func emptyArray() throws {
        let failure = try #require(onlyFailure("[]"))
        #expect(failure.name == "top-level array")
        #expect(failure.fix?.contains("--android-app") == true)
    }

    @Test func statementNotAnObject() throws {
        #expect(try #require(onlyFailure(#"[\#(Self.statement()), "x"]"#)).name == "statement[1]")
    }

    @Test func relationWithoutGetLoginCreds() throws {
        let failure = try #require(onlyFailure("[\(Self.statement(relation: #"["delegate_permission/common.handle_all_urls"]"#))]"))
        #expect(failure.name == "statement[0] relation")
        #expect(failure.fix?.contains("delegate_permission/common.get_login_creds") == true)
    }

    @Test func namespaceNotAndroidApp() throws {
        let failure = try #require(onlyFailure("[\(Self.statement(namespace: "web"))]"))
        #expect(failure.name == "statement[0] namespace")
        #expect(failure.detail.contains("\"web\""))
    }

    @Test func badPackageName() throws {
        let failure = try #require(onlyFailure("[\(Self.statement(package: "example"))]"))
        #expect(failure.name == "statement[0] package_name")
    }

    @Test(arguments: [#"[]"#, #"["14:6D"]"#, #"[42]"#, #""\#(keytoolFingerprint)""#])
    func badFingerprints(_ fingerprints: String) throws {
        let failure = try #require(onlyFailure("[\(Self.statement(fingerprints: fingerprints))]"))
        #expect(failure.name == "statement[0] sha256_cert_fingerprints")
    }

    @Test func appNotListed() throws {
        let other = try AndroidApp(argument: "com.example.other:\(keytoolFingerprint)")
        let missing = try #require(onlyFailure("[\(Self.statement())]", apps: [other]))
        #expect(missing.name == "app listed: com.example.other")
        #expect(missing.fix?.contains("--android-app com.example.other:\(keytoolFingerprint)") == true)
        let rotated = try AndroidApp(argument: "com.example.app:\(otherFingerprint)")
        let wrongKey = try #require(onlyFailure("[\(Self.statement())]", apps: [rotated]))
        #expect(wrongKey.detail.contains("not with the fingerprint"))
    }

    func document(status: Int = 200, headers: [String: String] = ["Content-Type": "application/json"], body: String) -> FetchedDocument {
        FetchedDocument(url: URL(string: "https://example.com/.well-known/assetlinks.json")!, status: status, headers: headers, body: Array(body.utf8))
    }

    @Test func fetchedAnswers() throws {
        let good = "[\(Self.statement())]"
        #expect(AssetLinksChecker.checkFetched(document(body: good)).allSatisfy { $0.ok })
        let redirect = AssetLinksChecker.checkFetched(document(status: 302, headers: ["Location": "/elsewhere"], body: ""))
        #expect(redirect.first { $0.name == "no redirect" }?.detail.contains("/elsewhere") == true)
        #expect(!AssetLinksChecker.checkFetched(document(status: 500, body: good)).allSatisfy { $0.ok })
        let wrongType = AssetLinksChecker.checkFetched(document(headers: ["Content-Type": "text/plain"], body: good)).filter { !$0.ok }
        #expect(wrongType.map(\.name) == ["content type"])
    }
}
