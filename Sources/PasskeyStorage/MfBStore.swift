public import Foundation

/// Messages for Business: the requests sent through Apple's gateway and their answers 
/// (docs/contracts/mfb.md).
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol MfBStore: Sendable {
    // MARK: Messages for Business
    func insertMfBRequest(_ request: MfBRequestRecord) async throws
    func mfbRequest(id: String) async throws -> MfBRequestRecord?
    /// The request whose public point hashes to `pointHash` (any state).
    func mfbRequest(pointHash: [UInt8]) async throws -> MfBRequestRecord?
    /// The key audit's second half: binds `deviceUserHandle` to the request (pending and
    /// unexpired at `now`) the first time, and says whether it is the bound one. On false
    /// `mismatch` is stored; with no `requestID` (no request has the key) it is stored too.
    func auditMfBDevice(requestID: String?, deviceUserHandle: String, now: Date, mismatch: AuditEvent) async throws -> Bool
    /// Stores an authorization code (of a request pending and unexpired at `now`); false
    /// (nothing stored) when the request is not.
    func insertMfBGrant(_ grant: MfBGrantRecord, now: Date) async throws -> Bool
    /// The token endpoint: spends the code (unexpired at `now`, of `clientID` and
    /// `redirectURI`, its request pending and unexpired) and stores an access token with
    /// `accessTokenHash` until `accessTokenExpiresAt`, of the code's request, account, client and
    /// redirect URI, in one write. False (nothing changed) otherwise.
    func exchangeMfBCode(
        hash: [UInt8], clientID: String, redirectURI: String, now: Date, accessTokenHash: [UInt8], accessTokenExpiresAt: Date
    ) async throws -> Bool
    /// An authenticated reply, in one write: the request (pending, unexpired at `now`) and an
    /// unspent, unexpired grant of it with `grantHash`; spends the grant, marks the request
    /// authenticated by the grant's account, deletes the private key and stores `signedIn`
    /// (its user handle set to the account's).
    func completeMfBRequest(id: String, grantHash: [UInt8], now: Date, signedIn: AuditEvent) async throws -> MfBReplyOutcome
    /// A failed reply: records `errors` (JSON text) and `event`, and deletes the key, once.
    func failMfBRequest(id: String, errors: String, now: Date, event: AuditEvent?) async throws -> MfBReplyOutcome
    /// The message of a pending request went through Apple's gateway: its `id` header and the
    /// gateway's answer. With `failure` (JSON text of the errors) it did not: the request is
    /// `failed` with them, its key deleted, and `event` stored. One write either way; a request
    /// that is no longer pending is left as it is.
    func recordMfBSend(id: String, messageID: String, gatewayStatus: Int?, failure: String?, event: AuditEvent?) async throws
}
