public import Hummingbird
internal import HummingbirdCore
public import ServiceLifecycle
public import PasskeyAccounts
internal import PasskeyHTTPParsing
internal import HTTPTypes
public import Logging
public import NIOCore
internal import NIOHTTP1
internal import NIOHTTPTypes
internal import NIOHTTPTypesHTTP1

/// A connection served on SwiftNIO's HTTP/1.1 pipeline directly: the router answers each
/// request as a task on the connection's event loop, and its answer is written to the pipeline
/// from there. Hummingbird's own HTTP/1 channel carries every request through an async channel
/// (an inbound sequence, an outbound writer and a streamed body, each with a lock and a
/// suspension) before the router sees it; serving a 404 that way cost about 10 µs more of
/// CPU than this (`passkey-bench floor`, the performance page of the docs).
///
/// The pipeline is the one Hummingbird's channel sets up: NIO's HTTP/1 codec and its limits on
/// headers, the HTTP types codec, the connection guard and Hummingbird's connection state
/// handler (the server's graceful shutdown). Requests are answered one at a time, in order
/// (`RequestHandler`).
struct RequestChannel: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
    }

    let responder: RouterResponder<PasskeyRequestContext>
    let maxBody: Int
    let connectionGuard: @Sendable () -> ConnectionGuardHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            // As Hummingbird's HTTP/1 channel: 80 KiB of header fields, at most 1 000. The
            // handler answers a request the parser refused (400, and the connection closes).
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = 80 * 1024
            limits.maxHeaderListSize = 80 * 1024
            limits.maxHeaderFieldCount = 1000
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(connectionGuard())
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            try pipeline.addHandler(RequestHandler(responder: responder, maxBody: maxBody, logger: logger))
            return Value(channel: channel)
        }
    }

    /// The connection's task waits for it to close; its requests run as tasks of their own. When
    /// the server's task is cancelled (not a graceful shutdown), the connection is closed.
    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}

extension PasskeyHTTP {
    /// The HTTP/1.1 server: Hummingbird's listener and graceful shutdown on the server's own event
    /// loops (`eventLoops`), each connection served by `RequestChannel` with the connection guard
    /// in its pipeline, each request answered by `router` on the event loop that reads it.
    public static func server(
        configuration: PasskeyAccounts.ServerConfiguration, counter: ConnectionCounter, router: Router<PasskeyRequestContext>,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void, logger: Logger
    ) -> any Service {
        let resolver = ClientAddressResolver(trustedProxies: configuration.trustedProxies)
        let header = TimeAmount.milliseconds(Int64(configuration.headerTimeout * 1000))
        let idle = TimeAmount.milliseconds(Int64(configuration.idleTimeout * 1000))
        let body = TimeAmount.milliseconds(Int64(configuration.bodyTimeout * 1000))
        let shutdown = TimeAmount.milliseconds(Int64(configuration.shutdownTimeout * 1000))
        let channel = RequestChannel(responder: router.buildResponder(), maxBody: configuration.maxBody) {
            ConnectionGuardHandler(
                counter: counter, resolver: resolver, headerTimeout: header, idleTimeout: idle, bodyTimeout: body, shutdownTimeout: shutdown)
        }
        return channel.server(
            configuration: HummingbirdCore.ServerConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: onServerRunning, eventLoopGroup: eventLoops, logger: logger)
    }
}
