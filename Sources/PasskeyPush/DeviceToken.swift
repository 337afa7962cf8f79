public import PasskeyCore

/// Which of Apple's two push environments a phone's app was built for (docs/contracts/push.md): Xcode's debug
/// builds get tokens from the sandbox, TestFlight and App Store builds from production, and a
/// token is only good in its own environment.
public enum APNsEnvironment: String, Sendable, CaseIterable, Equatable {
    case production
    case sandbox
}

/// The `deviceToken` of an enrolment (docs/contracts/push.md): an APNs token is hex (even length, 32 to 100
/// bytes, either case, nothing else); an FCM registration token is its own opaque form (letters,
/// digits, `-`, `_` and `:`, at most 4096 characters). Which forms are accepted follows the
/// provider: `apns` takes APNs tokens, `fcm` FCM tokens, and an own gateway (`log`, `webhook`)
/// either. Anything else is `invalid_request`, before the token reaches a request path.
public enum DeviceToken {
    /// APNs tokens are 32 bytes today; Apple allows them to grow to 100.
    public static let apnsBytes = 32...100
    public static let maximumFCMLength = 4096

    /// Refuses a token the provider could not address a push with.
    public static func check(_ token: String, provider: String) throws(PushError) {
        switch provider {
        case "apns":
            guard isAPNs(token) else {
                throw PushError(code: "invalid_request", message: "deviceToken must be an APNs device token: hex, 32 to 100 bytes.")
            }
        case "fcm":
            guard isFCM(token) else {
                throw PushError(
                    code: "invalid_request",
                    message: "deviceToken must be an FCM registration token (letters, digits, '-', '_', ':'; at most \(maximumFCMLength)).")
            }
        default:
            guard isAPNs(token) || isFCM(token) else {
                throw PushError(code: "invalid_request", message: "deviceToken is neither an APNs device token (hex) nor an FCM registration token.")
            }
        }
    }

    /// Hex of 32 to 100 bytes: an even number of hex digits, nothing else.
    public static func isAPNs(_ token: String) -> Bool {
        let count = token.utf8.count
        return count % 2 == 0 && apnsBytes.contains(count / 2) && token.utf8.allSatisfy(isHexDigit)
    }

    /// 1 to 4096 of `[A-Za-z0-9_:-]`.
    public static func isFCM(_ token: String) -> Bool {
        (1...maximumFCMLength).contains(token.utf8.count) && token.utf8.allSatisfy { byte in
            isHexDigit(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte) || byte == 0x2d || byte == 0x5f || byte == 0x3a
        }
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
