import ArgumentParser
import Foundation
import PasskeyAccounts
import PasskeyOutbound

/// `passkey-server healthcheck`: a container's health check. Exit 0 when `GET /healthz` on the
/// configured port answers 200 within 3 seconds, 1 otherwise.
struct HealthCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 when the server on this machine answers GET /healthz with 200 within 3 seconds, 1 otherwise (a container's HEALTHCHECK).")

    @Option(help: ArgumentHelp("The port the server listens on. (env: PASSKEY_PORT, default 8080)", valueName: "PORT"))
    var port: Int?

    @Option(help: ArgumentHelp("The address to ask; a server listening on every address (0.0.0.0) is asked on 127.0.0.1. (env: PASSKEY_HOST, default 127.0.0.1)", valueName: "HOST"))
    var host: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let port = port ?? environment["PASSKEY_PORT"].flatMap(Int.init) ?? 8080
        guard (1...65535).contains(port) else { throw ValidationError("--port must be between 1 and 65535, not \(port)") }
        var host = host ?? environment["PASSKEY_HOST"] ?? "127.0.0.1"
        if host == "0.0.0.0" || host.isEmpty { host = "127.0.0.1" }
        if host == "::" { host = "::1" }
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let status = try? await HealthProbe.status(url: "http://\(authority)/healthz", timeout: 3)
        guard status == 200 else {
            FileHandle.standardError.write(Data("passkey-server healthcheck: http://\(authority)/healthz answered \(status.map(String.init) ?? "nothing")\n".utf8))
            throw ExitCode(1)
        }
    }
}
