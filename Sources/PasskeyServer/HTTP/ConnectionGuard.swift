public import PasskeyAccounts
public import Hummingbird
internal import HummingbirdCore
internal import NIOCore
internal import NIOHTTPTypes
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
/// new connection `headerTimeout` to deliver its first request head, and a kept-alive one
/// `idleTimeout` between the end of a response and the next head. A half-open or silent
/// connection is closed instead of holding a descriptor for ever.
///
/// The clock is a moment (`idleUntil`) moved at every head and answer, and one timer that is
/// not moved with it: when the timer fires it closes the connection if the moment has passed,
/// sets itself for the moment if it has not, and lapses while a request is in flight (the next
/// answer arms it again). Cancelling the timer at every head and arming a new one at every
/// answer cost more than a microsecond of each request.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let counter: ConnectionCounter
    let resolver: ClientAddressResolver
    let headerTimeout: TimeAmount
    let idleTimeout: TimeAmount
    private var started = false
    private var accepted = false
    private var address: String?
    /// Requests whose head arrived and whose response has not ended.
    private var inFlight = 0
    /// When the connection is closed unless a request head comes first; nil while a request is
    /// in flight.
    private var idleUntil: NIODeadline?
    /// The one timer, when armed, and the moment it fires.
    private var timer: Scheduled<Void>?
    private var timerAt: NIODeadline?

    init(counter: ConnectionCounter, resolver: ClientAddressResolver, headerTimeout: TimeAmount, idleTimeout: TimeAmount) {
        self.counter = counter
        self.resolver = resolver
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
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
        let peer = context.channel.remoteAddress.flatMap(RequestPolicyMiddleware.addressBytes)
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
        timer?.cancel()
        timer = nil
        timerAt = nil
        idleUntil = nil
        if accepted {
            accepted = false
            counter.close(address)
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            inFlight += 1
            idleUntil = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            inFlight = max(0, inFlight - 1)
            if inFlight == 0 { idle(context, for: idleTimeout) }
        }
        context.write(data, promise: promise)
    }

    /// The connection is idle from now: closed after `amount` unless a head comes. The timer is
    /// armed when none is, and moved only when it would fire after the new moment (the first
    /// answer of a connection whose header timeout is longer than its idle timeout).
    private func idle(_ context: ChannelHandlerContext, for amount: TimeAmount) {
        let until = context.eventLoop.now + amount
        idleUntil = until
        if let timerAt, timerAt <= until { return }
        timer?.cancel()
        arm(context.channel, on: context.eventLoop, at: until)
    }

    private func arm(_ channel: any Channel, on loop: any EventLoop, at moment: NIODeadline) {
        let handler = NIOLoopBound(self, eventLoop: loop)
        timerAt = moment
        timer = loop.scheduleTask(deadline: moment) {
            handler.value.timerFired(channel, on: loop)
        }
    }

    private func timerFired(_ channel: any Channel, on loop: any EventLoop) {
        timer = nil
        timerAt = nil
        guard let until = idleUntil else { return }   // a request is in flight; its end arms again
        if loop.now >= until {
            channel.close(promise: nil)
        } else {
            arm(channel, on: loop, at: until)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        timerAt = nil
    }
}

extension PasskeyHTTP {
    /// HTTP/1.1 with the connection guard in every connection's pipeline, each connection's
    /// requests handled on the event loop that reads it.
    public static func server(configuration: PasskeyAccounts.ServerConfiguration, counter: ConnectionCounter) -> HTTPServerBuilder {
        let resolver = ClientAddressResolver(trustedProxies: configuration.trustedProxies)
        let header = TimeAmount.milliseconds(Int64(configuration.headerTimeout * 1000))
        let idle = TimeAmount.milliseconds(Int64(configuration.idleTimeout * 1000))
        return HTTPServerBuilder { responder in
            EventLoopBoundChannel(inner: HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [
                ConnectionGuardHandler(counter: counter, resolver: resolver, headerTimeout: header, idleTimeout: idle)
            ])))
        }
    }
}
