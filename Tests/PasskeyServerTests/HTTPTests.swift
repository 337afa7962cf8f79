import Foundation
import PasskeyApp
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// The HTTP surface: errors as JSON, limits, the association file, health.
@Suite struct HTTPTests {
    @Test func unknownPathsAndMethodsAreJSON() async throws {
        try await withServer { _, _, client in
            let missing = try await client.get("/nothing-here")
            #expect(missing.status == 404)
            #expect(missing.error == "not_found")
            let wrongMethod = try await client.send("DELETE", "/registration_finalize")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.error == "method_not_allowed")
            #expect(try await client.get("/me").status == 401)
            #expect(try await client.get("/me").error == "unauthorized")
            #expect(try await client.get("/me", bearer: "not-a-token").status == 401)
            let health = try await client.get("/healthz")
            #expect(health.status == 200)
            #expect(health.json["status"] as? String == "ok")
        }
    }

    @Test func bodiesOverTheLimitAre413() async throws {
        try await withServer({ $0.maxBody = 2048 }) { _, _, client in
            let big = try await client.post("/registration_finalize", bytes: Array(repeating: 0x20, count: 4096))
            #expect(big.status == 413)
            #expect(big.error == "payload_too_large")
            let fits = try await client.post("/registration_finalize", bytes: Array(repeating: 0x20, count: 2000))
            #expect(fits.status == 400)
            // Chunked, without Content-Length.
            let chunked = try await RawHTTP.chunkedPost(port: ceremoniesPort(client), path: "/authentication_finalize", body: Array(repeating: 0x41, count: 5000))
            #expect(chunked.hasPrefix("HTTP/1.1 413"))
            #expect(chunked.contains("payload_too_large"))
        }
    }

    @Test func malformedJSONIsInvalidRequest() async throws {
        try await withServer { _, _, client in
            for body in ["", "{", "[]", "{\"id\": \"x\"}", "{\"rawId\":\"!!\",\"response\":{}}"] {
                let result = try await client.post("/authentication_finalize", bytes: Array(body.utf8))
                #expect(result.status == 400, "\(body)")
                #expect(result.error == "invalid_request", "\(body)")
            }
        }
    }

    @Test func associationFileIsServedAndMerged() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("apple-app-site-association")
        try Data(#"{"applinks": {"details": []}, "webcredentials": {"apps": ["ABCDE12345.com.example.one"]}}"#.utf8).write(to: file)
        try await withServer({ $0.associationFile = file.path; $0.iosAppIDs = ["FGHIJ67890.com.example.two"] }) { _, _, client in
            for path in ["/.well-known/apple-app-site-association", "/apple-app-site-association"] {
                let result = try await client.get(path)
                #expect(result.status == 200)
                #expect(result.header("Content-Type") == "application/json")
                #expect((result.json["webcredentials"] as? [String: Any])?["apps"] as? [String] == ["ABCDE12345.com.example.one", "FGHIJ67890.com.example.two"])
                #expect(result.json["applinks"] != nil)
            }
        }
    }

    @Test(arguments: [
        (#"[1]"#, "not a JSON object"),
        (#"{"webcredentials": {"apps": "ABCDE12345.x"}}"#, "webcredentials.apps"),
        (#"{"webcredentials": {"apps": ["abcde12345.com.x"]}}"#, "team ID"),
        (#"{"webcredentials": {"apps": ["ABCDE12345"]}}"#, "no dot"),
        (#"{"webcredentials": {"apps": ["ABCDE12345.com..x"]}}"#, "bundle ID"),
    ])
    func invalidAssociationFilesStopStartUp(_ contents: String, _ named: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("aasa.json")
        try Data(contents.utf8).write(to: file)
        do {
            let server = try await TestServer.start { $0.associationFile = file.path }
            await server.stop()
            Issue.record("start-up accepted \(contents)")
        } catch let error as PasskeyApplication.StartupError {
            #expect(error.message.contains(named), "\(error.message)")
        }
    }

    @Test func invalidAppIDFlagStopsStartUp() async throws {
        await #expect(throws: PasskeyApplication.StartupError.self) {
            let server = try await TestServer.start { $0.iosAppIDs = ["TEAM.com.example"] }
            await server.stop()
        }
    }

    private func ceremoniesPort(_ client: Client) -> Int { client.base.port ?? 0 }
}

/// Raw HTTP/1.1 over a socket, for what URLSession will not send (chunked bodies, chosen headers).
enum RawHTTP {
    /// A chunked POST; the raw response text.
    static func chunkedPost(port: Int, path: String, body: [UInt8]) async throws -> String {
        var request = Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n".utf8)
        var offset = 0
        while offset < body.count {
            let chunk = body[offset..<min(offset + 1000, body.count)]
            request += Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)
            offset += chunk.count
        }
        return try await exchange(port: port, request: request + Array("0\r\n\r\n".utf8))
    }

    /// A GET with extra headers; the raw response text.
    static func get(port: Int, path: String, headers: [String: String]) async throws -> String {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        return try await exchange(port: port, request: Array((request + "\r\n").utf8))
    }

    /// One request with `headers` (in order; a name may repeat) and, when given, a form body;
    /// the answer read as a result.
    static func request(
        port: Int, _ method: String, _ path: String, headers: [(String, String)] = [], form: String? = nil
    ) async throws -> HTTPResult {
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if let form {
            request += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n\r\n\(form)"
        } else {
            request += "\r\n"
        }
        return MfBTests.Business.parse(try await exchange(port: port, request: Array(request.utf8)))
    }

    /// A raw response cut into its head (status line and fields) and body.
    static func split(_ response: String) -> (head: String, body: String)? {
        guard let range = response.range(of: "\r\n\r\n") else { return nil }
        return (String(response[..<range.upperBound]), String(response[range.upperBound...]))
    }

    /// Sends `request` to 127.0.0.1:`port` and reads until the server closes, on a thread of
    /// its own (see `onOwnThread`). The 60 s timeout is generous on purpose: every test runs at
    /// once on two cores, and the in-process server answers late under that load.
    static func exchange(port: Int, request: [UInt8]) async throws -> String {
        try await onOwnThread { try blockingExchange(port: port, request: request) }
    }

    private static func blockingExchange(port: Int, request: [UInt8]) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { throw POSIXError(.ECONNREFUSED) }
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            response += buffer[0..<n]
        }
        return String(decoding: response, as: UTF8.self)
    }
}
