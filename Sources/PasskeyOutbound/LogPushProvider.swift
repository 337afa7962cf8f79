public import PasskeyPush
public import Logging
internal import Foundation

/// `--push-provider log`: pushes go to the server log only (development, and servers without a
/// push service). Logs what an operator needs to follow a push — the device, the pushId, the
/// scenario and which data keys were sent — never the device token. The values (the challenge,
/// the number, the user's name and address) only with `includeData`, at debug level: what
/// `passkey-server push-device answer` needs to play the phone on a development machine.
public struct LogPushProvider: PushProvider {
    private let logger: Logger
    private let includeData: Bool

    public init(logger: Logger, includeData: Bool = false) {
        self.logger = logger
        self.includeData = includeData
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
        if includeData {
            let json = (try? JSONSerialization.data(withJSONObject: message.data, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
            logger.debug("push data", metadata: ["deviceId": "\(message.deviceID)", "data": "\(json ?? "{}")"])
        }
        return .delivered
    }
}
