internal import Foundation
internal import Hummingbird
internal import HummingbirdCore
internal import HTTPTypes
internal import Logging
internal import NIOCore
internal import NIOHTTPTypes
internal import NIOHTTP1
internal import PasskeyHTTPParsing
internal import Synchronization

/// One connection's requests, answered one at a time in the order they came, each by the router
/// in a task on the connection's event loop (`EventLoopTaskExecutor`):
/// - a request is answered once its body has been read, up to `maxBody` bytes: one that
///   declares a larger Content-Length, or sends more, is handed on at once (the request
///   pipeline answers it 413 from its length) and the rest of its body is read and dropped;
/// - while a request is answered, reads go on; what is read of the next requests waits for the
///   answer, and from then on reading stops until the answer is written;
/// - the answer carries a `Date`, its body is written as the router's body writes it (a file in
///   parts, with the socket's backpressure), and the connection half-closes after it when the
///   request asked (`Connection: close`);
/// - a request the HTTP parser refused is answered 400 and the connection closes, as
///   Hummingbird's own HTTP/1 channel does.
final class RequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let responder: RouterResponder<PasskeyRequestContext>
    let maxBody: Int
    let logger: Logger
    private var executor: EventLoopTaskExecutor?
    /// The request whose body is being read.
    private var head: HTTPRequest?
    private var body = ByteBuffer()
    /// The request was answered before its body ended: its other parts are dropped.
    private var draining = false
    /// A request is being answered.
    private var answering = false
    /// Parts read while a request was answered: the next requests'.
    private var waiting: [HTTPRequestPart] = []
    private var readHeld = false
    private var closeAfterAnswer = false
    private var parseFailed = false
    /// The connection closed, or is closing: nothing more is answered.
    private var done = false

    init(responder: RouterResponder<PasskeyRequestContext>, maxBody: Int, logger: Logger) {
        self.responder = responder
        self.maxBody = maxBody
        self.logger = logger
    }

    /// The request being answered has been read whole: what comes now is the next one's.
    private var nextRequestsWait: Bool { answering && head == nil && !draining }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        receive(unwrapInboundIn(data), context)
    }

    private func receive(_ part: HTTPRequestPart, _ context: ChannelHandlerContext) {
        guard !done else { return }
        if nextRequestsWait { return waiting.append(part) }
        switch part {
        case .head(let head):
            if let length = head.headerFields[.contentLength].flatMap(Int.init), length > maxBody {
                draining = true
                answer(head, ByteBuffer(), context)
            } else {
                self.head = head
            }
        case .body(var part):
            guard !draining, let head else { return }
            body.writeBuffer(&part)
            if body.readableBytes > maxBody {
                self.head = nil
                draining = true
                answer(head, takeBody(), context)
            }
        case .end:
            if draining { draining = false }
            guard let head else { return }
            self.head = nil
            answer(head, takeBody(), context)
        }
    }

    private func takeBody() -> ByteBuffer {
        defer { body = ByteBuffer() }
        return body
    }

    /// Reads go on while a request is answered, so that a client that waits for its answer
    /// costs no change of the socket's interest (two `epoll_ctl` calls a request); once the next
    /// requests' parts wait, reading stops until they are answered, so a pipelining client
    /// cannot queue more than the reads NIO makes in one turn for a readable socket.
    func read(context: ChannelHandlerContext) {
        if readsWait { readHeld = true } else { context.read() }
    }

    /// What was read of the next requests waits for the answer being written.
    private var readsWait: Bool { nextRequestsWait && !waiting.isEmpty }

    private func answer(_ head: HTTPRequest, _ body: ByteBuffer, _ context: ChannelHandlerContext) {
        answering = true
        closeAfterAnswer = ConnectionHeader.asksToClose(head.headerFields[.connection])
        let request = Request(head: head, body: RequestBody(buffer: body))
        let requestContext = PasskeyRequestContext(source: ApplicationRequestContextSource(channel: context.channel, logger: logger))
        let executor = self.executor ?? EventLoopTaskExecutor(context.eventLoop)
        self.executor = executor
        let connection = Connection(handler: self, context: context)
        let responder = self.responder
        let logger = self.logger
        Task(executorPreference: executor) {
            var response: Response
            do {
                response = try await responder.respond(to: request, context: requestContext)
            } catch {
                logger.debug("unanswered error", metadata: ["error.type": "\(type(of: error))"])
                response = Response(status: .internalServerError)
            }
            response.headers[.date] = HTTPDate.now()
            await connection.write(response)
        }
    }

    /// The answer's end was written: half-close when the request asked, else go on with the
    /// requests read meanwhile, and read again.
    fileprivate func answered(_ context: ChannelHandlerContext) {
        answering = false
        guard !done else { return }
        if closeAfterAnswer { return halfClose(context) }
        if parseFailed { return refuse(context) }
        let parts = waiting
        waiting = []
        for part in parts { receive(part, context) }
        if readHeld, !readsWait {
            readHeld = false
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.close(promise: nil) }
        // Bytes after a request that asked to close are not a request of their own.
        guard !(answering && closeAfterAnswer) else { return }
        parseFailed = true
        if !answering { refuse(context) }
    }

    /// The client will send nothing more: the connection half-closes once the request being
    /// answered is, at once when none is (a request cut off half-way is not answered).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case ChannelEvent.inputClosed = event else { return context.fireUserInboundEventTriggered(event) }
        if answering { closeAfterAnswer = true } else { halfClose(context) }
    }

    /// Nothing more is read or answered; the client sees the end of the stream, and the
    /// connection closes once it has closed its side too.
    private func halfClose(_ context: ChannelHandlerContext) {
        done = true
        waiting = []
        context.close(mode: .output, promise: nil)
    }

    /// 400 for what the parser refused, with the API's error body (the request was not read, so
    /// no route's format applies), then the connection half-closes.
    private func refuse(_ context: ChannelHandlerContext) {
        guard !done else { return }
        let body = ByteBuffer(string: Self.unparsedBody)
        let head = HTTPResponse(status: .badRequest, headerFields: [
            .connection: "close", .contentType: "application/json", .contentLength: "\(body.readableBytes)",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        halfClose(context)
    }

    static let unparsedBody = #"{"error":"invalid_request","message":"The request is not well-formed HTTP/1.1."}"#

    func channelInactive(context: ChannelHandlerContext) {
        done = true
        waiting = []
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        done = true
    }

    fileprivate var isOpen: Bool { !done }
}

/// The handler and its context as the answering task holds them: touched only on the
/// connection's event loop, which the task runs on (its executor preference); a write that
/// finds itself elsewhere is moved there.
private final class Connection: @unchecked Sendable {
    let handler: RequestHandler
    let context: ChannelHandlerContext
    let loop: any EventLoop

    init(handler: RequestHandler, context: ChannelHandlerContext) {
        self.handler = handler
        self.context = context
        loop = context.eventLoop
    }

    func write(_ response: Response) async {
        await onLoop { $0.writeHead(response.head) }
        do {
            try await response.body.write(AnswerWriter(connection: self))
        } catch {
            // A body that failed half-way cannot be ended well: the connection closes.
            await onLoop { $0.context.close(promise: nil) }
        }
    }

    /// Runs `work` on the loop, at once when already there; nil when the loop has stopped.
    @discardableResult
    func onLoop<T: Sendable>(_ work: @escaping @Sendable (Connection) -> T) async -> T? {
        if loop.inEventLoop { return work(self) }
        return try? await loop.submit { work(self) }.get()
    }

    func writeHead(_ head: HTTPResponse) {
        guard handler.isOpen else { return }
        context.write(NIOAny(HTTPResponsePart.head(head)), promise: nil)
    }

    /// Written without a flush; when the socket cannot take more, flushed and waited for.
    func writeBody(_ buffer: ByteBuffer) -> EventLoopFuture<Void>? {
        guard handler.isOpen else { return nil }
        guard !context.channel.isWritable else {
            context.write(NIOAny(HTTPResponsePart.body(buffer)), promise: nil)
            return nil
        }
        return context.writeAndFlush(NIOAny(HTTPResponsePart.body(buffer)))
    }

    func end(_ trailers: HTTPFields?) {
        guard handler.isOpen else { return }
        context.writeAndFlush(NIOAny(HTTPResponsePart.end(trailers)), promise: nil)
        handler.answered(context)
    }
}

/// Writes an answer's body into the pipeline.
private struct AnswerWriter: ResponseBodyWriter {
    let connection: Connection

    mutating func write(_ buffer: ByteBuffer) async throws {
        if let flushed = await connection.onLoop({ $0.writeBody(buffer) }) ?? nil { try await flushed.get() }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        await connection.onLoop { $0.end(trailingHeaders) }
    }
}

/// The `Date` field's value (RFC 9110's IMF-fixdate), made once a second.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func now() -> String {
        let second = time(nil)
        return cache.withLock { cache in
            if cache.second != second { cache = (second, format(second)) }
            return cache.text
        }
    }

    static func format(_ second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
