public import Prometheus
public import Hummingbird
internal import NIOCore
public import PasskeyTelemetry

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
