public import Foundation

/// One registered passkey (the WebAuthn "credential record").
public struct CredentialRecord: Sendable, Equatable {
    /// Credential ID; primary key, unique across all users.
    public var id: [UInt8]
    /// The owning user's handle (foreign key, ON DELETE CASCADE).
    public var userHandle: [UInt8]
    /// COSE_Key bytes exactly as the authenticator sent them.
    public var publicKey: [UInt8]
    /// COSE algorithm identifier (e.g. -7 for ES256).
    public var algorithm: Int
    public var signCount: UInt32
    public var transports: [String]
    public var backupEligible: Bool
    public var backupState: Bool
    public var uvInitialized: Bool
    /// 16 bytes (the schema refuses any other length).
    public var aaguid: [UInt8]
    public var attestationFormat: String
    /// none, self, basic, attca, anonca.
    public var attestationType: String
    public var attestationTrusted: Bool
    public var authenticatorName: String?
    /// The user's label for this passkey.
    public var name: String
    /// Stored with millisecond precision.
    public var createdAt: Date
    /// Stored with millisecond precision; nil before the first assertion.
    public var lastUsedAt: Date?
    public var possiblyCloned: Bool
    /// A discoverable (client-side, "resident") credential: usernameless sign-in can find it.
    /// False for a security key that kept no record of it (credProps `rk: false`, or absent when
    /// the options did not require one): it signs in only when its id is in allowCredentials.
    public var discoverable: Bool
    /// The authenticator reported the `prf` extension enabled at registration.
    public var prfEnabled: Bool

    public init(
        id: [UInt8], userHandle: [UInt8], publicKey: [UInt8], algorithm: Int, signCount: UInt32,
        transports: [String], backupEligible: Bool, backupState: Bool, uvInitialized: Bool,
        aaguid: [UInt8], attestationFormat: String, attestationType: String,
        attestationTrusted: Bool, authenticatorName: String?, name: String, createdAt: Date,
        lastUsedAt: Date?, possiblyCloned: Bool, discoverable: Bool = true, prfEnabled: Bool = false
    ) {
        self.id = id
        self.userHandle = userHandle
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.transports = transports
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.uvInitialized = uvInitialized
        self.aaguid = aaguid
        self.attestationFormat = attestationFormat
        self.attestationType = attestationType
        self.attestationTrusted = attestationTrusted
        self.authenticatorName = authenticatorName
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.possiblyCloned = possiblyCloned
        self.discoverable = discoverable
        self.prfEnabled = prfEnabled
    }
}
