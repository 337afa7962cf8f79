import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PasskeyAccounts
@testable import PasskeyServer
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// The connection as the server serves it on SwiftNIO's pipeline (`RequestChannel`,
/// `RequestHandler`): requests answered one at a time and in order, `Connection: close` and a
/// client's half-close honoured, a body over the limit answered 413 without losing the
/// connection, what the parser refuses answered 400, a file written whole in parts, and a `Date`
/// on every answer. Real sockets against the in-process server.
@Suite struct RequestChannelTests {
    static let patience = 30.0

    /// The status of each answer in `text`, in order.
    static func statuses(_ text: String) -> [Int] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
    }

    @Test func pipelinedRequestsAreAnsweredInTheirOrder() async throws {
        try await withServer { server, _, _ in
            let socket = try TestSocket(port: server.port)
            socket.send(
                "GET /no-such-page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    + "POST /authentication_initialize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
                    + "DELETE /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let answer = try await onOwnThread { socket.read(for: Self.patience) }
            #expect(Self.statuses(answer.text) == [404, 200, 200, 405], "\(answer.text)")
            #expect(answer.closed)
        }
    }

    /// Bytes after a request that asked to close are neither answered nor refused.
    @Test func connectionCloseEndsTheConnectionAfterItsAnswer() async throws {
        try await withServer { server, _, _ in
            let socket = try TestSocket(port: server.port)
            socket.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\nGET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let answer = try await onOwnThread { socket.read(for: Self.patience) }
            #expect(Self.statuses(answer.text) == [200], "\(answer.text)")
            #expect(answer.closed)
        }
    }

    @Test func aClientThatStopsSendingGetsItsAnswerAndTheEnd() async throws {
        try await withServer { server, _, _ in
            let socket = try TestSocket(port: server.port)
            socket.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            socket.finishSending()
            let answer = try await onOwnThread { socket.read(for: Self.patience) }
            #expect(Self.statuses(answer.text) == [200], "\(answer.text)")
            #expect(answer.closed, "the connection stayed open after the client's end")
        }
    }

    /// Declared or sent, a body over the limit is 413 before it is read whole; the rest of it
    /// is read and dropped, and the next request on the connection is answered.
    @Test func aBodyOverTheLimitIs413AndTheConnectionGoesOn() async throws {
        try await withServer({ $0.maxBody = 2048 }) { server, _, _ in
            let body = String(repeating: " ", count: 100_000)
            let declared = try TestSocket(port: server.port)
            declared.send(
                "POST /authentication_initialize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let first = try await onOwnThread { declared.read(for: Self.patience) }
            #expect(Self.statuses(first.text) == [413, 200], "\(first.text.prefix(300))")
            let chunk = String(repeating: "x", count: 1000)
            let chunks = String(repeating: "3e8\r\n\(chunk)\r\n", count: 100) + "0\r\n\r\n"
            let sent = try TestSocket(port: server.port)
            sent.send(
                "POST /authentication_initialize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n\(chunks)"
                    + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let second = try await onOwnThread { sent.read(for: Self.patience) }
            #expect(Self.statuses(second.text) == [413, 200], "\(second.text.prefix(300))")
        }
    }

    /// As Hummingbird's own channel: 400 with `Connection: close`, after any answer before it;
    /// with the error body every refusal of the API has.
    @Test func whatTheParserRefusesIs400AndTheConnectionCloses() async throws {
        try await withServer { server, _, _ in
            let alone = try TestSocket(port: server.port)
            alone.send("NOT HTTP AT ALL\r\n\r\n")
            let refused = try await onOwnThread { alone.read(for: Self.patience) }
            #expect(Self.statuses(refused.text) == [400], "\(refused.text)")
            #expect(refused.text.lowercased().contains("connection: close"))
            #expect(refused.text.lowercased().contains("content-type: application/json"))
            let body = try #require(refused.text.range(of: "\r\n\r\n").map { String(refused.text[$0.upperBound...]) })
            let error = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String]
            #expect(error?["error"] == "invalid_request")
            #expect(error?["message"]?.isEmpty == false)
            #expect(refused.closed)
            let after = try TestSocket(port: server.port)
            after.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nNOT HTTP AT ALL\r\n\r\n")
            let both = try await onOwnThread { after.read(for: Self.patience) }
            #expect(Self.statuses(both.text) == [200, 400], "\(both.text)")
            #expect(both.closed)
        }
    }

    /// A file larger than the socket takes at once is written in parts, whole.
    @Test func aLargeFileIsWrittenWhole() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let content = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try Data(content).write(to: folder.appendingPathComponent("big.bin"))
        try await withServer({ $0.publicDirectory = folder.path }) { server, _, _ in
            let (data, response) = try await URLSession.shared.data(from: server.base.appendingPathComponent("big.bin"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(Array(data) == content)
        }
    }

    @Test func everyAnswerHasADate() async throws {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(1_798_761_599) == "Thu, 31 Dec 2026 23:59:59 GMT")
        try await withServer { server, _, _ in
            let socket = try TestSocket(port: server.port)
            socket.send("GET /no-such-page HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let answer = try await onOwnThread { socket.read(for: Self.patience) }
            let date = RequestPipelineTests.headers(answer.text).filter { $0.name == "date" }.map(\.value)
            #expect(date.count == 1, "\(answer.text)")
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let parsed = try #require(date.first.flatMap(formatter.date(from:)))
            #expect(abs(parsed.timeIntervalSinceNow) < 60)
        }
    }
}
