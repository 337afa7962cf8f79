internal import NIOCore
internal import NIOHTTPTypes
internal import HTTPTypes
internal import Synchronization
internal import PasskeyHTTPParsing

/// Open connections, counted in total and per client address (an IPv6 client by its /64). A
/// trusted proxy's connections count toward the total only: behind a proxy every client shares
/// its address.
public final class ConnectionCounter: Sendable {
    public let maxTotal: Int
    public let maxPerAddress: Int
    private let counts: Mutex<(total: Int, perAddress: [String: Int])>

    public init(maxTotal: Int, maxPerAddress: Int) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
        counts = Mutex((0, [:]))
    }

    /// Counts a new connection from `address` (nil: not capped per address); false, and nothing
    /// counted, when it would go over a cap.
    func open(_ address: String?) -> Bool {
        counts.withLock { counts in
            guard counts.total < maxTotal else { return false }
            if let address {
                let current = counts.perAddress[address, default: 0]
                guard current < maxPerAddress else { return false }
                counts.perAddress[address] = current + 1
            }
            counts.total += 1
            return true
        }
    }

    func close(_ address: String?) {
        counts.withLock { counts in
            counts.total -= 1
            guard let address, let current = counts.perAddress[address] else { return }
            counts.perAddress[address] = current > 1 ? current - 1 : nil
        }
    }

    /// (total, connections from `address`), for tests and metrics.
    public func snapshot(_ address: String) -> (total: Int, address: Int) {
        counts.withLock { ($0.total, $0.perAddress[address, default: 0]) }
    }
}

/// One per connection, after the HTTP decoder: refuses (closes) a connection over a cap, gives a
/// new connection `headerTimeout` to deliver its first request head, a request `bodyTimeout` to
/// deliver its whole body once its head came (then 408 where no answer has begun, and the
/// connection closes; a trickled body does not move the moment), and a kept-alive one
/// `idleTimeout` between the end of a response and the next head. When the server shuts down
/// (Hummingbird's quiesce event), a connection still open `shutdownTimeout` later is closed,
/// whatever it is waiting for. A half-open, silent or stalled connection is closed instead of
/// holding a descriptor, or a rolling restart, for ever.
///
/// The clock is three moments (`idleUntil`, `bodyUntil`, `closeAt`) moved at every head, body
/// end and answer, and one timer that is not moved with them: when the timer fires it acts on
/// the moments that have passed and sets itself for the next one, and lapses when none is set
/// (the next answer arms it again). Cancelling the timer at every head and arming a new one at
/// every answer cost more than a microsecond of each request. A body still incomplete when a
/// read ends moves the timer forward to its moment only then, so a request whose head and body
/// come in one read (most of them) never touches the timer.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let counter: ConnectionCounter
    let resolver: ClientAddressResolver
    let headerTimeout: TimeAmount
    let idleTimeout: TimeAmount
    let bodyTimeout: TimeAmount
    let shutdownTimeout: TimeAmount
    private var started = false
    private var accepted = false
    private var address: String?
    /// Requests whose head arrived and whose response has not ended.
    private var inFlight = 0
    /// Whether the response now being written has sent its head.
    private var answering = false
    /// When the connection is closed unless a request head comes first; nil while a request is
    /// in flight.
    private var idleUntil: NIODeadline?
    /// When the request being read is answered 408 unless its body ends first; nil when no body
    /// is being read.
    private var bodyUntil: NIODeadline?
    /// When the connection is closed whatever it is doing: set once the server shuts down.
    private var closeAt: NIODeadline?
    /// Set once the connection timed out: nothing more is written to it.
    private var finished = false
    /// The one timer, when armed, and the moment it fires.
    private var timer: Scheduled<Void>?
    private var timerAt: NIODeadline?

    init(
        counter: ConnectionCounter, resolver: ClientAddressResolver, headerTimeout: TimeAmount, idleTimeout: TimeAmount,
        bodyTimeout: TimeAmount = .seconds(30), shutdownTimeout: TimeAmount = .seconds(10)
    ) {
        self.counter = counter
        self.resolver = resolver
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.bodyTimeout = bodyTimeout
        self.shutdownTimeout = shutdownTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        let peer = context.channel.remoteAddress.flatMap(RequestPolicy.addressBytes)
        address = peer.flatMap { resolver.isTrusted($0) ? nil : IPAddress.limitKey(IPAddress.text($0)) }
        guard counter.open(address) else {
            // Closed on the next turn of the loop, not here: this can run while the server is
            // still wrapping the channel, which must not see it close half-way.
            let channel = context.channel
            context.eventLoop.execute { channel.close(promise: nil) }
            return
        }
        accepted = true
        idle(context, for: headerTimeout)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopTimer()
        idleUntil = nil
        bodyUntil = nil
        closeAt = nil
        if accepted {
            accepted = false
            counter.close(address)
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !finished else { return }
        switch unwrapInboundIn(data) {
        case .head:
            inFlight += 1
            idleUntil = nil
            bodyUntil = context.eventLoop.now + bodyTimeout
        case .end:
            bodyUntil = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if let bodyUntil { move(context, to: bodyUntil) }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, closeAt == nil {
            let moment = context.eventLoop.now + shutdownTimeout
            closeAt = moment
            move(context, to: moment)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !finished else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head:
            answering = true
        case .end:
            answering = false
            inFlight = max(0, inFlight - 1)
            if inFlight == 0 { idle(context, for: idleTimeout) }
        case .body:
            break
        }
        context.write(data, promise: promise)
    }

    /// The connection is idle from now: closed after `amount` unless a head comes.
    private func idle(_ context: ChannelHandlerContext, for amount: TimeAmount) {
        let until = context.eventLoop.now + amount
        idleUntil = until
        move(context, to: until)
    }

    /// The timer is armed when none is, and moved only when it would fire after `moment`.
    private func move(_ context: ChannelHandlerContext, to moment: NIODeadline) {
        if let timerAt, timerAt <= moment { return }
        timer?.cancel()
        arm(context, at: moment)
    }

    private func arm(_ context: ChannelHandlerContext, at moment: NIODeadline) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        timerAt = moment
        timer = context.eventLoop.scheduleTask(deadline: moment) {
            handler.value.timerFired(boundContext.value)
        }
    }

    private func stopTimer() {
        timer?.cancel()
        timer = nil
        timerAt = nil
    }

    private func timerFired(_ context: ChannelHandlerContext) {
        timer = nil
        timerAt = nil
        let now = context.eventLoop.now
        if let moment = closeAt, now >= moment {
            return finish(context, answer: false)
        }
        if let moment = idleUntil, now >= moment {
            return finish(context, answer: false)
        }
        if let moment = bodyUntil, now >= moment {
            // A 408 only where it is the next thing the client reads: no answer begun, no
            // earlier pipelined request still being answered.
            return finish(context, answer: !answering && inFlight == 1)
        }
        if let next = [closeAt, idleUntil, bodyUntil].compactMap({ $0 }).min() { arm(context, at: next) }
    }

    /// Closes the connection, after a 408 when `answer`; nothing written afterwards reaches it.
    private func finish(_ context: ChannelHandlerContext, answer: Bool) {
        finished = true
        idleUntil = nil
        bodyUntil = nil
        closeAt = nil
        if answer {
            var body = context.channel.allocator.buffer(capacity: Self.timeoutBody.count)
            body.writeBytes(Self.timeoutBody)
            var fields = HTTPFields()
            fields[.contentType] = "application/json"
            fields[.contentLength] = String(Self.timeoutBody.count)
            fields[.connection] = "close"
            fields[.cacheControl] = "no-store"
            context.write(wrapOutboundOut(.head(HTTPResponse(status: .requestTimeout, headerFields: fields))), promise: nil)
            context.write(wrapOutboundOut(.body(body)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.close(promise: nil)
    }

    static let timeoutBody = Array(#"{"error":"request_timeout","message":"the request body did not arrive in time"}"#.utf8)

    func handlerRemoved(context: ChannelHandlerContext) {
        stopTimer()
    }
}
