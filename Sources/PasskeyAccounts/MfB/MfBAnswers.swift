internal import PasskeyJSON
internal import Foundation
public import PasskeyMfB
internal import PasskeyStorage
internal import PasskeyCore

// What the Messages for Business endpoints answer, encoded unchanged by the HTTP layer.

public struct MfBRequestCreated: Encodable, Sendable {

    enum CodingKeys: String, CodingKey {

        case requestIdentifier, responseEncryptionKey, expiresAt = "expires_at", message, status, gatewayMessageId = "gateway_message_id"

    }

    public let requestIdentifier: String
    public let responseEncryptionKey: String
    public let expiresAt: String
    public let message: MfBAuthenticateMessage
    /// `sent` once the gateway took it; absent when the business sends it.
    public var status: String?
    public var gatewayMessageId: String?
}

public struct MfBRequestStatus: Encodable, Sendable {

    enum CodingKeys: String, CodingKey {

        case requestIdentifier, status, userName = "user_name", sub, errors, gatewayMessageId = "gateway_message_id"
        case gatewayStatus = "gateway_status"

    }

    public let requestIdentifier: String
    public var status: String
    public var userName: String?
    /// The OpenID provider's `sub` of the account that signed in.
    public var sub: String?
    public var errors: [MfBReply.DeviceError]?
    public var gatewayMessageId: String?
    public var gatewayStatus: Int?
}

public struct MfBReplyAnswer: Encodable, Sendable {

    enum CodingKeys: String, CodingKey {

        case requestIdentifier, status, userName = "user_name", sub, errors

    }

    public let requestIdentifier: String
    public let status: String
    public var userName: String?
    /// The OpenID provider's `sub` of the account that signed in.
    public var sub: String?
    public var errors: [MfBReply.DeviceError]?
}

public struct MfBKeyAuditAnswer: Encodable, Sendable {
    public let valid: Bool
    public let requestIdentifier: String
}
