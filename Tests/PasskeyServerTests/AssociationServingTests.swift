import Foundation
import PasskeyApp
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyServerTestSupport
import Testing

/// How the apple-app-site-association file is served: no redirect, no compression, the file's
/// other sections untouched by the merge, validation messages naming the key and the fix.
@Suite struct AssociationServingTests {
    func temporaryFile(_ contents: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("apple-app-site-association")
        try Data(contents.utf8).write(to: file)
        return file
    }

    static let applinks = #"{"details": [{"appIDs": ["ABCDE12345.com.example.one"], "components": [{"/": "/buy/*", "exclude": true, "comment": "no buying"}, {"/": "/help/*", "?": {"lang": "en"}, "caseSensitive": false, "percentEncoded": 1}]}]}"#
    static let appclips = #"{"apps": ["ABCDE12345.com.example.one.Clip"]}"#

    /// The merge adds the --ios-app-id values and leaves applinks / appclips exactly as written:
    /// booleans stay booleans, numbers stay numbers, nothing is dropped or added.
    @Test func mergeKeepsOtherSectionsAsTheyAre() async throws {
        let file = try temporaryFile(#"{"applinks": \#(Self.applinks), "appclips": \#(Self.appclips), "webcredentials": {"apps": ["ABCDE12345.com.example.one"]}}"#)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withServer({ $0.associationFile = file.path; $0.iosAppIDs = ["FGHIJ67890.com.example.two", "ABCDE12345.com.example.one"] }) { _, _, client in
            let served = try await client.get("/.well-known/apple-app-site-association")
            #expect(served.status == 200)
            let root = try #require(try JSONSerialization.jsonObject(with: served.body) as? NSDictionary)
            #expect(root["applinks"] as? NSDictionary == (try JSONSerialization.jsonObject(with: Data(Self.applinks.utf8)) as? NSDictionary))
            #expect(root["appclips"] as? NSDictionary == (try JSONSerialization.jsonObject(with: Data(Self.appclips.utf8)) as? NSDictionary))
            #expect((root["webcredentials"] as? NSDictionary)?["apps"] as? [String] == ["ABCDE12345.com.example.one", "FGHIJ67890.com.example.two"])
            // NSDictionary equality cannot tell true from 1: look at the text.
            let text = String(decoding: served.body, as: UTF8.self)
            #expect(text.contains(#""exclude":true"#))
            #expect(text.contains(#""caseSensitive":false"#))
            #expect(text.contains(#""percentEncoded":1"#))
            #expect(root.allKeys.count == 3)
        }
    }

    /// With nothing to merge the file goes out byte for byte.
    @Test func fileWithoutAppIDsIsServedVerbatim() async throws {
        let contents = "{\n  \"applinks\": \(Self.applinks),\n  \"webcredentials\": {\"apps\": [\"ABCDE12345.com.example.one\"]}\n}\n"
        let file = try temporaryFile(contents)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withServer({ $0.associationFile = file.path }) { _, _, client in
            for path in ["/.well-known/apple-app-site-association", "/apple-app-site-association"] {
                let served = try await client.get(path)
                #expect(served.body == Data(contents.utf8))
            }
        }
    }

    /// 200 straight away at both paths, `application/json` exactly, and no Content-Encoding
    /// even when the client offers gzip (read off the wire, where URLSession cannot decode it).
    @Test func noRedirectNoCompression() async throws {
        try await withServer({ $0.iosAppIDs = ["ABCDE12345.com.example.one"] }) { server, _, _ in
            for path in ["/.well-known/apple-app-site-association", "/apple-app-site-association"] {
                let raw = try await RawHTTP.get(port: server.port, path: path, headers: ["Accept-Encoding": "gzip, deflate, br"])
                let (head, body) = try #require(RawHTTP.split(raw))
                #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
                let fields = head.lowercased()
                #expect(!fields.contains("content-encoding"))
                #expect(!fields.contains("location:"))
                #expect(fields.contains("content-type: application/json\r\n"))
                #expect(body == #"{"webcredentials":{"apps":["ABCDE12345.com.example.one"]}}"#)
            }
        }
    }

    @Test func aPublicFileDoesNotShadowTheAssociation() async throws {
        try await withServer({ $0.iosAppIDs = ["ABCDE12345.com.example.one"] }) { server, _, client in
            try Data("not json".utf8).write(to: server.directory.appendingPathComponent("apple-app-site-association"))
            let served = try await client.get("/apple-app-site-association")
            #expect((served.json["webcredentials"] as? [String: Any]) != nil)
        }
    }

    @Test func overTheSizeLimitStopsStartUp() async throws {
        let padding = String(repeating: "a", count: AppleAppSiteAssociation.maximumSize)
        let file = try temporaryFile(#"{"applinks": {"details": [], "x": "\#(padding)"}, "webcredentials": {"apps": ["ABCDE12345.com.example.one"]}}"#)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        do {
            let server = try await TestServer.start { $0.associationFile = file.path }
            await server.stop()
            Issue.record("start-up accepted a file over 128 KB")
        } catch let error as PasskeyApplication.StartupError {
            #expect(error.message.contains("size"))
            #expect(error.message.contains("131072"))
            #expect(error.message.contains("Fix:"))
        }
    }

    /// Each message names the file, the key at fault and the fix.
    @Test(arguments: [
        (#"{"webcredentials": []}"#, "webcredentials"),
        (#"{"webcredentials": {"apps": "ABCDE12345.com.x"}}"#, "webcredentials.apps"),
        (#"{"webcredentials": {"apps": [7]}}"#, "webcredentials.apps[0]"),
        (#"{"webcredentials": {"apps": ["ABCDE12345.com.x", "abcde12345.com.x"]}}"#, "webcredentials.apps[1]"),
        (#"{"webcredentials": {"apps": ["ABCDE12345.com.x"]}"#, "JSON"),
        (#""webcredentials""#, "top-level object"),
    ])
    func messagesNameTheKeyAndTheFix(_ contents: String, _ key: String) throws {
        do {
            _ = try AppleAppSiteAssociation(file: Array(contents.utf8), source: "aasa.json", appIDs: [])
            Issue.record("accepted \(contents)")
        } catch {
            #expect(error.message.hasPrefix("aasa.json: "), "\(error.message)")
            #expect(error.message.contains(key), "\(error.message)")
            #expect(error.message.contains(". Fix: "), "\(error.message)")
        }
    }

    @Test func warningsForIgnoredKeysAndNoApps() throws {
        let association = try AppleAppSiteAssociation(file: Array(#"{"applinks": {"details": []}, "webcredential": {}}"#.utf8), source: "aasa.json", appIDs: [])
        #expect(association.warnings.count == 2)
        #expect(association.warnings.contains { $0.contains("\"webcredential\"") && $0.contains("Fix:") })
        #expect(association.warnings.contains { $0.contains("webcredentials.apps lists no app") })
        #expect(try AppleAppSiteAssociation(file: nil, appIDs: ["ABCDE12345.com.x"]).warnings.isEmpty)
    }
}
