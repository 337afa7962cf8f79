public import Foundation

/// A Messages for Business authenticate request: its key pair, and what became of it.
public struct MfBRequestRecord: Sendable, Equatable {
    /// The `requestIdentifier` (a UUID); primary key.
    public var id: String
    /// The P-384 private scalar (48 bytes); nil once a token was decrypted, the request failed
    /// or it expired (the sweep deletes it then).
    public var privateKey: [UInt8]?
    /// The 97-byte uncompressed public point sent in the message.
    public var publicPoint: [UInt8]
    /// SHA-256 of `publicPoint`: how the authorization endpoint finds the request (unique).
    public var pointHash: [UInt8]
    /// The device's opaque `userHandle`, bound at its first visit to the authorization endpoint.
    public var deviceUserHandle: String?
    /// `pending`, `authenticated` or `failed` (expiry is read from `expiresAt`).
    public var status: String
    /// The account that signed in (authenticated).
    public var userHandle: [UInt8]?
    /// JSON text of the device's `errors` (failed).
    public var errors: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// The `id` header of the message sent through Apple's gateway (`--mfb-gateway-url`).
    public var gatewayMessageID: String?
    /// The gateway's last answer to it (nil: none, a network failure).
    public var gatewayStatus: Int?

    public init(
        id: String, privateKey: [UInt8]?, publicPoint: [UInt8], pointHash: [UInt8], deviceUserHandle: String? = nil,
        status: String = "pending", userHandle: [UInt8]? = nil, errors: String? = nil, createdAt: Date, expiresAt: Date,
        gatewayMessageID: String? = nil, gatewayStatus: Int? = nil
    ) {
        self.id = id
        self.privateKey = privateKey
        self.publicPoint = publicPoint
        self.pointHash = pointHash
        self.deviceUserHandle = deviceUserHandle
        self.status = status
        self.userHandle = userHandle
        self.errors = errors
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.gatewayMessageID = gatewayMessageID
        self.gatewayStatus = gatewayStatus
    }
}

/// An authorization code or access token issued for one request, stored by its hash.
public struct MfBGrantRecord: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case code, accessToken = "access_token"
    }

    /// SHA-256 of the code or token; primary key.
    public var hash: [UInt8]
    public var kind: Kind
    public var requestID: String
    /// The account signed in at the authorization endpoint.
    public var userHandle: [UInt8]
    public var clientID: String
    public var redirectURI: String
    public var expiresAt: Date

    public init(hash: [UInt8], kind: Kind, requestID: String, userHandle: [UInt8], clientID: String, redirectURI: String, expiresAt: Date) {
        self.hash = hash
        self.kind = kind
        self.requestID = requestID
        self.userHandle = userHandle
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.expiresAt = expiresAt
    }
}

/// What the device's reply did to its request.
public enum MfBReplyOutcome: Sendable, Equatable {
    /// Authenticated: the grant is spent, the key deleted; the account's name and handle.
    case authenticated(userName: String, userHandle: [UInt8])
    /// Failed: the errors are recorded, the key deleted.
    case failed
    /// No such request, or it expired: nothing changed.
    case notFound
    /// Answered before: nothing changed.
    case alreadyAnswered
    /// The plaintext is no unspent, unexpired grant of this request: nothing changed.
    case grantUnknown
}
