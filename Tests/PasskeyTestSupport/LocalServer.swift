public import Hummingbird
public import HummingbirdCore
internal import Logging

/// A Hummingbird server on 127.0.0.1, on a port the kernel picks: the stand-ins for services the
/// tests cannot reach (Apple's endpoints, push gateways, APNs, FCM) speak their real protocol
/// over the network through it.
public final class LocalServer: Sendable {
    public let port: Int
    private let task: Task<Void, any Error>

    private init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.task = task
    }

    /// Starts `router` (plain HTTP/1.1 unless `server` says otherwise) and returns once it
    /// listens.
    public static func start<Context: RequestContext>(
        router: Router<Context>, server: HTTPServerBuilder = .http1()
    ) async -> LocalServer where Context.Source == ApplicationRequestContextSource {
        let listening = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "local-server")
        logger.logLevel = .critical
        let application = Application(
            router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in listening.continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let task = Task { try await application.runService() }
        var port = 0
        for await p in listening.stream {
            port = p
            break
        }
        return LocalServer(port: port, task: task)
    }

    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
