public import Foundation

/// A signed-in session. Only the SHA-256 of the token is stored, never the token.
public struct SessionRecord: Sendable, Equatable {
    /// SHA-256 of the session token; primary key.
    public var tokenHash: [UInt8]
    /// The user's handle (foreign key, ON DELETE CASCADE).
    public var userHandle: [UInt8]
    /// Stored with millisecond precision.
    public var createdAt: Date
    /// Stored with millisecond precision; the session is expired at `expiresAt` and later.
    public var expiresAt: Date
    /// The passkey whose ceremony opened the session, or the one a step-up used when that gives
    /// the session a stronger class (`phrh` over `phr`, any passkey over none); deleting that
    /// passkey ends the session.
    public var credentialID: [UInt8]?
    /// The other way the session was opened: `apple` (Sign in with Apple; unlinking the Apple ID
    /// ends the session). Nil for a passkey.
    public var via: String?
    /// Whether the ceremony that opened the session verified the user (WebAuthn's UV flag, or
    /// push sign-in's number matching): the `mfa` of an ID token's `amr`. Nil for a session
    /// stored before this was kept, read as not verified.
    public var userVerified: Bool?
    /// The client address and `User-Agent` of the request that opened it (docs/contracts/accounts.md,
    /// "Sessions the user can see"); nil for a session stored before they were kept.
    public var ip: String?
    public var userAgent: String?
    /// When it was last used, kept to the minute (not written on every request); nil: never
    /// since it was opened.
    public var lastSeenAt: Date?
    /// When its user last proved presence with a passkey ceremony in it (the opening one, or a
    /// step-up's): what the step-up's window counts from; nil: when it was opened. Not the
    /// OpenID `auth_time` of the grants issued from the session (`GrantRecord.authTime`), which
    /// is when the session was opened.
    public var verifiedAt: Date?

    public init(
        tokenHash: [UInt8], userHandle: [UInt8], createdAt: Date, expiresAt: Date, credentialID: [UInt8]? = nil, via: String? = nil,
        userVerified: Bool? = nil, ip: String? = nil, userAgent: String? = nil, lastSeenAt: Date? = nil, verifiedAt: Date? = nil
    ) {
        self.ip = ip
        self.userAgent = userAgent
        self.lastSeenAt = lastSeenAt
        self.verifiedAt = verifiedAt
        self.tokenHash = tokenHash
        self.userHandle = userHandle
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.credentialID = credentialID
        self.via = via
        self.userVerified = userVerified
    }
}
