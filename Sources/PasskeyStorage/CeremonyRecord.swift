public import Foundation

public enum CeremonyKind: String, Sendable {
    case registration
    case authentication
}

/// A pending registration or authentication ceremony. A registration's is stored and found
/// again by its challenge; a sign-in's rides sealed in its challenge.
public struct CeremonyRecord: Sendable, Equatable {
    /// The challenge bytes; primary key.
    public var challenge: [UInt8]
    public var kind: CeremonyKind
    /// Registration: the (new or existing) user's handle. Authentication: set when a name was given.
    public var userHandle: [UInt8]?
    public var userName: String?
    public var displayName: String?
    /// Registration of a new account (the user row is created at finalize).
    public var isNewUser: Bool
    /// required | preferred | discouraged
    public var userVerification: String
    public var allowCredentialIDs: [[UInt8]]
    /// The offered pubKeyCredParams algorithms, in order.
    public var algorithms: [Int]
    /// Registration: the creation was asked for with `mediation: "conditional"` (WebAuthn L3
    /// §7.1 step 15: only then may the response come without user presence).
    public var conditional: Bool
    /// Registration: the `residentKey` the options asked for (required | preferred | discouraged).
    public var residentKey: String
    /// Stored with millisecond precision.
    public var createdAt: Date
    /// Stored with millisecond precision; the ceremony is expired at `expiresAt` and later.
    public var expiresAt: Date
    /// A step-up (docs/contracts/accounts.md): the session whose authentication time the ceremony renews,
    /// instead of opening a new one. Nil for every other ceremony.
    public var sessionHash: [UInt8]?
    /// A registration through an invitation or reset link: its token hash, spent by the finalize.
    public var invitationHash: [UInt8]?

    public init(
        challenge: [UInt8], kind: CeremonyKind, userHandle: [UInt8]?, userName: String?,
        displayName: String?, isNewUser: Bool, userVerification: String,
        allowCredentialIDs: [[UInt8]], algorithms: [Int], conditional: Bool = false, residentKey: String = "required",
        createdAt: Date, expiresAt: Date, sessionHash: [UInt8]? = nil, invitationHash: [UInt8]? = nil
    ) {
        self.sessionHash = sessionHash
        self.invitationHash = invitationHash
        self.challenge = challenge
        self.kind = kind
        self.userHandle = userHandle
        self.userName = userName
        self.displayName = displayName
        self.isNewUser = isNewUser
        self.userVerification = userVerification
        self.allowCredentialIDs = allowCredentialIDs
        self.algorithms = algorithms
        self.conditional = conditional
        self.residentKey = residentKey
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// `authenticationContext`'s answer.
public struct AuthenticationContext: Sendable, Equatable {
    public var credential: CredentialRecord?
    /// The credential's account is disabled (false when there is no credential).
    public var ownerDisabled: Bool

    public init(credential: CredentialRecord?, ownerDisabled: Bool) {
        self.credential = credential
        self.ownerDisabled = ownerDisabled
    }
}
