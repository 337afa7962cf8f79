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
    /// statement): the credential with `credentialID` and whether its account is disabled,
    /// each what `credential(id:)` and `user(handle:)` would answer. A sign-in's ceremony is not
    /// stored: it rides sealed in its challenge, and only its spending is (`spent_ids`).
    func authenticationContext(credentialID: [UInt8]) async throws -> AuthenticationContext

    /// Spends the stored ceremony of a refused registration response. Returns whether the
    /// ceremony was still there.
    @discardableResult
    func spendCeremony(challenge: [UInt8], kind: CeremonyKind) async throws -> Bool

    /// Spends the sealed challenge of a refused sign-in response: its key (`keyHash`) joins the
    /// spent ids until `expiresAt`; for a counter regression the credential is marked possibly
    /// cloned, and `event` (a refused sign-in of a known account) is stored, in the same write.
    /// A live spending of it already there (a replayed response) is false, and nothing is
    /// written.
    @discardableResult
    func spendChallenge(keyHash: [UInt8], expiresAt: Date, now: Date, markCloned credentialID: [UInt8]?, event: AuditEvent?) async throws -> Bool

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

    /// Finishes a verified assertion in one atomic write: spends the challenge (`keyHash` joins
    /// the spent ids until `expiresAt`; a live spending of it already there is `.ceremonyGone`,
    /// and nothing is written), compares and sets the sign counter (WebAuthn §7.2 step 25),
    /// stores backup state, last use and uvInitialized (which only rises), and creates the
    /// session.
    /// `signedIn` is stored with a sign-in, `regression` with a counter regression.
    /// With `renewing` (a step-up), no session is opened: the open session of the same account
    /// with `session.tokenHash` gets `session.verifiedAt` and `userVerified` instead, and
    /// `session.credentialID` when that is not nil (the passkey that now stands for the
    /// session's class; an ended one stays ended).
    func completeAuthentication(
        spending keyHash: [UInt8], until expiresAt: Date, now: Date, credentialID: [UInt8], signCount: UInt32,
        backupState: Bool, userVerified: Bool, session: SessionRecord, renewing: Bool, signedIn: AuditEvent?, regression: AuditEvent?
    ) async throws -> AuthenticationOutcome
}

/// The calls without an audit event, for callers that have none to store.
extension CeremonyStore {
    public func completeRegistration(
        challenge: [UInt8], now: Date, credential: CredentialRecord, newUser: UserRecord?, session: SessionRecord
    ) async throws -> RegistrationOutcome {
        try await completeRegistration(
            challenge: challenge, now: now, credential: credential, newUser: newUser, session: session, invitation: nil,
            endingOtherSessions: false, event: nil)
    }

    public func completeAuthentication(
        spending keyHash: [UInt8], until expiresAt: Date, now: Date, credentialID: [UInt8], signCount: UInt32,
        backupState: Bool, userVerified: Bool, session: SessionRecord
    ) async throws -> AuthenticationOutcome {
        try await completeAuthentication(
            spending: keyHash, until: expiresAt, now: now, credentialID: credentialID, signCount: signCount, backupState: backupState,
            userVerified: userVerified, session: session, renewing: false, signedIn: nil, regression: nil)
    }
}
