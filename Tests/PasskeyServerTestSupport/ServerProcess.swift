public import Foundation
public import PasskeyTestSupport

/// The real `passkey-server` binary as a child process.
public final class ServerProcess: Sendable {
    public let child: ChildProcess
    public let port: Int
    /// What the process wrote to standard output up to and including the `listening on` line.
    public let announcement: String

    public var base: URL { URL(string: "http://127.0.0.1:\(port)")! }
    public var origin: String { "http://localhost:\(port)" }

    public static var binary: URL {
        get throws {
            if let path = ProcessInfo.processInfo.environment["PASSKEY_SERVER_BINARY"] { return URL(fileURLWithPath: path) }
            // The test bundle sits next to the products of the same build.
            var candidates = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
            candidates += [URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/debug")]
            for directory in candidates {
                var url = directory
                for _ in 0..<3 {
                    let candidate = url.appendingPathComponent("passkey-server")
                    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                    url.deleteLastPathComponent()
                }
            }
            throw POSIXError(.ENOENT)
        }
    }

    /// Starts the binary and waits for its `listening on` line on a thread of its own (see
    /// `onOwnThread`).
    public static func start(arguments: [String], environment: [String: String] = [:]) async throws -> ServerProcess {
        try await onOwnThread { try ServerProcess(arguments: arguments, environment: environment) }
    }

    private init(arguments: [String], environment: [String: String]) throws {
        child = try ChildProcess(try Self.binary.path, ["serve"] + arguments, environment: ChildProcess.environment(environment), stderr: .null)
        // Read stdout until the `listening on` line.
        var buffer = Data()
        var found: Int?
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while found == nil, Date() < deadline {
            let chunk = child.readStdout()
            if chunk.isEmpty { break }
            buffer += chunk
            text = String(decoding: buffer, as: UTF8.self)
            if let range = text.range(of: #"listening on http://[^:\s]+:(\d+)"#, options: .regularExpression) {
                found = Int(text[range].split(separator: ":").last ?? "")
            }
        }
        guard let found else {
            child.signal(SIGKILL)
            let status = child.waitForExit()
            throw ChildProcess.Failed(description: Date() < deadline
                ? "passkey-server exited (status \(status)) before listening; it wrote: \(text.suffix(2000))"
                : "passkey-server did not say it was listening within 30 s; it wrote: \(text.suffix(2000))")
        }
        port = found
        announcement = text
        // Everything it writes later is read and dropped: a pipe nobody reads fills at 64 KiB,
        // and then the server's next log line blocks the thread that writes it (an event loop,
        // when a request handler logs).
        let child = child
        Thread.detachNewThread {
            while !child.readStdout().isEmpty {}
        }
    }

    public func kill9() {
        child.signal(SIGKILL)
        child.waitForExit()
    }

    public func terminate() -> Int32 {
        child.signal(SIGTERM)
        return child.waitForExit()
    }
}
