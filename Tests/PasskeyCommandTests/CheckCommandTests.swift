import Foundation
import PasskeyAssociation
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// `aasa check` and `assetlinks check` end to end: the binary against the project's own
/// running server (http://127.0.0.1:PORT is allowed for local checks).
@Suite struct CheckCommandTests {
    static let appID = "ABCDE12345.com.example.shiny"
    static let android = "com.example.shiny:\(exampleFingerprint)"

    func temporaryFile(_ contents: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString).json")
        try Data(contents.utf8).write(to: url)
        return url
    }

    /// The checks below fetch from a server in this test process, which answers slowly while
    /// every other test runs at once on two cores: each gets `--timeout 60`, not the 10 s default.
    @Test func aasaCheckAgainstTheRunningServer() async throws {
        try await withServer({ $0.iosAppIDs = [Self.appID] }) { server, _, _ in
            let site = "http://127.0.0.1:\(server.port)"
            let good = try await CommandRun.run(["aasa", "check", "--timeout", "60", "--url", site, "--app-id", Self.appID, "--rp-id", "127.0.0.1"])
            #expect(good.status == 0, "\(good.output)\(good.errors)")
            for line in ["✔ https:", "✔ fetch: GET \(site)/.well-known/apple-app-site-association", "✔ RP ID:", "✔ no redirect:",
                         "✔ status 200:", "✔ content type: application/json", "✔ size:", "✔ webcredentials.apps: 1 app",
                         "✔ app listed: \(Self.appID)"] {
                #expect(good.output.contains(line), "\(line)\n\(good.output)")
            }
            #expect(!good.output.contains("✘"))
            #expect(good.output.hasSuffix("passed, 0 failed: all good.\n"))

            // The same as JSON.
            let json = try await CommandRun.run(["aasa", "check", "--timeout", "60", "--url", site, "--app-id", Self.appID, "--json"])
            #expect(json.status == 0)
            #expect(json.json["failed"] as? Int == 0)
            #expect(json.json["passed"] as? Int == json.checks.count)
            #expect(json.check("status 200")?["ok"] as? Bool == true)
            #expect(json.check("content type")?["detail"] as? String == "application/json")
            #expect(json.check("app listed: \(Self.appID)")?["fix"] is NSNull)

            // An app that is not listed: exit 1, a ✘ with its fix, the summary.
            let missing = try await CommandRun.run(["aasa", "check", "--timeout", "60", "--url", site, "--app-id", "FGHIJ67890.com.example.other"])
            #expect(missing.status == 1)
            #expect(missing.output.contains("✘ app listed: FGHIJ67890.com.example.other: not in webcredentials.apps\n    fix: "))
            #expect(missing.output.hasSuffix("passed, 1 failed.\n"))

            // An RP ID the host does not belong to.
            let wrongRP = try await CommandRun.run(["aasa", "check", "--timeout", "60", "--url", site, "--rp-id", "example.com", "--json"])
            #expect(wrongRP.status == 1)
            #expect(wrongRP.check("RP ID")?["ok"] as? Bool == false)
            #expect(wrongRP.json["failed"] as? Int == 1)
        }
    }

    @Test func aasaCheckOfAServerWithoutTheFile() async throws {
        try await withServer { server, _, _ in
            let run = try await CommandRun.run(["aasa", "check", "--timeout", "60", "--url", "http://127.0.0.1:\(server.port)", "--json"])
            #expect(run.status == 1)
            #expect(run.check("status 200")?["detail"] as? String == "/.well-known/apple-app-site-association answered 404")
        }
    }

    @Test func aasaCheckOfAFileAndBoth() async throws {
        let good = try temporaryFile(#"{"webcredentials": {"apps": ["\#(Self.appID)"]}}"#)
        let bad = try temporaryFile(#"{"webcredentials": {"apps": ["abcde12345.com.example.shiny"]}}"#)
        defer { try? FileManager.default.removeItem(at: good); try? FileManager.default.removeItem(at: bad) }
        let passing = try await CommandRun.run(["aasa", "check", good.path, "--app-id", Self.appID])
        #expect(passing.status == 0, "\(passing.output)")
        let failing = try await CommandRun.run(["aasa", "check", bad.path, "--json"])
        #expect(failing.status == 1)
        #expect((failing.check("app ID format: abcde12345.com.example.shiny")?["fix"] as? String)?.contains("TEAMID.bundle.id") == true)
        // FILE and --url together: each check says which it is about.
        try await withServer({ $0.iosAppIDs = [Self.appID] }) { server, _, _ in
            let both = try await CommandRun.run(["aasa", "check", good.path, "--timeout", "60", "--url", "http://127.0.0.1:\(server.port)", "--json"])
            #expect(both.status == 0)
            #expect(both.check("file: JSON") != nil && both.check("url: status 200") != nil)
        }
    }

    @Test func usageErrorsExit2() async throws {
        for arguments in [
            ["aasa", "check"],
            ["aasa", "check", "--rp-id", "example.com", "/dev/null"],
            ["aasa", "check", "--url", "https://example.com", "--app-id", "TEAM.com.example"],
            ["aasa", "check", "--url", "example.com"],
            ["aasa", "check", "/nonexistent/apple-app-site-association"],
            ["aasa", "check", "--bogus"],
            ["assetlinks", "check"],
            ["assetlinks", "check", "--url", "https://example.com", "--android-app", "com.example.app:12:34"],
        ] {
            let run = try await CommandRun.run(arguments)
            #expect(run.status == 2, "\(arguments) \(run.errors)")
            #expect(!run.errors.isEmpty, "\(arguments)")
        }
    }

    @Test func assetLinksCheckAgainstTheRunningServer() async throws {
        try await withServer({ $0.androidApps = [try! AndroidApp(argument: Self.android)] }) { server, _, _ in
            let site = "http://127.0.0.1:\(server.port)"
            let good = try await CommandRun.run(["assetlinks", "check", "--timeout", "60", "--url", site, "--android-app", Self.android])
            #expect(good.status == 0, "\(good.output)\(good.errors)")
            for line in ["✔ no redirect:", "✔ status 200:", "✔ content type: application/json", "✔ statement[0] relation: includes get_login_creds",
                         "✔ statement[0] namespace: android_app", "✔ statement[0] package_name: com.example.shiny",
                         "✔ app listed: com.example.shiny: with fingerprint \(exampleFingerprint)"] {
                #expect(good.output.contains(line), "\(line)\n\(good.output)")
            }

            let json = try await CommandRun.run(["assetlinks", "check", "--timeout", "60", "--url", site, "--android-app", Self.android, "--json"])
            #expect(json.status == 0)
            #expect(json.json["failed"] as? Int == 0)
            #expect(json.check("statement[0] sha256_cert_fingerprints")?["ok"] as? Bool == true)

            let otherKey = try await CommandRun.run(["assetlinks", "check", "--timeout", "60", "--url", site, "--android-app", "com.example.shiny:\(otherExampleFingerprint)", "--json"])
            #expect(otherKey.status == 1)
            #expect((otherKey.check("app listed: com.example.shiny")?["detail"] as? String)?.contains("not with the fingerprint") == true)
        }
        // A server without Android apps answers 404.
        try await withServer { server, _, _ in
            let run = try await CommandRun.run(["assetlinks", "check", "--timeout", "60", "--url", "http://127.0.0.1:\(server.port)"])
            #expect(run.status == 1)
            #expect(run.output.contains("✘ status 200: /.well-known/assetlinks.json answered 404"))
        }
    }

    @Test func assetLinksCheckOfAFile() async throws {
        let file = try temporaryFile(String(decoding: AssetLinks.document(for: [try AndroidApp(argument: Self.android)]), as: UTF8.self))
        let web = try temporaryFile(#"[{"relation": ["delegate_permission/common.get_login_creds"], "target": {"namespace": "web", "site": "https://example.com"}}]"#)
        defer { try? FileManager.default.removeItem(at: file); try? FileManager.default.removeItem(at: web) }
        #expect(try await CommandRun.run(["assetlinks", "check", file.path, "--android-app", Self.android]).status == 0)
        let failing = try await CommandRun.run(["assetlinks", "check", web.path])
        #expect(failing.status == 1)
        #expect(failing.output.contains("✘ statement[0] namespace: target.namespace is \"web\""))
    }

    /// The check reads the app list a deployment configures the server with.
    @Test func checksFallBackToTheServersEnvironment() async throws {
        try await withServer({ $0.iosAppIDs = [Self.appID] }) { server, _, _ in
            let run = try await CommandRun.run(
                ["aasa", "check", "--url", "http://127.0.0.1:\(server.port)", "--json", "--timeout", "60"],
                environment: ["PASSKEY_IOS_APP_ID": "FGHIJ67890.com.example.other", "PASSKEY_RP_ID": "127.0.0.1"])
            #expect(run.status == 1)
            #expect(run.check("app listed: FGHIJ67890.com.example.other")?["ok"] as? Bool == false)
            #expect(run.check("RP ID")?["ok"] as? Bool == true)
        }
    }
}

/// The new `serve` flags through the binary: environment variables, help, refusals.
@Suite(.serialized) struct NativeFlagProcessTests {
    @Test func androidAndRelatedOriginsFromTheEnvironment() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-native-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerProcess.start(arguments: [], environment: [
            "PASSKEY_PORT": "0", "PASSKEY_DATABASE": directory.appendingPathComponent("db.sqlite").path,
            "PASSKEY_ANDROID_APP": "com.example.one:\(exampleFingerprint), com.example.two:\(otherExampleFingerprint)",
            "PASSKEY_RELATED_ORIGIN": "https://shop.example.com, https://example.co.uk",
        ])
        let client = Client(base: server.base)
        let links = try await client.get("/.well-known/assetlinks.json")
        let statements = try #require(try JSONSerialization.jsonObject(with: links.body) as? [[String: Any]])
        #expect(statements.compactMap { ($0["target"] as? [String: Any])?["package_name"] as? String } == ["com.example.one", "com.example.two"])
        let related = try await client.get("/.well-known/webauthn")
        #expect(related.json["origins"] as? [String] == ["https://shop.example.com", "https://example.co.uk"])
        #expect(server.terminate() == 0)
    }

    @Test func refusalsNameTheFlag() async throws {
        let six = ["one", "two", "three", "four", "five", "six"].map { "https://\($0).com" }
        let cases: [([String], Int32, String)] = [
            (["--android-app", "com.example.app"], 2, "--android-app"),
            (["--android-app", "com.example.app:\(exampleFingerprint.dropLast(3))"], 2, "fingerprint"),
            (["--related-origin", "not an origin"], 2, "--related-origin"),
            (six.flatMap { ["--related-origin", $0] }, 1, "6 different registrable domain labels"),
        ]
        for (arguments, status, message) in cases {
            let run = try await CommandRun.run(["serve", "--port", "0", "--database", "/tmp/never-created-\(UUID().uuidString).sqlite"] + arguments)
            #expect(run.status == status, "\(arguments) \(run.errors)")
            #expect(run.errors.contains(message), "\(arguments) \(run.errors)")
        }
    }

    @Test func helpNamesTheNewFlagsAndTheirEnvironment() async throws {
        /// Help text with its line wrapping undone.
        func help(_ arguments: [String]) async throws -> String {
            let run = try await CommandRun.run(arguments)
            return run.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let serve = try await help(["serve", "--help"])
        for text in ["--android-app", "PASSKEY_ANDROID_APP", "--related-origin", "PASSKEY_RELATED_ORIGIN"] {
            #expect(serve.contains(text), "\(text)")
        }
        let aasa = try await help(["aasa", "check", "--help"])
        for text in ["--url", "--app-id", "PASSKEY_IOS_APP_ID", "--rp-id", "PASSKEY_RP_ID", "--json", "128 KB", "Exit status: 0 when every check passes, 1 when one fails, 2 for usage errors"] {
            #expect(aasa.contains(text), "\(text)")
        }
        let assetlinks = try await help(["assetlinks", "check", "--help"])
        for text in ["--url", "--android-app", "PASSKEY_ANDROID_APP", "--json", "get_login_creds"] {
            #expect(assetlinks.contains(text), "\(text)")
        }
    }
}
