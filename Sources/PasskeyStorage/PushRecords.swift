public import Foundation

/// A phone enrolled as a push authenticator of one account.
public struct PushDeviceRecord: Sendable, Equatable {
    /// The UUID of the discovery that enrolled it; primary key.
    public var id: String
    public var userHandle: [UInt8]
    public var name: String
    public var model: String
    /// How the push provider addresses the phone.
    public var deviceToken: String
    /// DER SubjectPublicKeyInfo of the phone's RSA key.
    public var publicKey: [UInt8]
    /// Stored with millisecond precision.
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// Set when the provider reported the device gone; no pushes are sent to it then.
    public var disabled: Bool
    /// `production` or `sandbox`: the APNs environment its app was built for; nil for a device
    /// enrolled before devices had one (the server's `--apns-environment` then).
    public var apnsEnvironment: String?

    public init(
        id: String, userHandle: [UInt8], name: String, model: String, deviceToken: String, publicKey: [UInt8], createdAt: Date,
        lastUsedAt: Date? = nil, disabled: Bool = false, apnsEnvironment: String? = nil
    ) {
        self.id = id
        self.userHandle = userHandle
        self.name = name
        self.model = model
        self.deviceToken = deviceToken
        self.publicKey = publicKey
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.disabled = disabled
        self.apnsEnvironment = apnsEnvironment
    }
}

/// An enrolment in progress: the QR code's device id and challenge, for a signed-in account.
public struct PushDiscoveryRecord: Sendable, Equatable {
    public var deviceID: String
    public var userHandle: [UInt8]
    public var challenge: String
    public var expiresAt: Date

    public init(deviceID: String, userHandle: [UInt8], challenge: String, expiresAt: Date) {
        self.deviceID = deviceID
        self.userHandle = userHandle
        self.challenge = challenge
        self.expiresAt = expiresAt
    }
}

/// A push sign-in request: pending, then approved, denied, expired or number_mismatch, once.
public struct PushRequestRecord: Sendable, Equatable {
    /// The `pushAuthId`; primary key.
    public var id: String
    /// Nil for a name without devices (or unknown): the request then stays pending until it
    /// expires, so the answer does not tell which names exist.
    public var userHandle: [UInt8]?
    /// SHA-256 of the browser's watch secret.
    public var watchHash: [UInt8]
    public var challenge: String
    /// 1–100, nil when number matching is off.
    public var number: Int?
    /// `pending`, `approved`, `denied`, `expired`, `number_mismatch`.
    public var status: String
    /// The device that answered.
    public var deviceID: String?
    public var createdAt: Date
    public var expiresAt: Date
    /// Set once the first status call after approval has opened the session.
    public var sessionIssued: Bool
    /// `sign_in` (a browser waits to be signed in) or `ciba` (a client asked for the user's
    /// approval, `BackchannelRequestRecord`): a new request replaces only a pending one of its
    /// own kind.
    public var purpose: String

    /// `purpose` of a CIBA approval's push.
    public static let cibaPurpose = "ciba"

    public init(
        id: String, userHandle: [UInt8]?, watchHash: [UInt8], challenge: String, number: Int?, status: String = "pending",
        deviceID: String? = nil, createdAt: Date, expiresAt: Date, sessionIssued: Bool = false, purpose: String = "sign_in"
    ) {
        self.purpose = purpose
        self.id = id
        self.userHandle = userHandle
        self.watchHash = watchHash
        self.challenge = challenge
        self.number = number
        self.status = status
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.sessionIssued = sessionIssued
    }
}

/// How `registerPushDevice` ended.
public enum PushEnrolmentOutcome: Sendable, Equatable {
    case registered
    /// The discovery is spent, expired or was never made: nothing stored.
    case discoveryGone
    /// The account has `maxDevices` already: nothing stored, the discovery not spent.
    case tooManyDevices
}
