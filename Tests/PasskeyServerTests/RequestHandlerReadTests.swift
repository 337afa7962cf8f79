import Hummingbird
import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
@testable import PasskeyServer
import Synchronization
import Testing

/// When the request handler passes NIO's reads on: while a request is answered, reads go on
/// (a client that waits for its answer costs no change of the socket's interest), and they stop
/// only once parts of the next requests wait, until the answer is written.
@Suite struct RequestHandlerReadTests {
    /// Counts the reads that reach the head of the pipeline (where the socket would be asked).
    final class ReadCounter: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = Any
        let count = Mutex(0)
        func read(context: ChannelHandlerContext) {
            count.withLock { $0 += 1 }
            context.read()
        }
    }

    /// Holds an answer until opened.
    actor Gate {
        private var open = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        private(set) var entered = 0

        func pass() async {
            entered += 1
            guard !open else { return }
            await withCheckedContinuation { waiting.append($0) }
        }

        func release() {
            open = true
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    /// Runs the loop's queued work (the answering task's steps run there) until `done`.
    static func pump(_ loop: NIOAsyncTestingEventLoop, until done: () async throws -> Bool) async throws {
        for _ in 0..<2000 {
            await loop.run()
            if try await done() { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("the condition never held")
    }

    static func get(_ path: String) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: nil, authority: "localhost", path: path)
    }

    @Test("reads pass while a request is answered, are held once the next request waits, and resume after the answer")
    func readsWhileAnswering() async throws {
        let gate = Gate()
        let router = Router(context: PasskeyRequestContext.self)
        router.get("/slow") { _, _ -> String in
            await gate.pass()
            return "done"
        }
        let loop = NIOAsyncTestingEventLoop()
        let channel = NIOAsyncTestingChannel(loop: loop)
        let counter = ReadCounter()
        try await channel.pipeline.addHandler(counter)
        try await channel.pipeline.addHandler(RequestHandler(responder: router.buildResponder(), maxBody: 1024, logger: Logger(label: "test")))
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40000))

        try await channel.writeInbound(HTTPRequestPart.head(Self.get("/slow")))
        try await channel.writeInbound(HTTPRequestPart.end(nil))
        try await Self.pump(loop) { await gate.entered == 1 }

        // The answer is pending and nothing of a next request has come: a read passes.
        let before = counter.count.withLock { $0 }
        channel.read()
        await loop.run()
        #expect(counter.count.withLock { $0 } == before + 1, "a read was held while the client waited for its answer")

        // A pipelined request's head arrives: now reading stops until the answer is written.
        try await channel.writeInbound(HTTPRequestPart.head(Self.get("/slow")))
        channel.read()
        await loop.run()
        #expect(counter.count.withLock { $0 } == before + 1, "a read passed while the next request waited")

        // The answer is written; the waiting request is taken up and the held read passes.
        await gate.release()
        try await Self.pump(loop) { counter.count.withLock { $0 } == before + 2 }
        var parts: [HTTPResponsePart] = []
        while let part = try await channel.readOutbound(as: HTTPResponsePart.self) { parts.append(part) }
        guard case .head(let head)? = parts.first else {
            Issue.record("no answer written: \(parts)")
            return
        }
        #expect(head.status == .ok)
        _ = try? await channel.finish()
    }
}
