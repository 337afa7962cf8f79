import Foundation
import PasskeyApp
import PasskeyHTTPParsing
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// A TCP connection to the server under test, read with poll(2) so that a test can tell "the
/// server closed it" from "nothing came".
final class TestSocket: @unchecked Sendable {
    let fd: Int32
    private var open = true

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { hangUp() }

    /// Closes the client's side (the server half-closes after `Connection: close` and waits for it).
    func hangUp() {
        if open { close(fd) }
        open = false
    }

    /// Closes the client's sending side only: the server reads the end of the stream.
    func finishSending() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    func send(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the server closes the connection, `seconds` pass or (with `untilResponse`) one
    /// whole response with a Content-Length has come; what came, and whether it was closed.
    func read(for seconds: Double, untilResponse: Bool = false) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 || (untilResponse && Self.isWholeResponse(received)) { return (String(decoding: received, as: UTF8.self), false) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, 1) * 1000))
            if ready <= 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[0..<count]
        }
    }

    static func isWholeResponse(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        guard let field = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let length = Int(field.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return false }
        return text[end.upperBound...].utf8.count >= length
    }
}

/// Connections that never finish a request head, or sit idle, are closed; connections are
/// capped per client address and in total. Real sockets against the in-process server.
@Suite struct ConnectionGuardTests {
    /// Generous: every test shares two cores; what matters is that the server closes at all.
    static let patience = 30.0

    @Test func aConnectionThatNeverSendsAHeadIsClosed() async throws {
        try await withServer({ $0.headerTimeout = 1 }) { server, _, _ in
            let silent = try TestSocket(port: server.port)
            let partial = try TestSocket(port: server.port)
            partial.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")   // never finished
            let started = Date()
            let (silentClosed, partialClosed) = try await onOwnThread {
                (silent.read(for: Self.patience).closed, partial.read(for: Self.patience).closed)
            }
            #expect(silentClosed && partialClosed)
            #expect(Date().timeIntervalSince(started) >= 0.9)
        }
    }

    @Test func anIdleKeptAliveConnectionIsClosedAndABusyOneIsNot() async throws {
        try await withServer({ $0.idleTimeout = 10 }) { server, _, _ in
            let socket = try TestSocket(port: server.port)
            // Two requests on one connection: the first answer's end starts the idle clock, the
            // second head stops it. The second is sent by the same thread as soon as the first
            // answer is read: sent from the test's task, it waited for a turn of the cooperative
            // pool, which under the whole suite's load once took longer than the idle timeout.
            let (first, rest) = try await onOwnThread {
                socket.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                let first = socket.read(for: Self.patience, untilResponse: true)
                socket.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return (first, socket.read(for: Self.patience))
            }
            #expect(first.text.hasPrefix("HTTP/1.1 200"), "\(first.text)")
            #expect(!first.closed)
            #expect(rest.text.hasPrefix("HTTP/1.1 200"), "\(rest.text)")
            #expect(rest.closed, "the idle connection was not closed")
        }
    }

    /// A head followed by a body that never completes: 408 at the body timeout and the
    /// connection closed, so stalled bodies cannot fill --max-connections.
    @Test func aStalledBodyGets408AndFreesItsConnection() async throws {
        try await withServer({ $0.bodyTimeout = 1; $0.maxConnections = 4; $0.headerTimeout = 120 }) { server, _, _ in
            let stalled = try (0..<4).map { _ in try TestSocket(port: server.port) }
            for socket in stalled {
                socket.send("POST /registration_finalize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"id\"")
            }
            let started = Date()
            let answers = try await onOwnThread { stalled.map { $0.read(for: Self.patience) } }
            for answer in answers {
                #expect(answer.text.hasPrefix("HTTP/1.1 408"), "\(answer.text)")
                #expect(answer.text.contains(#""error":"request_timeout""#), "\(answer.text)")
                #expect(answer.closed)
            }
            #expect(Date().timeIntervalSince(started) >= 0.9)
            let again = try await Self.eventually {
                let socket = try TestSocket(port: server.port)
                socket.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                return socket.read(for: 5).text.hasPrefix("HTTP/1.1 200")
            }
            #expect(again)
        }
    }

    @Test func connectionsAreCappedPerAddress() async throws {
        try await withServer({ $0.maxConnectionsPerAddress = 3; $0.headerTimeout = 120 }) { server, _, _ in
            // Four at once from one address: the server sets them up on two event loops, in no
            // fixed order, so any one of them may be the one over the cap.
            let sockets = try (0..<4).map { _ in try TestSocket(port: server.port) }
            let closed = try await onOwnThread { sockets.map { $0.read(for: 3).closed } }
            #expect(closed.filter { $0 }.count == 1, "\(closed)")
            // The three others are served.
            for (socket, wasClosed) in zip(sockets, closed) where !wasClosed {
                socket.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                let answer = try await onOwnThread { socket.read(for: Self.patience) }
                #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(answer.text)")
            }
            // Once they have gone, new ones are taken again.
            for socket in sockets { socket.hangUp() }
            let again = try await Self.eventually {
                let socket = try TestSocket(port: server.port)
                socket.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                return socket.read(for: 5).text.hasPrefix("HTTP/1.1 200")
            }
            #expect(again)
        }
    }

    @Test func connectionsAreCappedInTotalButATrustedProxyNotPerAddress() async throws {
        try await withServer({
            $0.maxConnections = 4; $0.maxConnectionsPerAddress = 1; $0.headerTimeout = 120
            $0.trustedProxies = [AddressRange("127.0.0.0/8")!]
        }) { server, _, _ in
            // A proxy's connections share its address, so they are not capped per address (1
            // here), but the total (4) holds: of five at once, exactly one is refused.
            let sockets = try (0..<5).map { _ in try TestSocket(port: server.port) }
            let closed = try await onOwnThread { sockets.map { $0.read(for: 3).closed } }
            #expect(closed.filter { $0 }.count == 1, "\(closed)")
            for (socket, wasClosed) in zip(sockets, closed) where !wasClosed {
                socket.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                let answer = try await onOwnThread { socket.read(for: Self.patience) }
                #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(answer.text)")
            }
        }
    }

    /// Retries `body` for a few seconds (a closed connection is released asynchronously).
    static func eventually(_ body: @escaping @Sendable () throws -> Bool) async throws -> Bool {
        try await onOwnThread {
            for _ in 0..<50 {
                if try body() { return true }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return false
        }
    }
}
