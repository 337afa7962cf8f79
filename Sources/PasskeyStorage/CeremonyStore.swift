public import Foundation

/// The pending ceremonies of WebAuthn and how a verified one finishes: the registration or the 
/// sign-in written with the ceremony spent, in one transaction.
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol CeremonyStore: Sendable {
    // MARK: Ceremonies

    func insertCeremony(_ ceremony: CeremonyRecord) async throws

    /// The pending ceremony with this challenge and kind, if present and not expired at `now`.
    /// A read: nothing is spent.
    func ceremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord?

    /// What an authentication finalize reads before it verifies, in one call (on PostgreSQL one
    /// statement): the credential with `credentialID`, whether its account is disabled, and the
    /// pending authentication ceremony with `challenge` (unexpired at `now`). A read: nothing is
    /// spent. Each part is what `credential(id:)`, `user(handle:)` and `ceremony(challenge:)`
    /// would answer.
    func authenticationContext(credentialID: [UInt8], challenge: [UInt8], now: Date) async throws -> AuthenticationContext

    /// Spends the ceremony of a refused response and, for a counter regression, marks the
    /// credential possibly cloned, in one write. Returns whether the ceremony was still there.
    /// `event` (a refused sign-in of a known account) is stored with the spending.
    @discardableResult
    func spendCeremony(challenge: [UInt8], kind: CeremonyKind, markCloned credentialID: [UInt8]?, event: AuditEvent?) async throws -> Bool

    /// Finishes a verified registration in one atomic write: spends the ceremony, creates the
    /// user (when new), the credential and the session. On a conflict the ceremony is spent and
    /// nothing else is stored.
    /// `event` is stored when the registration is.
    /// With `invitation`, the invitation with that token hash is spent in the same write (gone or
    /// expired: `.invitationGone`, nothing but the ceremony spent); with `endingOtherSessions`
    /// (a recovery or a reset link: the account is being taken back), every other session of
    /// the account ends in it too, and every grant of the account is revoked, offline ones
    /// included, as `revokeAccess` does.
    func completeRegistration(
        challenge: [UInt8], now: Date, credential: CredentialRecord, newUser: UserRecord?, session: SessionRecord,
        invitation: [UInt8]?, endingOtherSessions: Bool, event: AuditEvent?
    ) async throws -> RegistrationOutcome

    /// Finishes a verified assertion in one atomic write: spends the ceremony, compares and sets
    /// the sign counter (WebAuthn §7.2 step 25), stores backup state, last use and
    /// uvInitialized (which only rises), and creates the session.
    /// `signedIn` is stored with a sign-in, `regression` with a counter regression.
    /// With `renewing` (a step-up), no session is opened: the open session of the same account
    /// with `session.tokenHash` gets `session.verifiedAt` and `userVerified` instead, and
    /// `session.credentialID` when that is not nil (the passkey that now stands for the
    /// session's class; an ended one stays ended).
    func completeAuthentication(
        challenge: [UInt8], now: Date, credentialID: [UInt8], signCount: UInt32, backupState: Bool, userVerified: Bool,
        session: SessionRecord, renewing: Bool, signedIn: AuditEvent?, regression: AuditEvent?
    ) async throws -> AuthenticationOutcome
}

/// The calls without an audit event, for callers that have none to store.
extension CeremonyStore {
    @discardableResult
    public func spendCeremony(challenge: [UInt8], kind: CeremonyKind, markCloned credentialID: [UInt8]? = nil) async throws -> Bool {
        try await spendCeremony(challenge: challenge, kind: kind, markCloned: credentialID, event: nil)
    }

    public func completeRegistration(
        challenge: [UInt8], now: Date, credential: CredentialRecord, newUser: UserRecord?, session: SessionRecord
    ) async throws -> RegistrationOutcome {
        try await completeRegistration(
            challenge: challenge, now: now, credential: credential, newUser: newUser, session: session, invitation: nil,
            endingOtherSessions: false, event: nil)
    }

    public func completeAuthentication(
        challenge: [UInt8], now: Date, credentialID: [UInt8], signCount: UInt32, backupState: Bool, userVerified: Bool,
        session: SessionRecord
    ) async throws -> AuthenticationOutcome {
        try await completeAuthentication(
            challenge: challenge, now: now, credentialID: credentialID, signCount: signCount, backupState: backupState,
            userVerified: userVerified, session: session, renewing: false, signedIn: nil, regression: nil)
    }
}
