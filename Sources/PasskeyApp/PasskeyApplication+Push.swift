internal import Foundation
internal import PasskeyServer
internal import PasskeyAccounts
internal import Logging
internal import PasskeyCrypto
internal import PasskeyPush
internal import PasskeyOutbound

extension PasskeyApplication {
    /// The push provider of `--push-provider`, built from its flags; a missing or unreadable
    /// key file stops start-up.
    static func pushProvider(_ configuration: ServerConfiguration, logger: Logger) throws -> any PushProvider {
        switch configuration.pushProvider {
        case "log":
            // The values at debug level: `push-device answer` reads them on a development machine.
            return LogPushProvider(logger: logger, includeData: true)
        case "webhook":
            guard let url = configuration.pushWebhookURL else {
                throw StartupError(message: "--push-provider webhook needs --push-webhook-url")
            }
            return WebhookPushProvider(url: url)
        case "apns":
            guard let file = configuration.apnsKeyFile, let keyID = configuration.apnsKeyID, let teamID = configuration.apnsTeamID,
                  let topic = configuration.apnsTopic
            else {
                throw StartupError(message: "--push-provider apns needs --apns-key-file, --apns-key-id, --apns-team-id and --apns-topic")
            }
            let key: PrivateKey
            do {
                key = try PrivateKey(pem: try String(contentsOfFile: file, encoding: .utf8))
            } catch {
                throw StartupError(message: "--apns-key-file \(file) is not a readable PEM private key (the .p8 file): \(error)")
            }
            do {
                return try APNsPushProvider(privateKey: key, keyID: keyID, teamID: teamID, topic: topic, baseURL: configuration.apnsURL,
                    sandboxURL: configuration.apnsSandboxURL)
            } catch {
                throw StartupError(message: "--apns-key-file: \(error)")
            }
        case "fcm":
            guard let file = configuration.fcmServiceAccount else {
                throw StartupError(message: "--push-provider fcm needs --fcm-service-account")
            }
            guard let json = FileManager.default.contents(atPath: file) else {
                throw StartupError(message: "--fcm-service-account \(file) cannot be read")
            }
            do {
                let account = try FCMPushProvider.ServiceAccount(json: [UInt8](json))
                return try FCMPushProvider(serviceAccount: account, baseURL: configuration.fcmURL)
            } catch {
                throw StartupError(message: "--fcm-service-account \(file): \(error)")
            }
        default:
            throw StartupError(message: "--push-provider must be log, webhook, apns or fcm, not \(configuration.pushProvider)")
        }
    }
}
