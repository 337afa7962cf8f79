public import Foundation

/// Sessions, and the back-channel logouts that another process queued for a serving one.
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol SessionStore: Sendable {
    // MARK: Sessions

    /// The session with this token hash, or nil if absent or expired at `now`.
    func session(tokenHash: [UInt8], now: Date) async throws -> SessionRecord?
    /// The session with this token hash and its account, in one read; nil if the session is
    /// absent or expired at `now` (every signed-in request starts here).
    func signedIn(tokenHash: [UInt8], now: Date) async throws -> (session: SessionRecord, user: UserRecord)?

    /// Ends the session, storing `event` with it when there was one.
    /// Stores one audit event on its own (one that no other write carries).
    func insertEvent(_ event: AuditEvent) async throws
    /// The account's sessions that have not expired at `now`, newest first.
    func sessions(userHandle: [UInt8], now: Date) async throws -> [SessionRecord]
    func deleteSession(tokenHash: [UInt8], event: AuditEvent?) async throws
    /// Notes that the session was used at `at` (kept to the minute by the caller); need not be
    /// durable at once (a lost note only makes "last seen" older). Nothing for an unknown session.
    func touchSession(tokenHash: [UInt8], at: Date) async throws

    /// Ends every session of the user ("sign out everywhere"), storing `event`; returns how many
    /// there were.
    @discardableResult
    func deleteSessions(userHandle: [UInt8], event: AuditEvent?) async throws -> Int

    // MARK: Back-channel logouts of another process

    /// Keeps back-channel logout notices for a serving instance to send: what a process that
    /// sends none (the command line) ended.
    func queueLogoutNotices(_ notices: [LogoutNotice]) async throws
    /// Takes (removes and answers) at most `limit` queued notices, oldest first: each is taken
    /// by one instance only.
    func takeLogoutNotices(limit: Int) async throws -> [LogoutNotice]
}

/// The calls without an audit event, for callers that have none to store.
extension SessionStore {
    public func deleteSession(tokenHash: [UInt8]) async throws {
        try await deleteSession(tokenHash: tokenHash, event: nil)
    }

    @discardableResult
    public func deleteSessions(userHandle: [UInt8]) async throws -> Int {
        try await deleteSessions(userHandle: userHandle, event: nil)
    }
}
