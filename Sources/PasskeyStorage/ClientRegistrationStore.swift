public import Foundation

/// Clients that register themselves (docs/contracts/identity.md, "Machine and agent clients":
/// RFC 7591 and 7592): the initial access tokens an admin hands out, the registration that
/// spends one, and an admin's approval of an open registration. A slice of the store's contract
/// (`PasskeyStore`): both engines keep it, in the same transactions, durable when a call returns.
public protocol ClientRegistrationStore: Sendable {
    /// Keeps a new initial access token (only its hash), with `event`; drops the expired ones.
    func insertRegistrationToken(_ token: RegistrationTokenRecord, event: AuditEvent?) async throws
    /// Stores a self-registered client with `event`, spending the initial access token
    /// `spending` names in the same transaction; false, with nothing written, when that token
    /// is spent or expired at `now`, or the client id is taken.
    func registerClient(_ client: ClientRecord, spending tokenHash: [UInt8]?, now: Date, event: AuditEvent?) async throws -> Bool
    /// Ends a pending registration's wait, with `event`; false when no pending client has the id.
    func approveClient(id: String, event: AuditEvent?) async throws -> Bool
}

/// An initial access token (RFC 7591 §3): one registration, until it expires.
public struct RegistrationTokenRecord: Sendable, Equatable {
    /// SHA-256 of the token.
    public var tokenHash: [UInt8]
    /// The admin (or `command line`) that made it.
    public var createdBy: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(tokenHash: [UInt8], createdBy: String, createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
