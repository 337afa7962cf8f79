internal import Foundation
public import PasskeyCrypto

/// The authenticate message of seed 000 ("Successful Authentication", the request), ready for
/// the messaging provider to send: an interactive message whose data carries the OAuth 2.0
/// request and the request's P-384 public key.
///
/// Two kinds (`--mfb-message`): the iOS 16 Authentication message, whose reply carries the
/// authorization code and which holds no `clientSecret` (the business exchanges the code
/// itself), and the legacy one, whose device trades the code for an access token with the
/// `clientSecret` the message carries.
public struct MfBAuthenticateMessage: Encodable, Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case ios16
        case legacy
    }

    /// The Messages for Business extension that shows the message.
    public static let bid = "com.apple.messages.MSMessageExtensionBalloonPlugin:0000000000:com.apple.icloud.apps.messages.business.extension"

    public struct OAuth2: Encodable, Sendable, Equatable {
        public var responseType = "code"
        public var scope: [String]
        public var state: String
        /// Standard base64 of the 97-byte uncompressed point.
        public var responseEncryptionKey: String
        /// Forwarded by the device to the token endpoint as `client_secret` (legacy only).
        public var clientSecret: String?
    }

    public struct Authenticate: Encodable, Sendable, Equatable {
        public var oauth2: OAuth2
    }

    /// An image the received and reply bubbles may name; none by default.
    public struct Image: Codable, Sendable, Equatable {
        /// Base64 of the image.
        public var data: String
        public var identifier: String

        public init(data: String, identifier: String) {
            self.data = data
            self.identifier = identifier
        }
    }

    public struct Data: Encodable, Sendable, Equatable {
        public var version = "1.0"
        public var requestIdentifier: String
        public var authenticate: Authenticate
        public var images: [Image] = []
    }

    /// The received and the reply bubble (seed 000): a title, and optionally a subtitle, a
    /// style (`icon`, `small`, `large`) and the identifier of one of the images.
    public struct Bubble: Codable, Sendable, Equatable {
        public var title: String
        public var subtitle: String?
        public var style: String?
        public var imageIdentifier: String?

        public init(title: String, subtitle: String? = nil, style: String? = nil, imageIdentifier: String? = nil) {
            self.title = title
            self.subtitle = subtitle
            self.style = style
            self.imageIdentifier = imageIdentifier
        }
    }

    public struct InteractiveData: Encodable, Sendable, Equatable {
        public var bid = MfBAuthenticateMessage.bid
        public var data: Data
        public var receivedMessage: Bubble
        public var replyMessage: Bubble
    }

    public var type = "interactive"
    public var interactiveData: InteractiveData

    /// - Parameter clientSecret: nil for the iOS 16 message, which carries none.
    public init(
        requestIdentifier: String, publicPoint: [UInt8], scope: [String], state: String, clientSecret: String?,
        received: Bubble, reply: Bubble = Bubble(title: "You Signed In"), images: [Image] = []
    ) {
        let oauth2 = OAuth2(
            scope: scope, state: state, responseEncryptionKey: Foundation.Data(publicPoint).base64EncodedString(), clientSecret: clientSecret)
        interactiveData = InteractiveData(
            data: Data(requestIdentifier: requestIdentifier, authenticate: Authenticate(oauth2: oauth2), images: images),
            receivedMessage: received, replyMessage: reply)
    }
}

/// The public-key audit ("Validate the Public Key"): the key the device presents at the
/// authorization endpoint against the key of the request it claims, compared in constant time.
public enum MfBKeyAudit {
    /// The device's `responseEncryptionKey` parameter as bytes: standard base64 (a `+` turned
    /// into a space by form decoding is put back), of exactly an uncompressed P-384 point's
    /// length. Nil for anything else.
    public static func point(fromParameter text: String) -> [UInt8]? {
        let repaired = text.replacingOccurrences(of: " ", with: "+")
        guard repaired.utf8.count <= 200, let decoded = Foundation.Data(base64Encoded: repaired), decoded.count == 97, decoded.first == 0x04 else {
            return nil
        }
        return [UInt8](decoded)
    }

    /// Whether the presented point is the request's, in time independent of the contents.
    public static func matches(presented: [UInt8], requested: [UInt8]) -> Bool {
        constantTimeEquals(presented, requested)
    }
}
