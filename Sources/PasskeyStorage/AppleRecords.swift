public import Foundation

/// An Apple ID linked to an account: the account signs in with Sign in with Apple through it.
/// Keyed by (`issuer`, `subject`), never by email; an account has at most one.
public struct AppleLinkRecord: Sendable, Equatable {
    public var issuer: String
    public var subject: String
    public var userHandle: [UInt8]
    public var email: String?
    public var emailVerified: Bool
    public var isPrivateEmail: Bool
    /// False after Apple's `email-disabled` notification (the relay stopped forwarding).
    public var emailEnabled: Bool
    /// From the code exchange with the developer's key; used to revoke at Apple on unlink.
    public var refreshToken: String?
    /// Stored with millisecond precision.
    public var createdAt: Date

    public init(
        issuer: String, subject: String, userHandle: [UInt8], email: String?, emailVerified: Bool, isPrivateEmail: Bool,
        emailEnabled: Bool = true, refreshToken: String? = nil, createdAt: Date
    ) {
        self.issuer = issuer
        self.subject = subject
        self.userHandle = userHandle
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.emailEnabled = emailEnabled
        self.refreshToken = refreshToken
        self.createdAt = createdAt
    }
}

/// An identity token once used: its SHA-256 and when it expires (it is forgotten after that,
/// when no verifier would accept it anyway).
public struct SpentToken: Sendable, Equatable {
    public var hash: [UInt8]
    public var expiresAt: Date

    public init(hash: [UInt8], expiresAt: Date) {
        self.hash = hash
        self.expiresAt = expiresAt
    }
}

/// How `completeAppleSignIn` ended.
public enum AppleSignInOutcome: Sendable, Equatable {
    /// The session is open.
    case signedIn(userName: String)
    /// This identity token was used before: nothing stored.
    case tokenSpent
    /// The nonce was not issued, already spent or expired: nothing stored.
    case nonceGone
    /// The new account's name was taken meanwhile: nothing stored, the nonce not spent.
    case userExists
    /// This Apple ID was linked by a concurrent request meanwhile: nothing stored, the nonce not
    /// spent (sign in to the linked account instead).
    case appleIDLinked
    /// The account to link already has another Apple ID: nothing stored, the nonce not spent.
    case accountLinked
}

/// How `unlinkApple` ended.
public enum AppleUnlinkOutcome: Sendable, Equatable {
    /// The link is gone with the sessions it opened; the removed link (with its refresh token).
    case unlinked(AppleLinkRecord)
    case notLinked
    /// The account has no passkey: without the Apple ID nothing could sign in. Nothing changed.
    case lastSignInMethod
}

/// What an Apple server-to-server notification changes.
public enum AppleLinkChange: Sendable, Equatable {
    /// `consent-revoked`, `account-delete`: the link goes, with the sessions it opened.
    case unlink
    /// `email-enabled` (true), `email-disabled` (false).
    case emailForwarding(Bool)
    /// An event type with nothing to change: only the `jti` is recorded.
    case none
}

/// A document fetched from elsewhere and kept for a cold start (Apple's JWKS).
public struct CachedDocument: Sendable, Equatable {
    public var name: String
    public var body: [UInt8]
    /// Stored with millisecond precision.
    public var fetchedAt: Date
    /// Seconds the document stays fresh after `fetchedAt`.
    public var maxAge: Int

    public init(name: String, body: [UInt8], fetchedAt: Date, maxAge: Int) {
        self.name = name
        self.body = body
        self.fetchedAt = fetchedAt
        self.maxAge = maxAge
    }
}
