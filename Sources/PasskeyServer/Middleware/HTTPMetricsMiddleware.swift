internal import Hummingbird
internal import HTTPTypes
internal import PasskeyTelemetry
internal import PasskeyHTTPParsing

/// `http_requests_total` and `http_request_duration_seconds` for every request, by the route
/// the router matched (never the raw path: `/credentials/{id}`; `other` for static files,
/// unknown paths and spellings that are not canonical). Outermost, so it sees the status the
/// client gets.
struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: PasskeyMetrics
    /// The routes, for the label of a request the router did not match.
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let route = route(request, context: context)
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
    func route(_ request: Request, context: Context) -> String {
        let path = request.uri.path
        guard RequestPath.isCanonical(path) else { return "other" }
        if let endpoint = context.endpointPath, routes.contains(endpoint) { return endpoint }
        return routes.template(for: path) ?? "other"
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
