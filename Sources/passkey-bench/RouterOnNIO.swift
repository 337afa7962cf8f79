import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix
import PasskeyServer

/// `passkey-bench floor --stack router-on-nio`: Hummingbird's router, request and response types
/// served by SwiftNIO's HTTP/1 pipeline directly, without Hummingbird's server (its async
/// channel, request and response sequences). Each request runs as a task on its connection's
/// event loop, as the server's handlers do. Beside bare SwiftNIO and the bare Hummingbird
/// application, it tells what Hummingbird's server loop costs apart from its router and types:
/// what serving the server's routes on NIO directly could save.
enum RouterOnNIO {
    static func serve(host: String, port: Int) async throws {
        let router = Router()
        router.get("/healthz") { _, _ in "ok" }
        let responder = router.buildResponder()
        let logger = Logger(label: "floor")
        try await Floor.serveOnNIO(host: host, port: port) { pipeline in
            try pipeline.configureHTTPServerPipeline()
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(RouterHandler(responder: responder, logger: logger))
        }
    }
}

/// A response's body as written (the routes' bodies are one buffer or none).
private final class Collected: @unchecked Sendable {
    var buffers: [ByteBuffer] = []
}

/// Collects a response's body into `into`.
private struct CollectingWriter: ResponseBodyWriter {
    let into: Collected

    mutating func write(_ buffer: ByteBuffer) async throws {
        into.buffers.append(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// One request at a time per connection: its head and body gathered, then the router's answer
/// written with a Content-Length.
private final class RouterHandler<Responder: HTTPResponder>: ChannelInboundHandler, @unchecked Sendable
where Responder.Context == BasicRequestContext {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    let responder: Responder
    let logger: Logger
    private var head: HTTPRequest?
    private var body = ByteBuffer()
    private var executor: EventLoopTaskExecutor?

    init(responder: Responder, logger: Logger) {
        self.responder = responder
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            guard let head else { return }
            let request = Request(head: head, body: RequestBody(buffer: body))
            let requestContext = BasicRequestContext(source: ApplicationRequestContextSource(channel: context.channel, logger: logger))
            let executor = self.executor ?? EventLoopTaskExecutor(context.eventLoop)
            self.executor = executor
            let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
            let responder = self.responder
            Task(executorPreference: executor) {
                var response: Response
                do {
                    response = try await responder.respond(to: request, context: requestContext)
                } catch {
                    response = Response(status: .internalServerError)
                }
                let collected = Collected()
                try? await response.body.write(CollectingWriter(into: collected))
                Self.send(response, collected, loopContext)
            }
        }
    }

    private static func send(_ response: Response, _ body: Collected, _ loopContext: NIOLoopBound<ChannelHandlerContext>) {
        let context = loopContext.value
        var head = response.head
        let length = body.buffers.reduce(0) { $0 + $1.readableBytes }
        head.headerFields[.contentLength] = String(length)
        context.write(NIOAny(HTTPResponsePart.head(head)), promise: nil)
        for buffer in body.buffers { context.write(NIOAny(HTTPResponsePart.body(buffer)), promise: nil) }
        context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil)), promise: nil)
    }
}
