import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import PasskeyTestSupport
import Synchronization

/// The request context of the stand-ins: Hummingbird's basic one plus the channel the request
/// came in on, so a stand-in can tell an HTTP/2 stream from an HTTP/1.1 connection.
struct StandInContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// NIOHTTP2 runs every HTTP/2 stream on a child channel of its own class; an HTTP/1.1
    /// request runs on the TCP connection's channel.
    var arrivedOverHTTP2: Bool {
        String(reflecting: type(of: channel)) == "NIOHTTP2.HTTP2StreamChannel"
    }
}

/// A Hummingbird server on 127.0.0.1 with a port picked by the kernel, speaking the real
/// protocol over the network (plain HTTP/1.1, or HTTP/2 over TLS), for the providers to talk to.
final class StandInServer: Sendable {
    let scheme: String
    private let server: LocalServer

    var port: Int { server.port }
    var base: String { "\(scheme)://127.0.0.1:\(port)" }

    private init(server: LocalServer, scheme: String) {
        self.server = server
        self.scheme = scheme
    }

    /// Plain HTTP/1.1.
    static func start(router: Router<StandInContext>) async throws -> StandInServer {
        try await start(router: router, server: .http1(), scheme: "http")
    }

    /// TLS with ALPN offering h2 and http/1.1 (Hummingbird's HTTP/2 server); the routes see
    /// through `arrivedOverHTTP2` which one the client chose.
    static func startHTTP2(router: Router<StandInContext>, certificate: TestCertificate) async throws -> StandInServer {
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(certificate.certificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(certificate.privateKeyPEM.utf8), format: .pem)))
        return try await start(router: router, server: try .http2Upgrade(tlsConfiguration: tls), scheme: "https")
    }

    private static func start(router: Router<StandInContext>, server: HTTPServerBuilder, scheme: String) async throws -> StandInServer {
        StandInServer(server: await LocalServer.start(router: router, server: server), scheme: scheme)
    }

    func stop() async {
        await server.stop()
    }

    /// Runs `body`, then stops the server whether `body` threw or not.
    func serving<T>(_ body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }
}

/// State shared by a stand-in's routes and the test.
final class Recorder<State: Sendable>: Sendable {
    private let mutex: Mutex<State>

    init(_ state: State) {
        mutex = Mutex(state)
    }

    func update<T>(_ change: (inout State) -> T) -> T {
        mutex.withLock { change(&$0) }
    }

    func read<T>(_ get: (State) -> T) -> T {
        mutex.withLock { get($0) }
    }
}

enum StandInHTTP {
    static func body(_ request: Request) async throws -> [UInt8] {
        Array(try await request.body.collect(upTo: 1 << 20).readableBytesView)
    }

    static func jsonObject(_ request: Request) async throws -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(try await body(request)))) as? [String: Any]
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func form(_ request: Request) async throws -> [String: String] {
        let text = String(decoding: try await body(request), as: UTF8.self)
        var form: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        return form
    }
}
