import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport

/// A self-signed certificate for 127.0.0.1 (P-256), made by the `openssl` command at test time.
struct TestCertificate: Sendable {
    let certificatePEM: String
    let privateKeyPEM: String
}

/// Key material the tests make with the `openssl` command in a scratch directory (PasskeyCrypto
/// has no PEM export, and a TLS server wants a certificate).
enum OpenSSLFixtures {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    static func certificateFor127() throws -> TestCertificate {
        try inScratchDirectory { directory in
            try run([
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
            return TestCertificate(
                certificatePEM: try String(contentsOfFile: directory + "/cert.pem", encoding: .utf8),
                privateKeyPEM: try String(contentsOfFile: directory + "/key.pem", encoding: .utf8))
        }
    }

    /// An unencrypted PKCS#8 RSA-2048 key, as a service-account file carries it.
    static func rsaPrivateKeyPEM() throws -> String {
        try inScratchDirectory { directory in
            try run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", directory + "/rsa.pem"])
            return try String(contentsOfFile: directory + "/rsa.pem", encoding: .utf8)
        }
    }

    private static func inScratchDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("push-delivery-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try body(directory)
    }

    private static func run(_ arguments: [String]) throws {
        let run = try ChildProcess.runBlocking(
            "/usr/bin/env", ["openssl"] + arguments, environment: ProcessInfo.processInfo.environment, stdout: .null)
        guard run.status == 0 else {
            throw Failed(description: "openssl \(arguments.first ?? "") failed: \(String(decoding: run.stderr, as: UTF8.self))")
        }
    }
}

/// A compact JWS taken apart the way a provider's server would, to check what the providers sign.
struct DecodedJWT {
    let header: [String: Any]
    let claims: [String: Any]
    let signingInput: [UInt8]
    let signature: [UInt8]

    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3,
              let headerBytes = Base64URL.decodeStrict(parts[0]), let claimBytes = Base64URL.decodeStrict(parts[1]),
              let signature = Base64URL.decodeStrict(parts[2]),
              let header = (try? JSONSerialization.jsonObject(with: Data(headerBytes))) as? [String: Any],
              let claims = (try? JSONSerialization.jsonObject(with: Data(claimBytes))) as? [String: Any]
        else { return nil }
        self.header = header
        self.claims = claims
        signingInput = Array((parts[0] + "." + parts[1]).utf8)
        self.signature = signature
    }

    /// ES256: the signature is r ‖ s (64 bytes), verified as DER with the public key.
    func isValidES256(_ key: PublicKey) -> Bool {
        guard header["alg"] as? String == "ES256", signature.count == 64,
              let der = try? ECDSASignature.der(raw: signature, curve: .p256)
        else { return false }
        return key.isValidSignature(der, for: signingInput, algorithm: .ecdsa(.sha256))
    }

    func isValidRS256(_ key: PublicKey) -> Bool {
        header["alg"] as? String == "RS256" && key.isValidSignature(signature, for: signingInput, algorithm: .rsaPKCS1v15(.sha256))
    }

    func integerClaim(_ name: String) -> Int? {
        (claims[name] as? NSNumber)?.intValue
    }
}

/// A settable clock for the providers' `now`.
final class TestClock: Sendable {
    private let recorder: Recorder<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        recorder = Recorder(start)
    }

    func now() -> Date {
        recorder.read { $0 }
    }

    func advance(_ seconds: TimeInterval) {
        recorder.update { $0 = $0.addingTimeInterval(seconds) }
    }
}
