public import Foundation

/// An admin token (accounts.md, "Administration"): a bearer credential for `/admin/api/` made by
/// `passkey-server admin-tokens create --name NAME`. Only the SHA-256 of the token is stored;
/// the name is unique and is how an operator lists and revokes it.
public struct AdminTokenRecord: Sendable, Equatable {
    public var name: String
    public var tokenHash: [UInt8]
    public var createdAt: Date

    public init(name: String, tokenHash: [UInt8], createdAt: Date) {
        self.name = name
        self.tokenHash = tokenHash
        self.createdAt = createdAt
    }
}

extension SessionRecord {
    /// The `via` of a recovery session (accounts.md, "Account recovery"): it may only register a
    /// passkey, and becomes a normal session when it has.
    public static let recoveryVia = "recovery"

    /// A recovery session: opened by a recovery code, it can only register a new passkey.
    public var isRecovery: Bool { via == Self.recoveryVia }
}
