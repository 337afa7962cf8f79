public import Logging

/// `--push-provider log`: pushes go to the server log only (development, and servers without a
/// push service). Logs what an operator needs to follow a push — the device, the pushId, the
/// scenario and which data keys were sent — never the device token or the other values (the
/// challenge, the number, the user's name and address).
public struct LogPushProvider: PushProvider {
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public var name: String { "log" }

    public func send(_ message: PushMessage) async -> DeliveryResult {
        var metadata: Logger.Metadata = [
            "deviceId": "\(message.deviceID)",
            "dataKeys": "\(message.data.keys.sorted().joined(separator: ","))",
        ]
        if let pushID = message.data["pushId"] { metadata["pushId"] = "\(pushID)" }
        if let scenario = message.data["notificationScenario"] { metadata["scenario"] = "\(scenario)" }
        logger.info("push (log provider: not delivered to any device)", metadata: metadata)
        return .delivered
    }
}
