import Foundation
import PasskeyTestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 that answers each path with a fixed raw response, for
/// what the project's own server never does (redirects, wrong content types, huge bodies,
/// silence). Each connection gets one response and is closed.
final class CannedHTTPServer: Sendable {
    /// What to do for a path: a raw response, or nothing at all (to test timeouts).
    enum Answer: Sendable {
        case raw(String)
        case bytes([UInt8])
        case silence
    }

    let port: Int
    private let listener: Int32
    private let requests = Mutex<[String]>([])

    init(_ answers: [String: Answer]) throws {
        let (fd, port) = try TestPorts.loopbackSocket(reusingAddress: true)
        guard listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        self.port = port
        self.answers = answers
        Thread { [self] in serve() }.start()
    }

    private let answers: [String: Answer]

    /// Accepts until `stop()` shuts the listener down, then closes it. Only this thread closes
    /// it: a descriptor closed elsewhere could be reused by another test's socket while this
    /// thread still calls accept() on its number.
    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                close(listener)
                return
            }
            let head = Self.readHead(connection)
            requests.withLock { $0.append(head) }
            let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            switch answers[path] ?? Self.response("404 Not Found") {
            case .raw(let text): Self.write(Array(text.utf8), to: connection)
            case .bytes(let bytes): Self.write(bytes, to: connection)
            case .silence: Thread.sleep(forTimeInterval: 3)
            }
            close(connection)
        }
    }

    var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The request heads received so far.
    var received: [String] { requests.withLock { $0 } }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// A response with the given status, headers and body (Content-Length added).
    static func response(_ status: String, headers: [String: String] = [:], body: String = "") -> Answer {
        var text = "HTTP/1.1 \(status)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        return .raw(text)
    }

    private static func readHead(_ fd: Int32) -> String {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: head, as: UTF8.self).contains("\r\n\r\n") {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            head += buffer[0..<n]
        }
        return String(decoding: head, as: UTF8.self)
    }

    private static func write(_ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }
}

/// A loopback port that refuses connections for as long as this value lives: its socket is
/// bound and never listens. A stopped server's port would do only until another test, running
/// beside this one, was given the same port by the kernel and answered in its place.
final class RefusingPort {
    let port: Int
    private let fd: Int32

    init() throws {
        (fd, port) = try TestPorts.loopbackSocket()
    }

    var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    deinit { close(fd) }
}
