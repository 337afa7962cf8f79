public import Foundation
internal import PasskeyStorage

/// A limit that holds across every instance on one database: the limits that protect a
/// guessable or annoying secret (recovery-code attempts, wrong device user codes, push sign-in
/// requests to a person's phones) count in the store, a row per key and fixed window, checked and counted in one statement, so two instances do not
/// give an attacker twice the attempts. A limit of 0 is off.
struct SharedLimit: Sendable {
    let store: any ServerStateStore
    /// Attempts a key may make in a window.
    let limit: Int
    /// The window, in seconds.
    let window: TimeInterval

    /// Counts an attempt for each of `keys`; 429 `rate_limited` (with the seconds until the
    /// window ends) when any was at its limit already.
    func take(_ keys: [String], now: Date) async throws {
        try await answer(keys, now: now, counting: true)
    }

    /// 429 when any of `keys` is at its limit, counting nothing: for limits that count only
    /// failures.
    func check(_ keys: [String], now: Date) async throws {
        try await answer(keys, now: now, counting: false)
    }

    private func answer(_ keys: [String], now: Date, counting: Bool) async throws {
        guard limit > 0, !keys.isEmpty else { return }
        let windowMilliseconds = Int64(window * 1000)
        guard let end = try await store.countAttempts(keys: keys, limit: limit, window: windowMilliseconds, now: now, counting: counting) else {
            return
        }
        throw APIError.rateLimited(retryAfter: Self.secondsUntil(end, now: now))
    }

    /// Whole seconds from `now` to `end` (milliseconds since 1970), at least 1.
    static func secondsUntil(_ end: Int64, now: Date) -> Int {
        let left = Double(end) / 1000 - now.timeIntervalSince1970
        return max(1, Int(left.rounded(.up)))
    }
}
