import Foundation
import PasskeyAccounts
@testable import PasskeyServer
import PasskeyServerTestSupport
import Testing

/// The request pipeline: whichever of its steps writes the answer (the handler, the policy,
/// the body limit, the canonical path, the router's 404 or 405), the answer carries the headers
/// every answer carries, once each.
@Suite struct RequestPipelineTests {
    /// The header lines of a raw answer, by lower-cased name.
    static func headers(_ text: String) -> [(name: String, value: String)] {
        let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
        return head.components(separatedBy: "\r\n").dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    @Test func everyAnswerCarriesItsHeadersOnceWhicheverStepWroteIt() async throws {
        try await withServer({ $0.maxBody = 2048 }) { server, _, _ in
            let json = ["Content-Type": "application/json"]
            let cases: [(method: String, path: String, headers: [String: String], body: String, status: Int)] = [
                ("GET", "/healthz", [:], "", 200),
                ("POST", "/authentication_initialize", json, "{}", 200),
                ("GET", "/no-such-page", [:], "", 404),
                ("GET", "//healthz", [:], "", 404),
                ("DELETE", "/healthz", [:], "", 405),
                ("POST", "/authentication_initialize", ["Content-Type": "text/plain"], "{}", 415),
                ("POST", "/authentication_initialize", ["Origin": "https://evil.example", "Cookie": "session=x", "Content-Type": "application/json"], "{}", 403),
                ("POST", "/authentication_finalize", json, String(repeating: " ", count: 4096), 413),
            ]
            for c in cases {
                let answer = try await RequestPolicyTests.raw(server.port, c.method, c.path, headers: c.headers, body: c.body)
                #expect(answer.status == c.status, "\(c.method) \(c.path): \(answer.text.prefix(200))")
                let fields = Self.headers(answer.text)
                for name in ["x-content-type-options", "referrer-policy", "content-security-policy", "x-request-id"] {
                    #expect(fields.filter { $0.name == name }.count == 1, "\(c.method) \(c.path) has \(name) not once")
                }
                #expect(fields.first { $0.name == "x-content-type-options" }?.value == "nosniff")
                #expect(fields.first { $0.name == "referrer-policy" }?.value == "same-origin")
                #expect(fields.first { $0.name == "content-security-policy" }?.value == "frame-ancestors 'none'; object-src 'none'; base-uri 'none'")
                #expect(fields.first { $0.name == "x-request-id" }?.value.isEmpty == false)
            }
        }
    }

    /// A request that declares no body (no Content-Length above 0, no Transfer-Encoding) is
    /// passed on without a read; one that declares a body is read whole before the handler,
    /// and over the limit is 413 whether its length is declared or chunked.
    @Test func aBodyIsReadWhenDeclaredAndOnlyUpToTheLimit() async throws {
        try await withServer({ $0.maxBody = 2048 }) { server, _, _ in
            let none = try await RequestPolicyTests.raw(server.port, "POST", "/authentication_initialize")
            #expect(none.status == 200, "\(none.text.prefix(200))")
            let declared = try await RequestPolicyTests.raw(
                server.port, "POST", "/authentication_initialize", headers: ["Content-Type": "application/json"], body: "{}")
            #expect(declared.status == 200)
            let chunked = try await RawHTTP.chunkedPost(port: server.port, path: "/authentication_initialize", body: Array(repeating: 0x20, count: 3000))
            #expect(chunked.hasPrefix("HTTP/1.1 413"), "\(chunked.prefix(200))")
            // The limit is the pipeline's, before the handler: a chunked body within it reaches it.
            let within = try await RawHTTP.chunkedPost(port: server.port, path: "/authentication_initialize", body: Array("{}".utf8))
            #expect(within.hasPrefix("HTTP/1.1 200"), "\(within.prefix(200))")
        }
    }
}
