public import Foundation

/// Recovery codes and the recoveries that wait (docs/contracts/accounts.md, "Account recovery").
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol RecoveryStore: Sendable {
    // MARK: Recovery codes (docs/contracts/accounts.md, "Account recovery")

    /// Replaces every recovery code of the account by these keyed hashes, with `event`.
    func replaceRecoveryCodes(userHandle: [UInt8], codeHashes: [[UInt8]], at: Date, event: AuditEvent?) async throws
    /// How many unspent recovery codes the account has.
    func recoveryCodeCount(userHandle: [UInt8]) async throws -> Int
    /// Spends the code with this keyed hash and opens `session` (a recovery session), with
    /// `event`, in one write; false, and nothing written, when the account has no such code.
    func redeemRecoveryCode(userHandle: [UInt8], codeHash: [UInt8], session: SessionRecord, event: AuditEvent?) async throws -> Bool

    /// `--recovery-delay`: spends the code with this keyed hash and keeps `request` (waiting),
    /// with `event`, in one write; false, and nothing written, when the account has no such code.
    func startRecovery(_ request: RecoveryRequestRecord, codeHash: [UInt8], event: AuditEvent?) async throws -> Bool
    /// The recovery request whose token has this hash, in whatever state.
    func recoveryRequest(idHash: [UInt8]) async throws -> RecoveryRequestRecord?
    /// The account's waiting recovery requests, oldest first.
    func waitingRecoveries(userHandle: [UInt8]) async throws -> [RecoveryRequestRecord]
    /// Cancels the account's waiting request `publicID`, with `event`; false when there is none.
    func cancelRecovery(publicID: String, userHandle: [UInt8], event: AuditEvent?) async throws -> Bool
    /// Claims a waiting request that is ready at `now` and opens `session` (a recovery session)
    /// with `event`, in one write; false, and nothing written, when it is not (anymore).
    func claimRecovery(idHash: [UInt8], now: Date, session: SessionRecord, event: AuditEvent?) async throws -> Bool
}
