public import Foundation

/// The admin API's tokens (docs/contracts/accounts.md, "Administration").
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol AdminStore: Sendable {
    // MARK: Admin tokens (docs/contracts/accounts.md, "Administration")

    /// Keeps a new admin token, with `event`; false (nothing written) when the name is taken.
    func insertAdminToken(_ token: AdminTokenRecord, event: AuditEvent?) async throws -> Bool
    /// Every admin token, by name.
    func adminTokens() async throws -> [AdminTokenRecord]
    func adminToken(tokenHash: [UInt8]) async throws -> AdminTokenRecord?
    /// Revokes the admin token with this name, with `event`; false when there is none.
    func deleteAdminToken(name: String, event: AuditEvent?) async throws -> Bool
}
