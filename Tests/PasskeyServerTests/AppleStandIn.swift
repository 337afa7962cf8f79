import Foundation
import Hummingbird
import Logging
import PasskeyServerTestSupport
import PasskeyTestSupport
import NIOCore
import Synchronization

/// A local stand-in for Apple's endpoints, speaking their protocol over real HTTP on 127.0.0.1:
/// the key set (`GET /auth/keys`, with Cache-Control), the token endpoint (`POST /auth/token`,
/// a form with a client secret, answering a refresh token) and the revoke endpoint
/// (`POST /auth/revoke`). It counts what it served and keeps the forms it was sent.
final class AppleStandIn: Sendable {
    struct State {
        var jwks: [UInt8] = Array(#"{"keys":[]}"#.utf8)
        var cacheControl: String? = "max-age=3600"
        /// While true, the key set answers 503.
        var down = false
        var keyFetches = 0
        var tokenForms: [[String: String]] = []
        var revokeForms: [[String: String]] = []
    }

    /// What the routes and the tests share.
    final class Shared: Sendable {
        let mutex = Mutex(State())
    }

    let shared: Shared
    private let server: LocalServer
    var port: Int { server.port }

    var base: String { "http://127.0.0.1:\(port)" }
    var keysURL: String { base + "/auth/keys" }
    var tokenURL: String { base + "/auth/token" }
    var revokeURL: String { base + "/auth/revoke" }

    private init(shared: Shared, server: LocalServer) {
        self.shared = shared
        self.server = server
    }

    static func start() async throws -> AppleStandIn {
        let shared = Shared()
        let router = Router()
        router.get("/auth/keys") { _, _ -> Response in
            let (down, body, cacheControl) = shared.mutex.withLock { s in
                s.keyFetches += 1
                return (s.down, s.jwks, s.cacheControl)
            }
            guard !down else { return Response(status: .serviceUnavailable) }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            if let cacheControl { headers[.cacheControl] = cacheControl }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.post("/auth/token") { request, _ -> Response in
            let form = try await Self.form(request)
            shared.mutex.withLock { $0.tokenForms.append(form) }
            guard form["grant_type"] == "authorization_code", form["client_secret"]?.isEmpty == false, form["code"] == "good-code" else {
                return Self.json(#"{"error":"invalid_grant"}"#, status: .badRequest)
            }
            return Self.json(#"{"access_token":"a.t","token_type":"Bearer","expires_in":3600,"refresh_token":"r.stand-in","id_token":"x"}"#)
        }
        router.post("/auth/revoke") { request, _ -> Response in
            let form = try await Self.form(request)
            shared.mutex.withLock { $0.revokeForms.append(form) }
            return Response(status: .ok)
        }
        return AppleStandIn(shared: shared, server: await LocalServer.start(router: router))
    }

    func update(_ change: (inout State) -> Void) {
        shared.mutex.withLock { change(&$0) }
    }

    func read<T>(_ get: (State) -> T) -> T {
        shared.mutex.withLock { get($0) }
    }

    func stop() async {
        await server.stop()
    }

    static func form(_ request: Request) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: 65536)
        let text = String(buffer: body)
        var form: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        return form
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
