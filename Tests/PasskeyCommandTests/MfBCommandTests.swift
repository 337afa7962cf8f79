import Foundation
import PasskeyServerTestSupport
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

    /// `mfb encrypt` makes what `mfb decrypt` (and so the server) opens: the device's side.
    @Test func encryptIsTheDevicesSide() async throws {
        let seed = try Self.seed()
        let publicKey = try #require(seed["publicKey"] as? String)
        let key = try #require(seed["privateKey"] as? String)
        let first = try await CommandRun.run(["mfb", "encrypt", "--public-key", publicKey, "--plaintext", "code-123"])
        #expect(first.status == 0, "\(first.errors)")
        let token = first.output.trimmingCharacters(in: .newlines)
        let opened = try await CommandRun.run(["mfb", "decrypt", "--private-key", key, "--token", token])
        #expect(opened.status == 0 && opened.output == "code-123\n", "\(opened.errors)")
        // A fresh ephemeral key every time.
        let second = try await CommandRun.run(["mfb", "encrypt", "--public-key", publicKey, "--plaintext", "code-123"])
        #expect(second.status == 0 && second.output != first.output)
        // Not a point: a usage error, nothing printed.
        let bad = try await CommandRun.run(["mfb", "encrypt", "--public-key", "AAAA", "--plaintext", "x"])
        #expect(bad.status == 2 && bad.output.isEmpty)
        var offCurve = try #require(Data(base64Encoded: publicKey))
        offCurve[96] ^= 1
        let off = try await CommandRun.run(["mfb", "encrypt", "--public-key", offCurve.base64EncodedString(), "--plaintext", "x"])
        #expect(off.status == 2 && off.output.isEmpty)
    }

    /// `serve` refuses an incomplete or unsafe Messages for Business set-up, naming the flag.
    @Test func serveRefusesABadMfBSetUp() async throws {
        let complete = ["--mfb-client-id", "c", "--mfb-client-secret", "s", "--mfb-redirect-uri", "https://auth.example.com/cb",
                        "--mfb-api-token", "0123456789abcdef"]
        let cases: [([String], String)] = [
            (Array(complete.prefix(4)), "--mfb-client-id needs"),
            (Array(complete.dropFirst(2)), "need --mfb-client-id"),
            (complete.map { $0 == "https://auth.example.com/cb" ? "http://auth.example.com/cb" : $0 }, "--mfb-redirect-uri"),
            (complete.map { $0 == "https://auth.example.com/cb" ? "https://auth.example.com/cb#x" : $0 }, "--mfb-redirect-uri"),
            (complete.map { $0 == "0123456789abcdef" ? "short" : $0 }, "at least 16"),
            (complete + ["--mfb-request-ttl", "0"], "--mfb-request-ttl"),
            (complete + ["--mfb-message", "ios15"], "--mfb-message"),
            (complete + ["--mfb-gateway-url", "https://mspgw.push.apple.com/v1/authenticate"], "--mfb-business-id"),
            (complete + ["--mfb-gateway-url", "https://mspgw.push.apple.com/v1/authenticate", "--mfb-business-id", "b", "--mfb-msp-id", "m",
                         "--mfb-msp-secret", "%%%"], "--mfb-msp-secret"),
            (complete + ["--mfb-gateway-url", "ftp://gateway"], "--mfb-gateway-url"),
        ]
        for (arguments, message) in cases {
            let run = try await CommandRun.run(["serve", "--port", "0", "--database", "/tmp/never-created-\(UUID().uuidString).sqlite"] + arguments)
            #expect(run.status == 2, "\(arguments) \(run.errors)")
            #expect(run.errors.contains(message), "\(arguments) \(run.errors)")
        }
        // Through the environment as well.
        let fromEnvironment = try await CommandRun.run(
            ["serve", "--port", "0", "--database", "/tmp/never-created-\(UUID().uuidString).sqlite"],
            environment: ["PASSKEY_MFB_CLIENT_ID": "c"])
        #expect(fromEnvironment.status == 2 && fromEnvironment.errors.contains("--mfb-client-id needs"), "\(fromEnvironment.errors)")
    }
}
