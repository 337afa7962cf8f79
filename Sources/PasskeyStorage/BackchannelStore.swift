public import Foundation

/// Client-initiated backchannel authentication (OpenID CIBA; docs/contracts/identity.md,
/// "Approval on the phone"): a client asks for a user's approval, a push goes to the user's
/// phones, the phone (or the signed-in page) answers, the client polls for its tokens. Each
/// request is a push request (`purpose` `ciba`, whose status is the answer) and a row of its own.
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, each write one
/// transaction, durable when the call returns.
public protocol BackchannelStore: Sendable {
    /// Stores the push request and the CIBA request in one transaction, unless the fatigue
    /// limits refuse it: the user has a pending, unexpired request of this client, or
    /// `hourlyLimit` requests or more since `hourStart` across all clients (counted in the same
    /// transaction, so that instances sharing the database cannot both pass).
    func startBackchannel(
        _ request: BackchannelRequestRecord, push: PushRequestRecord, hourlyLimit: Int, hourStart: Date, event: AuditEvent?
    ) async throws -> BackchannelStartOutcome
    /// The request whose `auth_req_id` hashes to `idHash`, with its push request's status.
    func backchannelRequest(idHash: [UInt8]) async throws -> BackchannelRequestRecord?
    /// The request whose push is `pushID`, with its status.
    func backchannelRequest(pushID: String) async throws -> BackchannelRequestRecord?
    /// A poll: the time it came, and the interval from then on (grown after a poll too soon).
    func recordBackchannelPoll(idHash: [UInt8], at: Date, interval: Int) async throws
    /// The request's tokens, once: marks it redeemed, if approved and not yet redeemed, and
    /// stores the session the approval stands for and the grant the tokens come from, with
    /// `event`. False (nothing stored) when it was redeemed already or is not approved.
    func redeemBackchannel(idHash: [UInt8], session: SessionRecord, grant: GrantRecord, event: AuditEvent?) async throws -> Bool
    /// The page's answer for the signed-in user: approves (with the passkey of the step-up) or
    /// denies a pending, unexpired request of that user, with `event`; false when there is none.
    func answerBackchannel(
        pushID: String, userHandle: [UInt8], approve: Bool, credentialID: [UInt8]?, now: Date, event: AuditEvent?
    ) async throws -> Bool
    /// The user's pending, unexpired requests, oldest first.
    func pendingBackchannel(userHandle: [UInt8], now: Date) async throws -> [BackchannelRequestRecord]
}

/// Why `startBackchannel` stored nothing, or that it stored the request.
public enum BackchannelStartOutcome: Sendable, Equatable {
    case started
    /// A pending request of the same client for the same user stands: the new one is refused.
    case pendingForClient
    /// The user's hourly budget across all clients is spent.
    case hourlyLimit
}

/// One CIBA request. `status` and `deviceID` are its push request's (read, never written
/// through this record).
public struct BackchannelRequestRecord: Sendable, Equatable {
    /// SHA-256 of the `auth_req_id`; primary key.
    public var idHash: [UInt8]
    /// Its push request's id: the `pushId` the phone answers, and the page's id of it.
    public var pushID: String
    public var clientID: String
    public var userHandle: [UInt8]
    public var scopes: [String]
    public var bindingMessage: String?
    /// The `acr_values` asked, as sent (checked).
    public var acrValues: String?
    /// The requesting client's address, shown on the phone.
    public var ip: String?
    /// A ping client's `client_notification_token`, sent back as its Bearer token.
    public var notificationToken: String?
    /// Seconds between polls; grows by 5 after a poll too soon.
    public var interval: Int
    public var lastPolledAt: Date?
    public var redeemed: Bool
    /// The passkey of the page's step-up that approved it; nil for a phone's approval.
    public var approvedCredentialID: [UInt8]?
    public var createdAt: Date
    public var expiresAt: Date
    /// The push request's: `pending`, `approved`, `denied` (or another end).
    public var status: String
    /// The phone that answered.
    public var deviceID: String?

    public init(
        idHash: [UInt8], pushID: String, clientID: String, userHandle: [UInt8], scopes: [String], bindingMessage: String?, acrValues: String?,
        ip: String?, notificationToken: String?, interval: Int, lastPolledAt: Date? = nil, redeemed: Bool = false,
        approvedCredentialID: [UInt8]? = nil, createdAt: Date, expiresAt: Date, status: String = "pending", deviceID: String? = nil
    ) {
        self.idHash = idHash
        self.pushID = pushID
        self.clientID = clientID
        self.userHandle = userHandle
        self.scopes = scopes
        self.bindingMessage = bindingMessage
        self.acrValues = acrValues
        self.ip = ip
        self.notificationToken = notificationToken
        self.interval = interval
        self.lastPolledAt = lastPolledAt
        self.redeemed = redeemed
        self.approvedCredentialID = approvedCredentialID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.status = status
        self.deviceID = deviceID
    }
}
