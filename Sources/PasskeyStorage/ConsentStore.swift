public import Foundation

/// What users allowed third-party clients (docs/contracts/identity.md, "Authorization endpoint":
/// a self-registered client, or one of a metadata document, asks the user once per client and
/// scope set). A slice of the store's contract (`PasskeyStore`): both engines keep it, in the
/// same transactions, durable when a call returns.
public protocol ConsentStore: Sendable {
    /// The consent the user gave the client; nil when none.
    func consent(userHandle: [UInt8], clientID: String) async throws -> ConsentRecord?
    /// Every consent the user gave, oldest first.
    func consents(userHandle: [UInt8]) async throws -> [ConsentRecord]
    /// Keeps `consent` (replacing the user's earlier one for that client), with `event`; false
    /// when the client or the account is gone.
    func saveConsent(_ consent: ConsentRecord, event: AuditEvent?) async throws -> Bool
    /// Withdraws the user's consent to the client, with `event`; false when there was none.
    func deleteConsent(userHandle: [UInt8], clientID: String, event: AuditEvent?) async throws -> Bool
}

/// A user's consent to one client: the scopes allowed, and since when.
public struct ConsentRecord: Sendable, Equatable {
    public var userHandle: [UInt8]
    public var clientID: String
    public var scopes: [String]
    public var grantedAt: Date

    public init(userHandle: [UInt8], clientID: String, scopes: [String], grantedAt: Date) {
        self.userHandle = userHandle
        self.clientID = clientID
        self.scopes = scopes
        self.grantedAt = grantedAt
    }
}
