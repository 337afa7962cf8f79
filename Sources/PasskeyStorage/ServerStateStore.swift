public import Foundation

/// What the server keeps for itself: its secrets, the sweeps, the limits counted across instances 
/// and the documents it fetched (Apple's keys, the FIDO metadata).
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol ServerStateStore: Sendable {
    // MARK: Secrets and maintenance

    /// The server secret stored under `name`: the first call (from any process) stores
    /// `candidate`, every later call returns what was stored.
    func secret(named name: String, candidate: [UInt8]) async throws -> [UInt8]

    /// Records that the metadata BLOB numbered `number` is loaded, unless a higher number was
    /// loaded before: then nothing changes and the higher number is returned (FIDO MDS3: `no`
    /// grows with each BLOB). Nil when `number` is accepted.
    func acceptMetadataNumber(_ number: Int) async throws -> Int?

    /// Deletes expired ceremonies (and Sign in with Apple nonces, push discoveries) and
    /// sessions; returns how many of each. Notification ids older than 30 days and push requests
    /// a day past their expiry go too, as do Messages for Business requests (whose private keys
    /// are deleted at expiry) and their codes and tokens. Several processes may sweep at once
    /// without colliding.
    func sweepExpired(now: Date) async throws -> (ceremonies: Int, sessions: Int)

    // MARK: Limits across instances

    /// Counts one attempt for each of `keys` in the window of `window` milliseconds that holds
    /// `now`, in one statement per key that also checks it, so every instance on the database
    /// shares the count: a key already at `limit` in this window is not counted further. Answers
    /// the end of the window (milliseconds) when any key was at its limit, nil when all were
    /// under it. With `counting` false nothing is counted: the same answer, for limits that
    /// count only failures (check first, count on a failure).
    func countAttempts(keys: [String], limit: Int, window: Int64, now: Date, counting: Bool) async throws -> Int64?

    /// Spends the one-time id whose SHA-256 is `keyHash` (a client assertion's `jti`, kept until
    /// `expiresAt`): true the first time, false while an earlier spend of it has not expired,
    /// on every instance that shares the database.
    func spendOnce(keyHash: [UInt8], expiresAt: Date, now: Date) async throws -> Bool

    // MARK: Cached documents
    func cachedDocument(named name: String) async throws -> CachedDocument?
    func saveCachedDocument(_ document: CachedDocument) async throws
}
