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

    /// Disabled by an operator (docs/contracts/accounts.md, "Administration"): it cannot sign in by any method.
    /// A new account is never disabled; the flag is set by `setUserDisabled` alone.
    public var disabled: Bool

    /// When the profile (the display name) last changed; nil: not since the account was made
    /// (or before the store kept it). Stored with millisecond precision.
    public var updatedAt: Date?

    public init(
        handle: [UInt8], name: String, nameKey: String, displayName: String, createdAt: Date, disabled: Bool = false, updatedAt: Date? = nil
    ) {
        self.disabled = disabled
        self.updatedAt = updatedAt
        self.handle = handle
        self.name = name
        self.nameKey = nameKey
        self.displayName = displayName
        self.createdAt = createdAt
    }
}

/// A new account with its passkeys, as `loadAccounts` writes it (filling a database at scale).
public struct NewAccount: Sendable, Equatable {
    public var user: UserRecord
    /// The account's passkeys; each one's `userHandle` is `user.handle`.
    public var credentials: [CredentialRecord]

    public init(user: UserRecord, credentials: [CredentialRecord]) {
        self.user = user
        self.credentials = credentials
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

/// An operator's invitation or reset link (docs/contracts/accounts.md, "Account recovery"): found by the
/// SHA-256 of its single-use token. For a new name it creates the account when used; with
/// `userHandle` it registers a passkey to that existing account (a reset).
public struct InvitationRecord: Sendable, Equatable {
    public var tokenHash: [UInt8]
    public var userName: String
    public var nameKey: String
    /// The account a reset link is for; nil for an invitation to a new account.
    public var userHandle: [UInt8]?
    /// Who made it ("command line", or an admin's name).
    public var createdBy: String
    public var createdAt: Date
    public var expiresAt: Date
    /// The groups the account joins when the link is used (`users invite --group`, the admin
    /// API's `POST users`), as (name, name key) pairs; added in the registration's write.
    public var groups: [InvitationGroup]
    /// The display name a new account gets when the registration does not give one (the admin
    /// API's `POST users`); nil: the name.
    public var displayName: String?

    /// The user name of the first admin's setup link: none, the registrant chooses it (no
    /// account name is empty).
    public static let chosenByRegistrant = ""

    /// The first admin's setup link: the registrant names the new account.
    public var namedByRegistrant: Bool { userHandle == nil && userName == Self.chosenByRegistrant }

    public init(
        tokenHash: [UInt8], userName: String, nameKey: String, userHandle: [UInt8]?, createdBy: String, createdAt: Date, expiresAt: Date,
        groups: [InvitationGroup] = [], displayName: String? = nil
    ) {
        self.groups = groups
        self.displayName = displayName
        self.tokenHash = tokenHash
        self.userName = userName
        self.nameKey = nameKey
        self.userHandle = userHandle
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A group an invitation's account joins: its name and the case-folded key the caller computed.
public struct InvitationGroup: Sendable, Equatable {
    public var name: String
    public var nameKey: String

    public init(name: String, nameKey: String) {
        self.name = name
        self.nameKey = nameKey
    }
}
