public import Foundation

/// One account. `nameKey` is the case-folded form of `name`, unique across users; the caller
/// computes it.
public struct UserRecord: Sendable, Equatable {
    /// Random 32 bytes (the WebAuthn user handle); primary key.
    public var handle: [UInt8]
    /// The name as the user typed it (trimmed).
    public var name: String
    /// Case-folded key of `name`; UNIQUE.
    public var nameKey: String
    public var displayName: String
    /// Stored with millisecond precision.
    public var createdAt: Date

    /// Disabled by an operator (accounts.md, "Administration"): it cannot sign in by any method.
    /// A new account is never disabled; the flag is set by `setUserDisabled` alone.
    public var disabled: Bool

    public init(handle: [UInt8], name: String, nameKey: String, displayName: String, createdAt: Date, disabled: Bool = false) {
        self.disabled = disabled
        self.handle = handle
        self.name = name
        self.nameKey = nameKey
        self.displayName = displayName
        self.createdAt = createdAt
    }
}

/// What an account's deletion leaves the caller to do: tell the password managers which
/// passkeys are gone, revoke the Apple ID's token at Apple, and send back-channel logouts for
/// the grants that were standing.
public struct DeletedAccount: Sendable, Equatable {
    public var credentialIDs: [[UInt8]]
    public var appleRefreshToken: String?
    public var grants: [GrantRecord]

    public init(credentialIDs: [[UInt8]], appleRefreshToken: String?, grants: [GrantRecord]) {
        self.credentialIDs = credentialIDs
        self.appleRefreshToken = appleRefreshToken
        self.grants = grants
    }
}
