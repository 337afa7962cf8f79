public import CoreMetrics
internal import Foundation
internal import Synchronization

/// The one interface every system of the server reports its metrics through (passkeys now;
/// Sign in with Apple, push and Messages for Business as they arrive). Behind it are
/// swift-metrics' `Counter`, `Timer` and `Recorder`, made by the factory the application
/// chose (Prometheus in the server, so `GET /metrics` shows them); no HTTP framework here.
///
/// Names and labels are those of docs/contracts/operations.md, "Metrics", and docs/reference/metrics.md. Label values come from fixed sets
/// (route templates, methods, status codes, the contract's error codes), never from raw client
/// input, so the number of series stays bounded.
public struct PasskeyMetrics: Sendable {
    let factory: any MetricsFactory
    /// The HTTP metrics' handles, made once per label set: making one goes through the
    /// factory's registry (a lock, a label check, a dictionary of series), which cost more than
    /// the rest of a small request's metrics.
    private let httpHandles = HTTPHandles()

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Metrics that go nowhere (tests and tools that do not serve them).
    public static let discarding = PasskeyMetrics(factory: NOOPMetricsHandler.instance)

    public enum Outcome: String, Sendable {
        case ok, refused
    }

    /// `passkey_ceremonies_total{ceremony,outcome,error}`: one finished ceremony (a finalize).
    /// `ceremony` is `registration` or `authentication` (and `siwa`, `push`, `mfb` later);
    /// `error` is the contract's error code of a refusal, `none` for success.
    public func ceremony(_ ceremony: String, _ outcome: Outcome, error: String? = nil) {
        Counter(
            label: "passkey_ceremonies_total",
            dimensions: [("ceremony", ceremony), ("outcome", outcome.rawValue), ("error", error ?? "none")],
            factory: factory
        ).increment()
    }

    /// `passkey_db_commit_seconds` and `passkey_db_commit_batch_size`: one durable commit, how
    /// long it took and how many writes it made durable together.
    public func databaseCommit(seconds: Double, batch: Int) {
        Timer(label: "passkey_db_commit_seconds", factory: factory).recordNanoseconds(Self.nanoseconds(seconds))
        Recorder(label: "passkey_db_commit_batch_size", factory: factory).record(batch)
    }

    /// `http_requests_total{route,method,status}` and `http_request_duration_seconds{route,method}`.
    /// `route` is the route template (`/credentials/{id}`), `other` for anything else.
    public func httpRequest(route: String, method: String, status: Int, seconds: Double) {
        let (counter, timer) = httpHandles.handles(route: route, method: method, status: status) {
            Counter(
                label: "http_requests_total", dimensions: [("route", route), ("method", method), ("status", String(status))],
                factory: factory)
        } timer: {
            Timer(label: "http_request_duration_seconds", dimensions: [("route", route), ("method", method)], factory: factory)
        }
        counter.increment()
        timer.recordNanoseconds(Self.nanoseconds(seconds))
    }

    /// `passkey_mds_blob_stale`: 1 while the loaded FIDO metadata BLOB is past its nextUpdate.
    public func metadataStale(_ stale: Bool) {
        Gauge(label: "passkey_mds_blob_stale", factory: factory).record(stale ? 1 : 0)
    }

    /// `passkey_apple_jwks_refresh_total{result}`: one fetch of Apple's key set, `ok` or `error`.
    public func appleKeysRefreshed(_ result: String) {
        Counter(label: "passkey_apple_jwks_refresh_total", dimensions: [("result", result)], factory: factory).increment()
    }

    /// `passkey_push_deliveries_total{provider,result}`: one push handed to a provider
    /// (`log`, `webhook`, `apns`, `fcm`) and what came of it (`delivered`, `device_gone`,
    /// `failed`).
    public func pushDelivered(provider: String, result: String) {
        Counter(label: "passkey_push_deliveries_total", dimensions: [("provider", provider), ("result", result)], factory: factory)
            .increment()
    }

    static func nanoseconds(_ seconds: Double) -> Int64 {
        let value = (seconds * 1e9).rounded()
        guard value.isFinite, value >= 0 else { return 0 }
        return value >= Double(Int64.max) ? Int64.max : Int64(value)
    }
}

/// The counters and timers of `http_requests_total` and `http_request_duration_seconds`, by
/// their labels. The label sets are bounded (route templates, methods, statuses).
private final class HTTPHandles: Sendable {
    private struct Key: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private struct TimerKey: Hashable {
        let route: String
        let method: String
    }

    private let handles = Mutex<(counters: [Key: Counter], timers: [TimerKey: CoreMetrics.Timer])>(([:], [:]))

    func handles(route: String, method: String, status: Int, counter: () -> Counter, timer: () -> CoreMetrics.Timer) -> (Counter, CoreMetrics.Timer) {
        let key = Key(route: route, method: method, status: status)
        let timerKey = TimerKey(route: route, method: method)
        if let found = handles.withLock({ handles -> (Counter, CoreMetrics.Timer)? in
            guard let counter = handles.counters[key], let timer = handles.timers[timerKey] else { return nil }
            return (counter, timer)
        }) {
            return found
        }
        let made = (counter(), timer())
        return handles.withLock { handles in
            let counter = handles.counters[key] ?? made.0
            let timer = handles.timers[timerKey] ?? made.1
            handles.counters[key] = counter
            handles.timers[timerKey] = timer
            return (counter, timer)
        }
    }
}
