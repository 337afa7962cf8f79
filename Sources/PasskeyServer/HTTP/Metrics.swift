public import PasskeyAccounts
public import Prometheus
public import Hummingbird
internal import HTTPTypes
internal import NIOCore
public import PasskeyTelemetry
internal import PasskeyHTTPParsing

/// The Prometheus side of `PasskeyMetrics`: one registry per application (so servers in one
/// process, as in the tests, do not mix their numbers), its factory, and the text exposition
/// format for `GET /metrics`.
public struct MetricsRegistry: Sendable {
    public let registry: PrometheusCollectorRegistry
    public let metrics: PasskeyMetrics

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Commits take from well under a millisecond (a page-cache fsync) to seconds (a slow
        // disk); a batch holds from one write to hundreds under load.
        factory.durationHistogramBuckets["passkey_db_commit_seconds"] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .seconds(1),
        ]
        factory.valueHistogramBuckets["passkey_db_commit_batch_size"] = [1, 2, 4, 8, 16, 32, 64, 128, 256]
        metrics = PasskeyMetrics(factory: factory)
    }

    /// The registry in Prometheus' text format, version 0.0.4.
    public func response() -> Response {
        var buffer = ByteBuffer()
        buffer.writeBytes(registry.emitToBuffer())
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: buffer))
    }
}

/// `http_requests_total` and `http_request_duration_seconds` for every request, by the route
/// the router matched (never the raw path: `/credentials/{id}`; `other` for static files,
/// unknown paths and spellings that are not canonical). Outermost, so it sees the status the
/// client gets.
struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: PasskeyMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let route = Self.route(request, context: context)
        let method = Self.methodLabel(request.method)
        do {
            let response = try await next(request, context)
            record(route, method, Int(response.status.code), started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(route, method, Int(status), started)
            throw error
        }
    }

    /// The route the router matched; for a known path asked with another method (405), its
    /// template; else `other`. A path that is not canonical is `other` whatever it matched.
    static func route(_ request: Request, context: Context) -> String {
        let path = request.uri.path
        guard RequestPath.isCanonical(path) else { return "other" }
        if let endpoint = context.endpointPath, RoutePaths.routes[endpoint] != nil { return endpoint }
        return RoutePaths.template(for: path) ?? "other"
    }

    /// The method's name for the label, `other` for a method HTTP does not define: a client
    /// may send any token there, and each would be a new series kept for the process's life.
    static func methodLabel(_ method: HTTPRequest.Method) -> String {
        switch method {
        case .get, .head, .post, .put, .patch, .delete, .options, .connect, .trace: method.rawValue
        default: "other"
        }
    }

    private func record(_ route: String, _ method: String, _ status: Int, _ started: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        metrics.httpRequest(route: route, method: method, status: status, seconds: Double(seconds) + Double(attoseconds) / 1e18)
    }
}

/// Gives every request an id: the client's `X-Request-Id` when well-formed, else a new one. It
/// is on every log line written while the request is served (`RequestID.current`) and in the
/// response's `X-Request-Id`. Outermost of all middleware.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = RequestID.accepted(request.headers[Self.header]) ?? RequestID.make()
        var response = try await RequestID.$current.withValue(id) { try await next(request, context) }
        response.headers[Self.header] = id
        return response
    }
}
