import PasskeyCore
import ArgumentParser
import Foundation
import PasskeyCrypto
import PasskeyMfB

/// `passkey-server mfb decrypt`: the seed's decryption exercise for Messages for Business;
/// `mfb encrypt`: what the customer's device does with its token, to try an MSP's set-up.
struct MfBCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfb", abstract: "Messages for Business tools.", subcommands: [MfBDecrypt.self, MfBEncrypt.self])
}

struct MfBEncrypt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encrypt",
        abstract: "Encrypt a token to a request's responseEncryptionKey, as the customer's device does.",
        discussion: """
            Prints the base64 token (a fresh ephemeral P-384 key, X9.63 SHA-256 with the ephemeral \
            key as shared info, AES-256-GCM with the variable IV) for POST /mfb/responses. \
            Exit 0 encrypted, 2 usage error.
            """)

    @Option(name: .customLong("public-key"), parsing: .unconditional, help: "The request's responseEncryptionKey: base64 of the 97-byte point.")
    var publicKey: String

    @Option(parsing: .unconditional, help: "The plaintext: the access token or authorization code the device got.")
    var plaintext: String

    func run() throws {
        guard let point = MfBKeyAudit.point(fromParameter: publicKey) else {
            throw ValidationError("--public-key is not the base64 of a 97-byte uncompressed point")
        }
        let token: [UInt8]
        do { token = try MfBToken.encrypt(plaintext: Array(plaintext.utf8), recipientPublicPoint: point) } catch {
            throw ValidationError("cannot encrypt to --public-key (a point on P-384, at most 65 423 bytes of plaintext): \(error)")
        }
        FileHandle.standardOutput.write(Data((Data(token).base64EncodedString() + "\n").utf8))
    }
}

struct MfBDecrypt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decrypt",
        abstract: "Decrypt an authentication token (ECIES variable IV, X9.63 SHA-256, AES-256-GCM, P-384).",
        discussion: """
            Prints the plaintext; with --explain also every intermediate value the documentation's \
            exercise lists, base64 as it writes them (x and y in decimal). Exit 0 decrypted, \
            1 mfb_decrypt_failed, 2 usage error.
            """)

    @Option(name: .customLong("private-key"), parsing: .unconditional, help: "The request's P-384 private key: base64 of the 48-byte scalar.")
    var privateKey: String

    @Option(parsing: .unconditional, help: "The token, base64.")
    var token: String

    @Flag(help: "Print every intermediate value.")
    var explain = false

    func run() throws {
        guard let scalar = Data(base64Encoded: privateKey) else { throw ValidationError("--private-key is not base64") }
        guard let bytes = Data(base64Encoded: token) else { throw ValidationError("--token is not base64") }
        let key: ECPrivateKey
        do { key = try ECPrivateKey(curve: .p384, scalar: [UInt8](scalar)) } catch {
            throw ValidationError("--private-key is not a P-384 private key: \(error)")
        }
        do {
            let steps = try MfBToken.decryptWithSteps(token: [UInt8](bytes), privateKey: key)
            if explain {
                let lines = [
                    ("ephemeral public key", Data(steps.ephemeralPublicKey).base64EncodedString()),
                    ("x", Self.decimal(steps.x)), ("y", Self.decimal(steps.y)),
                    ("shared key", Data(steps.sharedKey).base64EncodedString()),
                    ("derived key", Data(steps.derivedKey).base64EncodedString()),
                    ("iv", Data(steps.iv).base64EncodedString()),
                    ("ciphertext", Data(steps.ciphertext).base64EncodedString()),
                    ("tag", Data(steps.tag).base64EncodedString()),
                ]
                let text = lines.map { "\($0.0): \($0.1)\n" }.joined() + "plaintext: "
                FileHandle.standardOutput.write(Data(text.utf8))
            }
            FileHandle.standardOutput.write(Data(steps.plaintext + [0x0A]))
        } catch {
            FileHandle.standardError.write(Data("passkey-server mfb decrypt: \(error.code): \(error.message)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// A big-endian unsigned number in decimal (repeated division by 10).
    static func decimal(_ bytes: [UInt8]) -> String {
        var number = bytes.drop { $0 == 0 }.map { UInt32($0) }
        guard !number.isEmpty else { return "0" }
        var digits: [Character] = []
        while !number.isEmpty {
            var remainder: UInt32 = 0
            var next: [UInt32] = []
            for byte in number {
                let value = remainder << 8 | byte
                let quotient = value / 10
                remainder = value % 10
                if !next.isEmpty || quotient != 0 { next.append(quotient) }
            }
            digits.append(Character(String(remainder)))
            number = next
        }
        return String(digits.reversed())
    }
}
