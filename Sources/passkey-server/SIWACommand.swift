import PasskeyCore
import ArgumentParser
import Foundation
import PasskeyApple
import PasskeyOutbound

/// `passkey-server siwa verify`: the server's identity-token checks, offline.
struct SIWACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "siwa", abstract: "Sign in with Apple tools.", subcommands: [SIWAVerify.self])
}

/// stdout is one JSON verdict; exit 0 accept, 1 reject, 2 usage error.
struct SIWAVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a Sign in with Apple identity token as the server would.",
        discussion: """
            stdout is one JSON object: {"result": "accept", "sub", "email", "email_verified", \
            "is_private_email", "aud", "iss", "iat", "exp"} or {"result": "reject", "error": CODE, \
            "message"}. Exit status 0 accept, 1 reject, 2 usage error. --explain lists every check \
            with ✔/✘ on stderr. Nothing is stored: a nonce is compared, never spent.
            """)

    @Argument(help: "The identity token (a compact JWS); - reads it from standard input.")
    var token: String

    @Option(name: .customLong("client-id"), help: "An accepted audience (bundle ID or Services ID); repeatable; at least one.")
    var clientID: [String] = []

    @Option(help: ArgumentHelp("The key set: a file, a file:// URL or an https URL. Default: Apple's.", valueName: "FILE_OR_URL"))
    var jwks = "https://appleid.apple.com/auth/keys"

    @Option(help: "The expected iss.")
    var issuer = "https://appleid.apple.com"

    @Option(parsing: .unconditional, help: "The nonce the token must carry (as sent, its hex SHA-256, or its base64url SHA-256).")
    var nonce: String?

    @Option(parsing: .unconditional, help: "Verification time (ISO 8601). Default: now.")
    var at: String?

    @Option(name: .customLong("max-age"), help: "The oldest iat accepted, in seconds.")
    var maxAge: Int = 600

    @Option(name: .customLong("clock-skew"), help: "Allowed clock difference, in seconds.")
    var clockSkew: Int = 60

    @Flag(help: "List every check with ✔/✘ on stderr.")
    var explain = false

    func validate() throws {
        guard !clientID.isEmpty else { throw ValidationError("give at least one --client-id") }
        if let at, EventsCommand.time(at) == nil { throw ValidationError("--at must be an ISO 8601 time, not \(at)") }
        guard (1...86400 * 365).contains(maxAge) else { throw ValidationError("--max-age must be between 1 and 31536000") }
        guard (0...86400).contains(clockSkew) else { throw ValidationError("--clock-skew must be between 0 and 86400") }
    }

    func run() async throws {
        var text = token
        if token == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        var configuration = AppleConfiguration(clientIDs: clientID)
        configuration.issuer = issuer
        configuration.tokenMaxAge = TimeInterval(maxAge)
        configuration.clockSkew = TimeInterval(clockSkew)
        let source = jwks.contains("://") ? jwks : URL(fileURLWithPath: jwks).absoluteString
        let keys = AppleKeyCache(fetch: { try await AppleHTTP().fetchKeys(url: source) })
        let verifier = IdentityTokenVerifier(configuration: configuration, keys: keys)
        let now = at.flatMap(EventsCommand.time) ?? Date()
        var report: (@Sendable (VerificationStep) -> Void)?
        if explain {
            report = { step in
                let mark = step.passed ? "✔" : "✘"
                let detail = step.detail.isEmpty ? "" : ": " + step.detail
                FileHandle.standardError.write(Data("\(mark) \(step.name)\(detail)\n".utf8))
            }
        }
        let verdict: [String: Any]
        var accepted = false
        do {
            let claims = try await verifier.verify(text, now: now, expectedNonce: nonce, explain: report)
            let formatter = ISO8601DateFormatter()
            verdict = [
                "result": "accept", "sub": claims.subject, "email": claims.email.map { $0 as Any } ?? NSNull(),
                "email_verified": claims.emailVerified, "is_private_email": claims.isPrivateEmail, "aud": claims.audience,
                "iss": claims.issuer, "iat": formatter.string(from: claims.issuedAt), "exp": formatter.string(from: claims.expiresAt),
            ]
            accepted = true
        } catch {
            verdict = ["result": "reject", "error": error.code.rawValue, "message": error.message]
        }
        let data = (try? JSONSerialization.data(withJSONObject: verdict, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
        if !accepted { throw ExitCode(1) }
    }
}
