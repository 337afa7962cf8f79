public import Foundation

/// An admin token (docs/contracts/accounts.md, "Administration"): a bearer credential for `/admin/api/` made by
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
    /// The `via` of a recovery session (docs/contracts/accounts.md, "Account recovery"): it may only register a
    /// passkey, and becomes a normal session when it has.
    public static let recoveryVia = "recovery"

    /// A recovery session: opened by a recovery code, it can only register a new passkey.
    public var isRecovery: Bool { via == Self.recoveryVia }
}

/// A recovery made to wait (`--recovery-delay`, docs/contracts/accounts.md "Account recovery"): a spent recovery
/// code that opens its recovery session only at `readyAt`, unless a signed-in session of the
/// account cancels it first. The person recovering holds a token whose SHA-256 is `idHash`; the
/// account's owner sees and cancels it by `publicID`.
public struct RecoveryRequestRecord: Sendable, Equatable {
    public enum State: String, Sendable {
        case waiting, cancelled, claimed
    }

    public var idHash: [UInt8]
    public var publicID: String
    public var userHandle: [UInt8]
    public var createdAt: Date
    public var readyAt: Date
    /// Who asked: the client address and `User-Agent`, shown to the owner.
    public var ip: String?
    public var userAgent: String?
    public var state: State

    public init(
        idHash: [UInt8], publicID: String, userHandle: [UInt8], createdAt: Date, readyAt: Date, ip: String?, userAgent: String?,
        state: State = .waiting
    ) {
        self.idHash = idHash
        self.publicID = publicID
        self.userHandle = userHandle
        self.createdAt = createdAt
        self.readyAt = readyAt
        self.ip = ip
        self.userAgent = userAgent
        self.state = state
    }
}
