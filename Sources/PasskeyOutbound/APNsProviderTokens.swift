internal import Foundation

/// The APNs provider token in use. Apple wants one token reused, refreshed no more often than
/// every 20 minutes and at least every 60 ("Establishing a token-based connection to APNs";
/// 429 `TooManyProviderTokenUpdates` otherwise): a token is kept for `refreshAge` (50 minutes)
/// and only replaced earlier when APNs refused it (`discard`).
actor APNsProviderTokens {
    static let refreshAge: TimeInterval = 50 * 60

    private let make: @Sendable (Date) throws -> String
    private var current: (token: String, issuedAt: Date)?

    init(make: @escaping @Sendable (Date) throws -> String) {
        self.make = make
    }

    /// The cached token, or a new one issued at `now` when there is none, it is 50 minutes old,
    /// or the clock went back past its `iat` (APNs refuses a token issued in the future).
    func token(now: Date) throws -> String {
        if let current {
            let age = now.timeIntervalSince(current.issuedAt)
            if age >= 0, age < Self.refreshAge { return current.token }
        }
        let token = try make(now)
        current = (token, now)
        return token
    }

    /// Forgets `token` after APNs refused it (403 `ExpiredProviderToken`/`InvalidProviderToken`).
    /// A token that was already replaced (another send saw the same refusal first) is left
    /// alone, so concurrent refusals make one new token, not one each.
    func discard(_ token: String) {
        if current?.token == token { current = nil }
    }
}
