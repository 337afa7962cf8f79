internal import PasskeyJSON
public import Foundation
internal import PasskeyCore
internal import PasskeyStorage
internal import PasskeyTelemetry

/// The health answer, the sweep of what expired, and the time format of the answers.
extension PasskeySignIn {
    /// `GET /healthz`: the database answers (the sweep touches it), and the metadata BLOB's
    /// state, stale once the day after its nextUpdate has begun.
    public func health() async throws -> HealthResponse {
        // A read, not a write: probes come every few seconds, and a sweep here would fsync each
        // time. The database answering is what a 200 promises; SweeperService does the sweeping.
        _ = try await store.schemaVersion
        let stale = reportMetadataStaleness()
        let apple = configuration.signInWithAppleEnabled
        let registration = configuration.registration.rawValue
        guard let blob = rp.metadata else {
            return HealthResponse(signInWithApple: apple, registration: registration, recoveryCodes: configuration.recoveryCodes, metadata: .init(loaded: false))
        }
        return HealthResponse(
            signInWithApple: apple, registration: registration, recoveryCodes: configuration.recoveryCodes,
            metadata: .init(loaded: true, number: blob.number, entries: blob.entries.count, nextUpdate: blob.nextUpdateText, stale: stale))
    }

    /// Whether the loaded metadata BLOB is past its nextUpdate now (false without one), also
    /// reported as `passkey_mds_blob_stale`: at start-up, by `/healthz` and by each sweep.
    @discardableResult public func reportMetadataStaleness() -> Bool {
        let stale = rp.metadata?.isStale(at: now()) ?? false
        metrics.metadataStale(stale)
        return stale
    }

    /// Expired ceremonies and sessions, and events past the retention period.
    public func sweep() async throws -> (ceremonies: Int, sessions: Int, events: Int) {
        let now = now()
        let swept = try await store.sweepExpired(now: now)
        let events = try await store.deleteEvents(olderThan: now.addingTimeInterval(-configuration.auditRetention))
        return (swept.ceremonies, swept.sessions, events)
    }

    /// ISO 8601 in UTC, e.g. 2026-11-21T09:30:00Z.
    public static func timestamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
