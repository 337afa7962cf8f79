public import Foundation

/// One push to one device: the seed's data (every value a string, as FCM requires) and the
/// alert a person sees.
public struct PushMessage: Sendable, Equatable {
    public let deviceID: String
    /// The token the provider addresses the device by (APNs device token, FCM registration token).
    public let deviceToken: String
    public let data: [String: String]
    public let alertTitle: String
    public let alertBody: String
    /// The APNs environment the device's app was built for: which host a push to it goes to.
    public let apnsEnvironment: APNsEnvironment

    public init(
        deviceID: String, deviceToken: String, data: [String: String], alertTitle: String, alertBody: String,
        apnsEnvironment: APNsEnvironment = .production
    ) {
        self.deviceID = deviceID
        self.deviceToken = deviceToken
        self.data = data
        self.alertTitle = alertTitle
        self.alertBody = alertBody
        self.apnsEnvironment = apnsEnvironment
    }
}

/// What a provider made of one push.
public enum DeliveryResult: Sendable, Equatable {
    case delivered
    /// The provider says the device is gone (APNs 410, FCM `UNREGISTERED`): disable it.
    case deviceGone
    /// Anything else that went wrong: logged and counted, the device kept.
    case failed(String)

    /// The `result` label of `passkey_push_deliveries_total`.
    public var label: String {
        switch self {
        case .delivered: "delivered"
        case .deviceGone: "device_gone"
        case .failed: "failed"
        }
    }
}

/// How pushes leave the server: `log`, `webhook`, `apns` or `fcm` (docs/contracts/push.md).
public protocol PushProvider: Sendable {
    /// The `provider` label of `passkey_push_deliveries_total`.
    var name: String { get }
    func send(_ message: PushMessage) async -> DeliveryResult
}
