public import Foundation

/// The OpenID provider: its signing keys, its clients, the authorizations and grants it issued, and 
/// the device flow's authorizations (docs/contracts/identity.md).
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol OpenIDStore: Sendable {
    // MARK: OpenID provider signing keys

    /// Every signing key, by algorithm and then generation.
    func signingKeys() async throws -> [SigningKeyRecord]
    /// Stores `key` unless its algorithm already has a key of that generation or a later one
    /// (another instance created or rotated first): then nothing is written and false returned.
    func insertSigningKey(_ key: SigningKeyRecord) async throws -> Bool

    // MARK: OpenID provider clients

    /// Stores a new client; false (nothing written) when its id is taken.
    func insertClient(_ client: ClientRecord, event: AuditEvent?) async throws -> Bool
    func client(id: String) async throws -> ClientRecord?
    /// Every client, by id.
    func clients() async throws -> [ClientRecord]
    /// Replaces a confidential client's secret hash; false when there is no such confidential client.
    func replaceClientSecret(id: String, secretHash: [UInt8]) async throws -> Bool
    /// Replaces everything of the client with `client.id` but its id and creation time, with
    /// `event`; false (nothing written) when there is no such client.
    func replaceClient(_ client: ClientRecord, event: AuditEvent?) async throws -> Bool
    /// Removes a client; false when there was none.
    func deleteClient(id: String, event: AuditEvent?) async throws -> Bool

    // MARK: OpenID provider authorizations and grants

    /// Keeps an authorization request while its user signs in.
    func insertHeldAuthorization(_ held: HeldAuthorizationRecord) async throws
    /// The held request with this handle hash, unless it expired.
    func heldAuthorization(handleHash: [UInt8], now: Date) async throws -> HeldAuthorizationRecord?
    /// Spends a held request's handle; false when it was spent already (by this or another
    /// instance) or never existed.
    func deleteHeldAuthorization(handleHash: [UInt8]) async throws -> Bool
    /// Stores a grant with its unspent code, with `event` (`oauth_code_issued`).
    func insertGrant(_ grant: GrantRecord, event: AuditEvent?) async throws
    func grant(id: String) async throws -> GrantRecord?
    func grant(codeHash: [UInt8]) async throws -> GrantRecord?
    /// The grant a refresh token belongs to, and whether the token is the one in force.
    func grant(refreshHash: [UInt8]) async throws -> RefreshTokenLookup?
    /// Spends a grant's code: only when it is unspent, unexpired at `now` and the grant not
    /// revoked; then sets the refresh token (if any), the DPoP key it is bound to (if any) and
    /// the grant's end, with `event`. False (nothing written) when another request spent it first.
    func spendCode(
        grantID: String, now: Date, refreshHash: [UInt8]?, refreshExpiresAt: Date?, expiresAt: Date, dpopJKT: String?, event: AuditEvent?
    ) async throws -> Bool
    /// Replaces the refresh token in force, `old`, by `new` and retires `old` (so that its reuse
    /// is recognised), with `event`; false (nothing written) when `old` is no longer in force or
    /// the grant is revoked.
    func rotateRefreshToken(
        grantID: String, old: [UInt8], new: [UInt8], refreshExpiresAt: Date, expiresAt: Date, event: AuditEvent?
    ) async throws -> Bool
    /// Every grant of an account, newest first (revoked ones included, until swept).
    func grants(userHandle: [UInt8]) async throws -> [GrantRecord]
    /// Revokes a grant (its code, refresh tokens and access tokens), with `event`; false
    /// (nothing written) when it was revoked already or does not exist.
    func revokeGrant(id: String, event: AuditEvent?) async throws -> Bool

    // MARK: Device authorizations (RFC 8628)

    /// Stores a device authorization; false (nothing written) when its user code's hash is
    /// already held by another row.
    func insertDeviceAuthorization(_ authorization: DeviceAuthorizationRecord) async throws -> Bool
    /// The unexpired device authorization with this user code hash.
    func deviceAuthorization(userCodeHash: [UInt8], now: Date) async throws -> DeviceAuthorizationRecord?
    /// A device client's poll, in one transaction: notes the poll at `now` and, when the one
    /// before came less than the interval ago, raises the interval by `slowDownStep` seconds
    /// (`tooFast`). Answers the record after the poll, expired or not; nil when there is none.
    func pollDeviceAuthorization(deviceCodeHash: [UInt8], now: Date, slowDownStep: Int) async throws -> DevicePoll?
    /// Decides a pending, unexpired device authorization: approved with `grant` (inserted in the
    /// same transaction), or denied when `grant` is nil; with `event`. False (nothing written)
    /// when it was decided already, expired, or never existed.
    func decideDeviceAuthorization(userCodeHash: [UInt8], grant: GrantRecord?, now: Date, event: AuditEvent?) async throws -> Bool
}

/// The calls without an audit event, for callers that have none to store.
extension OpenIDStore {
    /// A client kept, or removed, without an event (the command line's and the tests' writes).
    public func insertClient(_ client: ClientRecord) async throws -> Bool { try await insertClient(client, event: nil) }

    public func deleteClient(id: String) async throws -> Bool { try await deleteClient(id: id, event: nil) }
}
