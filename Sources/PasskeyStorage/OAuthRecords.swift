public import Foundation

/// An authorization request the provider keeps while the user signs in on the page
/// (docs/contracts/identity.md, "Authorization endpoint"): found by the SHA-256 of its single-use handle.
public struct HeldAuthorizationRecord: Sendable, Equatable {
    public var handleHash: [UInt8]
    /// The client (foreign key, ON DELETE CASCADE: a removed client's requests go with it).
    public var clientID: String
    /// The request's parameters, form-encoded as received: checked again when it resumes, so a
    /// client changed meanwhile is judged by what it is now.
    public var parameters: String
    /// Stored with millisecond precision; a `prompt=login` request needs a session opened after it.
    public var createdAt: Date
    public var expiresAt: Date

    public init(handleHash: [UInt8], clientID: String, parameters: String, createdAt: Date, expiresAt: Date) {
        self.handleHash = handleHash
        self.clientID = clientID
        self.parameters = parameters
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What one authorization granted a client: born with its code, it then carries the refresh
/// token family (RFC 6749 §10.4, RFC 9700 §4.14) and is what every access token it issued names.
/// Revoking it ends the code, the refresh tokens and the access tokens at once; a code spent
/// twice or a retired refresh token presented again revokes it.
public struct GrantRecord: Sendable, Equatable {
    /// Random, opaque; the `jti` prefix of its access tokens.
    public var id: String
    public var clientID: String
    public var userHandle: [UInt8]
    /// The session it came from: a grant without `offline` dies with that session.
    public var sessionHash: [UInt8]
    /// Granted `offline_access`: the refresh tokens outlive the session.
    public var offline: Bool
    public var scopes: [String]
    public var nonce: String?
    /// The OpenID `auth_time` of its tokens: when the sign-in that opened the session happened
    /// (the session's start). A later step-up in the session moves `SessionRecord.verifiedAt`,
    /// not this.
    public var authTime: Date
    /// RFC 8176 values for the ceremony that opened the session.
    public var amr: [String]
    /// `phr`, `phrh`, or nil (not opened by a passkey).
    public var acr: String?
    /// The passkey that opened the session, for the `passkey` scope.
    public var credentialID: [UInt8]?
    public var codeHash: [UInt8]
    public var codeChallenge: String
    public var redirectURI: String
    public var codeExpiresAt: Date
    public var codeSpent: Bool
    /// SHA-256 of the refresh token in force; nil before the code is spent or when none is issued.
    public var refreshHash: [UInt8]?
    public var refreshExpiresAt: Date?
    public var revoked: Bool
    public var createdAt: Date
    /// When nothing it issued can still be used: the row may be swept after that.
    public var expiresAt: Date
    /// The RFC 7638 thumbprint of the DPoP key a public client's refresh tokens are bound to
    /// (RFC 9449 §5), set when its start is spent with a proof.
    public var dpopJKT: String?

    public init(
        id: String, clientID: String, userHandle: [UInt8], sessionHash: [UInt8], offline: Bool, scopes: [String], nonce: String?,
        authTime: Date, amr: [String], acr: String?, credentialID: [UInt8]?, codeHash: [UInt8], codeChallenge: String,
        redirectURI: String, codeExpiresAt: Date, codeSpent: Bool = false, refreshHash: [UInt8]? = nil, refreshExpiresAt: Date? = nil,
        revoked: Bool = false, createdAt: Date, expiresAt: Date, dpopJKT: String? = nil
    ) {
        self.id = id
        self.clientID = clientID
        self.userHandle = userHandle
        self.sessionHash = sessionHash
        self.offline = offline
        self.scopes = scopes
        self.nonce = nonce
        self.authTime = authTime
        self.amr = amr
        self.acr = acr
        self.credentialID = credentialID
        self.codeHash = codeHash
        self.codeChallenge = codeChallenge
        self.redirectURI = redirectURI
        self.codeExpiresAt = codeExpiresAt
        self.codeSpent = codeSpent
        self.refreshHash = refreshHash
        self.refreshExpiresAt = refreshExpiresAt
        self.revoked = revoked
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.dpopJKT = dpopJKT
    }
}

/// A refresh token looked up by its hash: the one in force for its grant, or one that grant
/// already retired (a reuse).
public enum RefreshTokenLookup: Sendable, Equatable {
    case current(GrantRecord)
    case retired(GrantRecord)
}

/// A device authorization (RFC 8628; docs/contracts/identity.md, "Pushed authorization requests and the device
/// flow"): a device client's request, found by the SHA-256 of its device code (the client's
/// polls) or of its user code (the `/device` page). Approval writes the grant the device's
/// tokens come from; the device's next poll spends that grant's code-less start once.
public struct DeviceAuthorizationRecord: Sendable, Equatable {
    public enum Status: String, Sendable {
        case pending, approved, denied
    }

    public var deviceCodeHash: [UInt8]
    /// Unique among the rows kept: a new request whose user code collides draws another.
    public var userCodeHash: [UInt8]
    /// The client (foreign key, ON DELETE CASCADE).
    public var clientID: String
    public var scopes: [String]
    /// Seconds the client must wait between polls; raised by each `slow_down`.
    public var interval: Int
    public var lastPolledAt: Date?
    public var status: Status
    /// The grant an approval wrote (nil while pending or when denied).
    public var grantID: String?
    public var createdAt: Date
    public var expiresAt: Date

    public init(
        deviceCodeHash: [UInt8], userCodeHash: [UInt8], clientID: String, scopes: [String], interval: Int, lastPolledAt: Date? = nil,
        status: Status = .pending, grantID: String? = nil, createdAt: Date, expiresAt: Date
    ) {
        self.deviceCodeHash = deviceCodeHash
        self.userCodeHash = userCodeHash
        self.clientID = clientID
        self.scopes = scopes
        self.interval = interval
        self.lastPolledAt = lastPolledAt
        self.status = status
        self.grantID = grantID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// One poll of a device authorization: the record as the poll left it, and whether the poll
/// came sooner than the interval allowed (RFC 8628 §3.5 `slow_down`; the interval was raised).
public struct DevicePoll: Sendable, Equatable {
    public var authorization: DeviceAuthorizationRecord
    public var tooFast: Bool

    public init(authorization: DeviceAuthorizationRecord, tooFast: Bool) {
        self.authorization = authorization
        self.tooFast = tooFast
    }
}
