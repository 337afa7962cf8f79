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
    static func guarded(header: Int64 = 10, idle: Int64 = 5) throws -> (EmbeddedEventLoop, EmbeddedChannel) {
        let loop = EmbeddedEventLoop()
        let handler = ConnectionGuardHandler(
            counter: ConnectionCounter(maxTotal: 10, maxPerAddress: 10), resolver: ClientAddressResolver(trustedProxies: []),
            headerTimeout: .seconds(header), idleTimeout: .seconds(idle))
        let channel = EmbeddedChannel(handler: handler, loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40000)).wait()
        return (loop, channel)
    }

    static func head(_ channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "a", path: "/")))
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
}
