public import Foundation
internal import PasskeyCrypto
internal import PasskeyJSON

/// Apple's Messages for Business gateway, as seed 001 ("Sending an Authentication Message")
/// describes it: `POST https://mspgw.push.apple.com/v1/authenticate` with the message as the body
/// and its routing in headers; what each answer means, and which may be tried again.
public enum MfBGateway {
    public static let appleURL = "https://mspgw.push.apple.com/v1/authenticate"
    /// Seconds to wait before the second and the third try of an answer that may be retried.
    public static let retryDelays: [TimeInterval] = [0.5, 1.0]
    /// The capability a device announces when it can show an authenticate message (iOS 12,
    /// macOS 10.14 and later).
    public static let authenticationCapability = "auth"

    /// What the business sends with one message.
    public struct Routing: Sendable, Equatable {
        /// `id`: a new UUID per message, kept with the request.
        public var messageID: String
        /// `source-id`: the business's ID in Apple Business Register.
        public var sourceID: String
        /// `destination-id`: the customer's opaque ID, from their incoming message.
        public var destinationID: String
        /// `capabilities`, as the customer's incoming message gave them.
        public var capabilities: [String]?
        /// `device-agent`, as the customer's incoming message gave it.
        public var deviceAgent: String?

        public init(messageID: String, sourceID: String, destinationID: String, capabilities: [String]? = nil, deviceAgent: String? = nil) {
            self.messageID = messageID
            self.sourceID = sourceID
            self.destinationID = destinationID
            self.capabilities = capabilities
            self.deviceAgent = deviceAgent
        }
    }

    /// The headers of seed 001, in its order: `id`, `source-id`, `destination-id`, `version`,
    /// `capabilities` and `device-agent` when known, `msp-agent`, `auto-reply`, `Authorization`.
    public static func headers(_ routing: Routing, authorization: String, mspAgent: String) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("id", routing.messageID), ("source-id", routing.sourceID), ("destination-id", routing.destinationID), ("version", "1.0"),
        ]
        if let capabilities = routing.capabilities { headers.append(("capabilities", capabilities.joined(separator: ","))) }
        if let agent = routing.deviceAgent { headers.append(("device-agent", agent)) }
        headers += [("msp-agent", mspAgent), ("auto-reply", "true"), ("Authorization", authorization)]
        return headers
    }

    /// The customer's device can show the message only when its capabilities list `auth`.
    public static func supportsAuthentication(_ capabilities: [String]) -> Bool {
        capabilities.contains { $0.trimmingCharacters(in: .whitespaces) == authenticationCapability }
    }

    /// Seed 001's meaning of each answer.
    public static func meaning(ofStatus status: Int) -> String {
        switch status {
        case 200: "The request was successful."
        case 400: "The request lacks required field or was malformed."
        case 401: "The request lacks Authorization header."
        case 403: "The request failed to validate the Authorization header field."
        case 404: "The request failed to recognize the destination-id value."
        case 500: "A server error occurred."
        default: "The gateway answered with a status seed 001 does not list."
        }
    }

    /// A 500, or no answer at all (nil), may go through on another try; a 4xx is about the
    /// request itself and will fail the same way again.
    public static func isRetryable(status: Int?) -> Bool {
        guard let status else { return true }
        return status >= 500
    }

    /// Apple's "Authorizing a Message": `Bearer` and a JWT signed HS256 with the MSP's secret
    /// (given base64), claims `aud` = the MSP's id and `iat` = now in seconds.
    public static func authorization(mspID: String, secret: [UInt8], issuedAt: Date) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8))
        let claims = JSONValue.object(["aud": .string(mspID), "iat": .integer(Int64(issuedAt.timeIntervalSince1970.rounded(.down)))])
        let input = header + "." + Base64URL.encode(claims.encoded())
        return "Bearer " + input + "." + Base64URL.encode(HMAC.sha256(key: secret, data: Array(input.utf8)))
    }
}

/// How a message reaches Apple's Messages for Business gateway (`--mfb-gateway-url`): the HTTP
/// client in PasskeyOutbound, or a test's stand-in.
public protocol MfBGatewaySender: Sendable {
    /// POSTs the message with the headers; the gateway's HTTP status, or nil when no answer came
    /// (no connection, a timeout).
    func post(headers: [(name: String, value: String)], body: [UInt8]) async -> Int?
}

/// The device's errors of seed 000's tables ("Error Codes"), by domain and code: the seed's name
/// and what to do about it, kept beside the raw code.
public enum MfBDeviceErrors {
    public struct Known: Sendable, Equatable {
        public let name: String
        public let advice: String
    }

    /// The entry for a device error; nil for a code the seed does not list.
    public static func known(code: Int?, domain: String?, message: String?) -> Known? {
        guard let code else { return nil }
        if domain?.hasSuffix(".cryptor") == true {
            switch code {
            case 1:
                return Known(name: "BCPublicKeyIsEmptyError", advice: "The message's responseEncryptionKey reached the device empty: send the message as the server made it.")
            case 2:
                return Known(name: "BCPublicKeyIsNotUTF8Error", advice: "The responseEncryptionKey was altered on the way (its base64 is not text): send the message unchanged.")
            case 3 where message?.localizedCaseInsensitiveContains("failed") == true:
                return Known(name: "BCPublicKeyInternalError", advice: "The device's keychain failed; ask the customer to try again with a new request.")
            case 3:
                return Known(name: "BCPublicKeyIsInvalidError", advice: "The device refused the responseEncryptionKey: it must be the uncompressed P-384 point the request was made with; send the message unchanged.")
            case 4:
                return Known(name: "BCEncryptionError", advice: "The device could not encrypt the token to the key; ask the customer to try again with a new request.")
            default:
                return nil
            }
        }
        switch code {
        case 1:
            return Known(name: "BCTokenMissingError", advice: "The redirect back to the device carried no code or token: check that the redirect URI registered with Apple is one of --mfb-redirect-uri.")
        case 2:
            return Known(name: "BCEmptyDataReceivedError", advice: "The token endpoint answered the device with an empty body: check the token URL registered with Apple (this server's /mfb/token).")
        case 3:
            return Known(name: "BCAccessTokenMissingFromResponseError", advice: "The token endpoint's answer had no access_token: check the token URL registered with Apple and the client secret.")
        default:
            return nil
        }
    }
}
