import ArgumentParser
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix

/// `passkey-bench floor`: the HTTP floor under the server's own 404. The same 404 from bare
/// SwiftNIO (its HTTP/1 codec and one handler), from a bare Hummingbird 2 application (one
/// route, every other path its 404), and from Hummingbird's router on SwiftNIO's pipeline
/// without Hummingbird's server (`RouterOnNIO`), measured beside the server's 404 and the Go peer's in
/// `make bench-http`: what the stack costs before any of the server's own work.
struct Floor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a 404 for every path from bare SwiftNIO or bare Hummingbird: the HTTP floor beside the server's 404.",
        discussion: "Prints `listening on http://HOST:PORT` and serves until killed; `make bench-http` measures its CPU per request.")

    enum Stack: String, ExpressibleByArgument, CaseIterable {
        case nio, hummingbird
        case routerOnNIO = "router-on-nio"
    }

    @Option(help: "nio (SwiftNIO's HTTP/1 server pipeline and one handler), hummingbird (a Hummingbird 2 application), or router-on-nio (Hummingbird's router and types served by SwiftNIO's pipeline directly).")
    var stack: Stack

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port (0: any free one).")
    var port = 0

    func run() async throws {
        switch stack {
        case .nio: try await Self.bareNIO(host: host, port: port)
        case .hummingbird: try await Self.bareHummingbird(host: host, port: port)
        case .routerOnNIO: try await RouterOnNIO.serve(host: host, port: port)
        }
    }

    static func announce(_ host: String, _ port: Int?) {
        FileHandle.standardOutput.write(Data("listening on http://\(host):\(port ?? 0)\n".utf8))
    }

    static func bareNIO(host: String, port: Int) async throws {
        try await serveOnNIO(host: host, port: port) { pipeline in
            try pipeline.configureHTTPServerPipeline()
            try pipeline.addHandler(NotFoundHandler())
        }
    }

    /// A SwiftNIO server on NIO's shared loops whose connections' pipelines `configure` sets
    /// up; announces its port and serves until closed.
    static func serveOnNIO(
        host: String, port: Int,
        configure: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void
    ) async throws {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try configure(channel.pipeline.syncOperations) }
            }
            .bind(host: host, port: port).get()
        announce(host, channel.localAddress?.port)
        try await channel.closeFuture.get()
    }

    static func bareHummingbird(host: String, port: Int) async throws {
        let router = Router()
        router.get("/healthz") { _, _ in "ok" }
        let application = Application(
            router: router, configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in announce(host, channel.localAddress?.port) })
        try await application.runService()
    }
}

/// Answers every request with a 404 and a short JSON body, as the server's own 404 does.
private final class NotFoundHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private static let body = #"{"error":"not_found","message":"There is nothing at this path."}"#

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: String(Self.body.utf8.count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .notFound, headers: headers))), promise: nil)
        var buffer = context.channel.allocator.buffer(capacity: Self.body.utf8.count)
        buffer.writeString(Self.body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
