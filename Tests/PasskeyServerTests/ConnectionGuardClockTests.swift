import HTTPTypes
import NIOHTTPTypes
import NIOCore
import NIOEmbedded
import PasskeyHTTPParsing
@testable import PasskeyServer
import Testing

/// The connection guard's clock on a virtual one (an embedded event loop): the idle time runs
/// from the last answer however the one timer was armed, never while a request is in flight, and
/// a connection that keeps asking is never closed by a timer armed before its last request.
@Suite struct ConnectionGuardClockTests {
    static func guarded(header: Int64 = 10, idle: Int64 = 5, body: Int64 = 30, shutdown: Int64 = 10) throws -> (EmbeddedEventLoop, EmbeddedChannel) {
        let loop = EmbeddedEventLoop()
        let handler = ConnectionGuardHandler(
            counter: ConnectionCounter(maxTotal: 10, maxPerAddress: 10), resolver: ClientAddressResolver(trustedProxies: []),
            headerTimeout: .seconds(header), idleTimeout: .seconds(idle), bodyTimeout: .seconds(body), shutdownTimeout: .seconds(shutdown))
        let channel = EmbeddedChannel(handler: handler, loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40000)).wait()
        return (loop, channel)
    }

    /// A GET: its head and its end, as one read.
    static func head(_ channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "a", path: "/")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.pipeline.fireChannelReadComplete()
        _ = try channel.readInbound(as: HTTPRequestPart.self)
        _ = try channel.readInbound(as: HTTPRequestPart.self)
    }

    static func answer(_ channel: EmbeddedChannel) throws {
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
    }

    @Test("a connection with no head is closed at the header timeout, not before")
    func headerTimeout() throws {
        let (loop, channel) = try Self.guarded()
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    @Test("a request in flight longer than every timeout is not closed; the idle time runs from its answer")
    func longRequest() throws {
        let (loop, channel) = try Self.guarded()
        loop.advanceTime(by: .seconds(9))
        try Self.head(channel)
        loop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
        try Self.answer(channel)
        loop.advanceTime(by: .seconds(4))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    @Test("an idle timeout shorter than the header timeout: the first answer's idle time is not stretched to the header timer")
    func shorterIdle() throws {
        let (loop, channel) = try Self.guarded(header: 10, idle: 5)
        loop.advanceTime(by: .seconds(1))
        try Self.head(channel)
        loop.advanceTime(by: .seconds(1))
        try Self.answer(channel)                      // idle until t=7; the header timer was set for t=10
        loop.advanceTime(by: .milliseconds(4500))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test("requests that keep coming on one connection: the timer armed after the first answer does not close it")
    func keptBusy() throws {
        let (loop, channel) = try Self.guarded()
        try Self.head(channel)
        try Self.answer(channel)                      // idle until t+5, timer armed for t+5
        for _ in 0..<4 {
            loop.advanceTime(by: .seconds(3))
            try Self.head(channel)
            try Self.answer(channel)                  // idle until now+5; the old timer is not moved
            #expect(channel.isActive)
        }
        loop.advanceTime(by: .seconds(4))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    /// A POST head whose body has not ended, as one read.
    static func postHead(_ channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .post, scheme: nil, authority: "a", path: "/x")))
        channel.pipeline.fireChannelReadComplete()
        _ = try channel.readInbound(as: HTTPRequestPart.self)
    }

    static func bodyPart(_ channel: EmbeddedChannel, end: Bool = false) throws {
        try channel.writeInbound(end ? HTTPRequestPart.end(nil) : HTTPRequestPart.body(ByteBuffer(string: "{")))
        channel.pipeline.fireChannelReadComplete()
        _ = try channel.readInbound(as: HTTPRequestPart.self)
    }

    @Test("a body that never ends gets 408 at the body timeout and the connection closes; a trickle does not reset it")
    func stalledBody() throws {
        let (loop, channel) = try Self.guarded(idle: 60, body: 30)
        try Self.postHead(channel)
        for _ in 0..<5 {
            loop.advanceTime(by: .seconds(5))
            try Self.bodyPart(channel)                // a byte every 5 s: not a reason to wait longer
        }
        loop.advanceTime(by: .seconds(4))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
        guard case .head(let response) = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no 408 head")
            return
        }
        #expect(response.status.code == 408)
        guard case .body(let body) = try channel.readOutbound(as: HTTPResponsePart.self) else {
            Issue.record("no 408 body")
            return
        }
        #expect(String(buffer: body).contains(#""error":"request_timeout""#))
    }

    @Test("a body that ends in time is not cut, however long the handler then takes")
    func bodyInTime() throws {
        let (loop, channel) = try Self.guarded(idle: 60, body: 30)
        try Self.postHead(channel)
        loop.advanceTime(by: .seconds(20))
        try Self.bodyPart(channel, end: true)
        loop.advanceTime(by: .seconds(100))
        #expect(channel.isActive)
        try Self.answer(channel)
        loop.advanceTime(by: .seconds(59))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    @Test("an answer begun before the body stalled: closed at the body timeout, no second answer")
    func answeredThenStalled() throws {
        let (loop, channel) = try Self.guarded(idle: 60, body: 30)
        try Self.postHead(channel)
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        _ = try channel.readOutbound(as: HTTPResponsePart.self)
        loop.advanceTime(by: .seconds(31))
        #expect(!channel.isActive)
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
    }

    @Test("once the server shuts down, a connection waiting for a body is closed at the shutdown timeout")
    func shutdown() throws {
        let (loop, channel) = try Self.guarded(idle: 60, body: 600, shutdown: 10)
        try Self.postHead(channel)
        loop.advanceTime(by: .seconds(5))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }
}
