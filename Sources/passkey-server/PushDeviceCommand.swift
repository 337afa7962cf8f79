import ArgumentParser
import Foundation
import PasskeyCrypto
import PasskeyPush
import PasskeyOutbound

/// `passkey-server push-device`: a phone in a terminal, for trying the push authenticator.
struct PushDeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push-device", abstract: "Play the push authenticator's phone: enrol, then answer pushes.",
        subcommands: [PushDeviceEnroll.self, PushDeviceAnswer.self])
}

/// Prints the server's answer; exit 0 when it accepted, 1 when it refused.
private func finish(_ reply: DeviceSimulator.Reply, accepted: Int) throws {
    FileHandle.standardOutput.write(Data(reply.body + [0x0A]))
    guard reply.status == accepted else {
        FileHandle.standardError.write(Data("passkey-server push-device: the server answered \(reply.status)\n".utf8))
        throw ExitCode(1)
    }
}

struct PushDeviceEnroll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Enrol from the QR code's JSON (Add a phone on the page): make or load the key, sign, register.")

    @Argument(help: "The QR code's JSON ({deviceId, username, host, tenantDomain, challenge}); - reads standard input.")
    var discovery: String

    @Option(help: ArgumentHelp("The device's key (PKCS#8 PEM); made (see --key-type) and written here when missing.", valueName: "FILE"))
    var key: String

    @Option(name: .customLong("key-type"), help: ArgumentHelp("The key a new device makes: ec (P-256, exported as an iPhone does, signing ES256) or rsa (RSA-2048).", valueName: "ec|rsa"))
    var keyType = "rsa"

    @Option(help: ArgumentHelp("The server; default: the JSON's host.", valueName: "URL"))
    var server: String?

    @Option(help: "The device's name, shown on the account page.")
    var name = "Simulator"

    @Option(name: .customLong("device-token"), help: "The token a push provider would address the phone by. (default: simulator- and a new UUID)")
    var deviceToken: String?

    func run() async throws {
        let text = discovery == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : discovery
        do {
            guard let type = DeviceSimulator.KeyType(rawValue: keyType) else {
                throw ValidationError("--key-type must be ec or rsa, not \(keyType)")
            }
            let privateKey = try DeviceSimulator.key(at: key, type: type)
            let (host, body) = try DeviceSimulator.registration(discovery: Array(text.utf8), key: privateKey, name: name, deviceToken: deviceToken ?? "simulator-" + UUID().uuidString.lowercased())
            let reply = try await DeviceSimulator.post(server: server ?? host, path: "/push/devices", body: body)
            try finish(reply, accepted: 201)
        } catch let error as DeviceSimulator.Failure {
            throw ValidationError(error.description)
        }
    }
}

struct PushDeviceAnswer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "answer", abstract: "Answer a push: sign the JWT with the device's key and send it.")

    @Argument(help: "The push's data (or the webhook's body holding it under data); - reads standard input.")
    var push: String

    @Option(help: ArgumentHelp("The device's key (PKCS#8 PEM), as enroll wrote it.", valueName: "FILE"))
    var key: String

    @Flag(help: "Deny (\"that wasn't me\") instead of approving.")
    var deny = false

    @Option(help: "The number to answer with (the type-in mode, or to try a wrong one); default: the push's.")
    var number: String?

    @Option(help: ArgumentHelp("The server.", valueName: "URL"))
    var server = "http://localhost:8080"

    func run() async throws {
        let text = push == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : push
        guard FileManager.default.fileExists(atPath: key) else { throw ValidationError("no key at \(key): enrol first") }
        do {
            let privateKey = try DeviceSimulator.key(at: key)
            let token = try DeviceSimulator.answer(push: Array(text.utf8), key: privateKey, approve: !deny, number: number)
            let body = try JSONSerialization.data(withJSONObject: ["authResponse": token])
            let reply = try await DeviceSimulator.post(server: server, path: "/push/authenticate", body: Array(body))
            try finish(reply, accepted: 202)
        } catch let error as DeviceSimulator.Failure {
            throw ValidationError(error.description)
        }
    }
}

