internal import HTTPTypes
internal import PasskeyTelemetry

/// `http_requests_total` and `http_request_duration_seconds` for every request, by the route
/// the router matched (never the raw path: `/credentials/{id}`; `other` for static files,
/// unknown paths and spellings that are not canonical), with the status the client gets.
struct HTTPRequestMetrics: Sendable {
    let metrics: PasskeyMetrics

    /// The method's name for the label, `other` for a method HTTP does not define: a client
    /// may send any token there, and each would be a new series kept for the process's life.
    static func methodLabel(_ method: HTTPRequest.Method) -> String {
        switch method {
        case .get, .head, .post, .put, .patch, .delete, .options, .connect, .trace: method.rawValue
        default: "other"
        }
    }

    /// One request: `route` is its template (nil: `other`).
    func record(_ route: String?, _ method: HTTPRequest.Method, status: Int, since started: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        metrics.httpRequest(
            route: route ?? "other", method: Self.methodLabel(method), status: status,
            seconds: Double(seconds) + Double(attoseconds) / 1e18)
    }
}
