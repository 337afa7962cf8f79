public import Foundation

/// Sign in with Apple: the linked Apple IDs, the spent tokens and nonces (docs/contracts/siwa.md).
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol AppleStore: Sendable {
    // MARK: Sign in with Apple

    /// Stores a nonce handed out by `GET /siwa/initialize`, spendable once until `expiresAt`.
    func insertAppleNonce(_ nonce: [UInt8], expiresAt: Date) async throws

    func appleLink(issuer: String, subject: String) async throws -> AppleLinkRecord?
    func appleLink(userHandle: [UInt8]) async throws -> AppleLinkRecord?

    /// Finishes a verified identity token in one atomic write: spends `token` (remembered until
    /// it expires, so the same identity token never signs in twice, with or without a nonce, on
    /// any instance), spends `nonce` when given, creates `newUser` when given, inserts `newLink`
    /// when given, opens `session` when given (a link confirmed by a signed-in user opens none)
    /// and stores `events`. On any outcome but `.signedIn` (with the name of the account of the
    /// session, else of the link) nothing is stored.
    func completeAppleSignIn(
        token: SpentToken, nonce: [UInt8]?, now: Date, newUser: UserRecord?, newLink: AppleLinkRecord?, session: SessionRecord?,
        events: [AuditEvent]
    ) async throws -> AppleSignInOutcome

    /// Keeps the refresh token of the code exchange with the link.
    func setAppleRefreshToken(issuer: String, subject: String, refreshToken: String) async throws

    /// Removes the account's Apple ID and ends the sessions it opened, storing `event`; with
    /// `requireOtherMethod`, only when the account keeps a passkey.
    func unlinkApple(userHandle: [UInt8], requireOtherMethod: Bool, event: AuditEvent?) async throws -> AppleUnlinkOutcome

    /// Records Apple's notification `jti` and applies `change` to the link of (`issuer`,
    /// `subject`) owned by `userHandle`, with `event`, in one write. False when the `jti` was
    /// seen before: then nothing changes.
    func applyAppleNotification(
        jti: String, now: Date, issuer: String, subject: String, userHandle: [UInt8]?, change: AppleLinkChange, event: AuditEvent?
    ) async throws -> Bool
}
