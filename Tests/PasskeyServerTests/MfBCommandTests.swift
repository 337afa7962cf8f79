import Foundation
import Testing

/// `passkey-server mfb decrypt`: the seed's decryption exercise comes out exactly through the CLI.
@Suite struct MfBCommandTests {
    static func seed() throws -> [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PasskeyMfBTests/Vectors/mfb-seed.json")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    @Test func theSeedExerciseComesOutExactly() async throws {
        let seed = try Self.seed()
        let key = try #require(seed["privateKey"] as? String)
        let token = try #require(seed["token"] as? String)
        let run = try await CommandRun.run(["mfb", "decrypt", "--private-key", key, "--token", token, "--explain"])
        #expect(run.status == 0, "\(run.errors)")
        var values: [String: String] = [:]
        for line in run.output.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            values[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        for (name, field) in [
            ("ephemeral public key", "ephemeralPublicKey"), ("x", "x"), ("y", "y"), ("shared key", "sharedKey"),
            ("derived key", "derivedKey"), ("iv", "iv"), ("ciphertext", "ciphertext"), ("tag", "tag"), ("plaintext", "plaintext"),
        ] {
            #expect(values[name] == seed[field] as? String, "\(name)")
        }
        #expect(values["plaintext"] == "xXTi32iZwrQ6O8Sy6r1isKwF6Ff1Py")

        let plain = try await CommandRun.run(["mfb", "decrypt", "--private-key", key, "--token", token])
        #expect(plain.output == "xXTi32iZwrQ6O8Sy6r1isKwF6Ff1Py\n")
        // One byte off: one error, no plaintext.
        var bytes = try #require(Data(base64Encoded: token))
        bytes[bytes.count - 1] ^= 1
        let tampered = try await CommandRun.run(["mfb", "decrypt", "--private-key", key, "--token", bytes.base64EncodedString()])
        #expect(tampered.status == 1 && tampered.output.isEmpty && tampered.errors.contains("mfb_decrypt_failed"))
        #expect(try await CommandRun.run(["mfb", "decrypt", "--private-key", "%%", "--token", token]).status == 2)
    }
}
