public import Foundation
public import PasskeyCore
public import PasskeyStorage
internal import PasskeyCrypto
internal import PasskeyJSON
internal import Synchronization
public import Logging

/// The sessions: opened by every way of signing in, found by their token, seen, stepped up and
/// ended. Every use case that opens, checks or ends a session is given this, not the passkey
/// ceremonies.
public final class Sessions: Sendable {
    let context: UseCaseContext
    let store: any SessionStore & AccountStore & OpenIDStore
    /// Told of every session that ends by the account's own hand.
    let sessionEnds = Feed<EndedSessions>(skipping: { $0.tokenHashes.isEmpty })
    /// Sessions whose `last_seen_at` is being written now (at most one write each at a time).
    let sessionsBeingTouched = Mutex<Set<[UInt8]>>([])

    public init(context: UseCaseContext, store: any SessionStore & AccountStore & OpenIDStore) {
        self.context = context
        self.store = store
    }

    var now: @Sendable () -> Date { context.now }
    var configuration: ServerConfiguration { context.configuration }
    var logger: Logger { context.logger }

    /// `observer` hears of sessions that end (sign-out, everywhere, with their passkey).
    public func onSessionsEnded(_ observer: @escaping @Sendable (EndedSessions) -> Void) {
        sessionEnds.add(observer)
    }

    /// Whether an operator disabled the account: it signs in by no method (docs/contracts/accounts.md).
    func isDisabled(_ userHandle: [UInt8]) async throws -> Bool {
        try await store.user(handle: userHandle)?.disabled ?? false
    }

    // MARK: Sessions

    /// A new session: 32 random bytes for the client; only their SHA-256 is stored.
    func newSession(
        userHandle: [UInt8], credentialID: [UInt8]?, via: String? = nil, userVerified: Bool? = nil
    ) -> (token: String, record: SessionRecord) {
        let token = SecureRandom.bytes(32)
        let created = now()
        let client = RequestClient.current
        let record = SessionRecord(
            tokenHash: Digest.sha256.hash(token), userHandle: userHandle, createdAt: created,
            expiresAt: created.addingTimeInterval(configuration.sessionTTL), credentialID: credentialID, via: via,
            userVerified: userVerified, ip: client?.address, userAgent: client?.userAgent, lastSeenAt: created)
        return (Base64URL.encode(token), record)
    }

    /// The signed-in user for a session token, or nil when the token is unknown or expired.
    public func signedInUser(token: String?) async throws -> SignedInUser? {
        guard let token, let bytes = Base64URL.decodeStrict(token), bytes.count == 32 else { return nil }
        return try await signedInUser(tokenHash: Digest.sha256.hash(bytes))
    }

    /// The live session with this token hash and its account, unless disabled (the session
    /// token's and the forward token's lookup).
    func signedInUser(tokenHash hash: [UInt8]) async throws -> SignedInUser? {
        let at = now()
        guard let (session, user) = try await store.signedIn(tokenHash: hash, now: at), !user.disabled else { return nil }
        noteSeen(session, at: at)
        return SignedInUser(user: user, tokenHash: hash, session: session)
    }

    /// `last_seen_at` to the minute without a write per request (docs/contracts/accounts.md): a session whose
    /// stored time is a minute old or more is written once, in the background, whatever number
    /// of its requests arrive meanwhile.
    func noteSeen(_ session: SessionRecord, at: Date) {
        guard at.timeIntervalSince(session.lastSeenAt ?? session.createdAt) >= 60,
              sessionsBeingTouched.withLock({ $0.insert(session.tokenHash).inserted })
        else { return }
        Task {
            defer { _ = sessionsBeingTouched.withLock { $0.remove(session.tokenHash) } }
            do { try await store.touchSession(tokenHash: session.tokenHash, at: at) } catch {
                logger.warning("could not note a session's last use", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Ends this session, or with `everywhere` every session of the account.
    public func logout(_ session: SignedInUser?, everywhere: Bool = false) async throws {
        guard let session else { return }
        if everywhere {
            _ = try await AccountSessionEnding(context: context, sessions: self, store: store).ending(userHandle: session.user.handle) {
                try await store.deleteSessions(
                    userHandle: session.user.handle, event: context.event(session.user.handle, "session_ended", at: now(), ["everywhere": "true"]))
            }
        } else {
            try await store.deleteSession(
                tokenHash: session.tokenHash, event: context.event(session.user.handle, "session_ended", at: now(), ["everywhere": "false"]))
            sessionEnds.publish(EndedSessions(userHandle: session.user.handle, tokenHashes: [session.tokenHash]))
        }
    }

    // MARK: Step-up (docs/contracts/accounts.md, "Recent authentication for sensitive actions")

    /// When the session's user last passed a user-verified passkey ceremony in it: a step-up's
    /// time, else the opening ceremony's when it was a passkey with user verification. A session
    /// opened another way (Apple, push, Messages for Business) counts from its opening only for
    /// an account without passkeys; with one, it must step up with it.
    func verifiedAt(_ session: SignedInUser) async throws -> Date? {
        guard let record = session.session else { return nil }
        if let verifiedAt = record.verifiedAt { return verifiedAt }
        if record.credentialID != nil { return record.userVerified == true ? record.createdAt : nil }
        return try await store.credentials(userHandle: session.user.handle).isEmpty ? record.createdAt : nil
    }

    /// The sensitive actions' check: a user-verified passkey ceremony in this session within
    /// `--reauth-window`, else 401 `reauthentication_required`.
    public func requireRecentAuthentication(_ session: SignedInUser) async throws {
        // A recovery session may do one thing, register a passkey, and was opened for it.
        if session.isRecovery { return }
        guard let at = try await verifiedAt(session), now().timeIntervalSince(at) <= configuration.reauthWindow else {
            throw APIError.reauthenticationRequired
        }
    }
}
