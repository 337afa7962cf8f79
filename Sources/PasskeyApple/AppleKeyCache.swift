public import PasskeyCore
public import Foundation
public import PasskeyJOSE

/// What one fetch of Apple's JWKS returned.
public struct FetchedKeys: Sendable {
    public let body: [UInt8]
    /// The response's `Cache-Control` header, if any.
    public let cacheControl: String?

    public init(body: [UInt8], cacheControl: String?) {
        self.body = body
        self.cacheControl = cacheControl
    }
}

/// Apple's keys as docs/contracts/siwa.md keeps them: in memory, persisted through `save` and read back
/// through `load` on a cold start, refreshed when `Cache-Control` says they are stale.
///
/// - Freshness: `max-age` clamped to 5 minutes…24 hours; no header (or no `max-age`) is 1 hour.
/// - One fetch at a time: callers that need keys while a fetch runs await that fetch.
/// - An unknown `kid` triggers at most one re-fetch a minute (a key Apple just rotated in);
///   within the minute it is `invalid_token` at once, without fetching, so tokens with made-up
///   kids cannot make the server hammer Apple.
/// - A failed fetch — an error, or a body that is not a JWKS with at least one RSA key — keeps
///   the last good keys serving; stale keys are then re-fetched at most once a minute. With no
///   keys at all, every lookup tries a fetch (still one at a time) and, failing, is
///   `apple_keys_unavailable`.
public actor AppleKeyCache: AppleKeySource {
    public static let minimumMaxAge: TimeInterval = 5 * 60
    public static let maximumMaxAge: TimeInterval = 24 * 60 * 60
    public static let defaultMaxAge: TimeInterval = 60 * 60
    /// At most one re-fetch for an unknown kid in this time.
    public static let unknownKeyRefetchInterval: TimeInterval = 60
    /// After a failed fetch, stale keys keep serving this long before the next try.
    public static let failedFetchRetryInterval: TimeInterval = 60

    private let fetch: @Sendable () async throws -> FetchedKeys
    private let load: @Sendable () async -> (body: [UInt8], fetchedAt: Date, maxAge: TimeInterval)?
    private let save: @Sendable (_ body: [UInt8], _ fetchedAt: Date, _ maxAge: TimeInterval) async -> Void
    private let onRefresh: @Sendable (_ result: String) -> Void
    private let now: @Sendable () -> Date

    private struct Keys {
        let set: JWKSet
        let fetchedAt: Date
        let maxAge: TimeInterval
    }

    private var current: Keys?
    private var loading: Task<Void, Never>?
    private var fetching: Task<Bool, Never>?
    private var lastUnknownKeyFetch: Date?
    private var lastFailedFetch: Date?

    /// Why the last fetch failed, while the keys it was to replace are still in use (for logs).
    public private(set) var lastFailure: String?

    /// - Parameters:
    ///   - fetch: one GET of the JWKS URL; throws when Apple cannot be reached.
    ///   - load: the persisted keys, read once before the first lookup.
    ///   - save: called after each successful fetch, to persist what was fetched.
    ///   - onRefresh: `"ok"` or `"error"` after each fetch (the refresh metric).
    ///   - now: the clock.
    public init(
        fetch: @escaping @Sendable () async throws -> FetchedKeys,
        load: @escaping @Sendable () async -> (body: [UInt8], fetchedAt: Date, maxAge: TimeInterval)? = { nil },
        save: @escaping @Sendable (_ body: [UInt8], _ fetchedAt: Date, _ maxAge: TimeInterval) async -> Void = { _, _, _ in },
        onRefresh: @escaping @Sendable (_ result: String) -> Void = { _ in },
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.fetch = fetch
        self.load = load
        self.save = save
        self.onRefresh = onRefresh
        self.now = now
    }

    /// The key named `id`: from fresh keys, after a fetch when they are stale or missing, after
    /// a re-fetch (at most one a minute) when no key has that id.
    public func key(id: String) async throws(SIWAError) -> JWK {
        await loadPersisted()
        var fetched = false
        if needsFetch() {
            _ = await fetchOnce()
            fetched = true
        }
        guard let keys = current else {
            throw .keysUnavailable("Apple's keys cannot be fetched and none are cached" + (lastFailure.map { ": \($0)" } ?? ""))
        }
        if let key = keys.set.key(id: id) { return key }
        if !fetched, mayRefetchForUnknownKey() {
            _ = await fetchOnce()
            if let key = current?.set.key(id: id) { return key }
        }
        throw .invalidToken("no key of Apple's JWKS has kid \(id)")
    }

    /// Fetches now (joining a fetch already running), e.g. at start-up when nothing is
    /// persisted. Throws `apple_keys_unavailable` when the fetch fails; the keys held before,
    /// if any, keep serving.
    public func refresh() async throws(SIWAError) {
        await loadPersisted()
        guard await fetchOnce() else {
            throw .keysUnavailable("fetching Apple's keys failed" + (lastFailure.map { ": \($0)" } ?? ""))
        }
    }

    /// The kids of the keys in use.
    public var keyIDs: [String] { current.map { AppleKeySet.tokenKeys(of: $0.set).compactMap(\.keyID) } ?? [] }

    /// `max-age` from `cacheControl` clamped to 5 minutes…24 hours; 1 hour without one.
    public static func lifetime(cacheControl: String?) -> TimeInterval {
        clamp(CacheControl.maxAge(cacheControl) ?? defaultMaxAge)
    }

    static func clamp(_ maxAge: TimeInterval) -> TimeInterval {
        guard !maxAge.isNaN else { return defaultMaxAge }
        return min(max(maxAge, minimumMaxAge), maximumMaxAge)
    }

    // MARK: Policy

    /// No keys, or keys past their lifetime (or fetched "in the future": the clock went back)
    /// unless a fetch failed less than a minute ago.
    private func needsFetch() -> Bool {
        guard let keys = current else { return true }
        let time = now()
        let fresh = keys.fetchedAt <= time.addingTimeInterval(Self.unknownKeyRefetchInterval)
            && time < keys.fetchedAt.addingTimeInterval(keys.maxAge)
        if fresh { return false }
        if let failed = lastFailedFetch, time.timeIntervalSince(failed) < Self.failedFetchRetryInterval, time >= failed {
            return false
        }
        return true
    }

    /// Whether an unknown kid may re-fetch now: when a fetch is already running (joining it
    /// costs nothing), or when the last such re-fetch was a minute ago or more. Records the time.
    private func mayRefetchForUnknownKey() -> Bool {
        if fetching != nil { return true }
        let time = now()
        if let last = lastUnknownKeyFetch, time >= last, time.timeIntervalSince(last) < Self.unknownKeyRefetchInterval {
            return false
        }
        lastUnknownKeyFetch = time
        return true
    }

    // MARK: Fetching

    /// The persisted keys, read once; callers arriving meanwhile wait for the same read.
    private func loadPersisted() async {
        if let loading {
            await loading.value
            return
        }
        let task = Task { await self.installPersisted() }
        loading = task
        await task.value
    }

    private func installPersisted() async {
        guard let stored = await load(), current == nil,
              let set = try? AppleKeySet.parse(stored.body), !AppleKeySet.tokenKeys(of: set).isEmpty
        else { return }
        current = Keys(set: set, fetchedAt: stored.fetchedAt, maxAge: Self.clamp(stored.maxAge))
    }

    /// Runs one fetch, or joins the one running. True when it brought keys.
    private func fetchOnce() async -> Bool {
        if let fetching { return await fetching.value }
        let task = Task { await self.performFetch() }
        fetching = task
        return await task.value
    }

    private func performFetch() async -> Bool {
        defer { fetching = nil }
        let fetched: FetchedKeys
        do {
            fetched = try await fetch()
        } catch {
            return failed("\(error)")
        }
        let set: JWKSet
        do {
            set = try AppleKeySet.parse(fetched.body)
        } catch {
            return failed("the fetched JWKS is refused: \(error.message)")
        }
        guard !AppleKeySet.tokenKeys(of: set).isEmpty else {
            return failed("the fetched JWKS has no RSA signing key")
        }
        let fetchedAt = now()
        let maxAge = Self.lifetime(cacheControl: fetched.cacheControl)
        current = Keys(set: set, fetchedAt: fetchedAt, maxAge: maxAge)
        lastFailedFetch = nil
        lastFailure = nil
        onRefresh("ok")
        await save(fetched.body, fetchedAt, maxAge)
        return true
    }

    private func failed(_ reason: String) -> Bool {
        lastFailedFetch = now()
        lastFailure = reason
        onRefresh("error")
        return false
    }
}
