public import Foundation
import PasskeyTestSupport

/// What a run of the `passkey-server` binary printed and how it ended.
public struct CommandRun: Sendable {
    public let status: Int32
    public let output: String
    public let errors: String

    public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any] ?? [:] }
    public var checks: [[String: Any]] { json["checks"] as? [[String: Any]] ?? [] }
    public func check(_ name: String) -> [String: Any]? { checks.first { $0["name"] as? String == name } }

    /// Runs the binary without blocking a Swift concurrency thread (the server under test
    /// answers on those), with no PASSKEY_* variables unless given, and `stdin` (or nothing) on
    /// its standard input.
    public static func run(_ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil) async throws -> CommandRun {
        let run = try await ChildProcess.run(
            try ServerProcess.binary.path, arguments, environment: ChildProcess.environment(environment), stdin: stdin)
        return CommandRun(status: run.status, output: String(decoding: run.stdout, as: UTF8.self), errors: String(decoding: run.stderr, as: UTF8.self))
    }
}
