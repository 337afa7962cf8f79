import ArgumentParser
import Foundation
import PasskeyCore
import PasskeyCrypto

/// `passkey-server verify`: the server's own verification code, offline, for debugging a
/// ceremony or replaying a recorded response. stdout is one JSON object; exit 0 accept,
/// 1 reject, 2 usage error.
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify a recorded registration or authentication response offline.",
        discussion: """
            FILE (or standard input) holds RegistrationResponseJSON / AuthenticationResponseJSON as \
            the browser's toJSON() makes it. stdout is one JSON object: {"result": "accept", …} or \
            {"result": "reject", "error": CODE, "message": …}. Exit status 0 accept, 1 reject, \
            2 usage error. --explain lists every WebAuthn §7.1/§7.2 step with ✔/✘ on stderr.
            """,
        subcommands: [VerifyRegistration.self, VerifyAuthentication.self])
}

/// Options both ceremonies take.
struct CommonVerifyOptions: ParsableArguments {
    @Option(name: .customLong("rp-id"), help: "The relying party ID.")
    var rpID: String

    @Option(help: "An allowed origin; repeatable.")
    var origin: [String]

    @Option(help: "The challenge the server issued, base64url.")
    var challenge: String

    @Flag(name: .customLong("require-user-verification"), help: "Refuse unless the UV flag is set.")
    var requireUserVerification = false

    @Flag(name: .customLong("allow-cross-origin"), help: "Accept responses from cross-origin iframes.")
    var allowCrossOrigin = false

    @Option(name: .customLong("top-origin"), help: "An allowed top-level origin for cross-origin ceremonies; repeatable.")
    var topOrigin: [String] = []

    @Option(help: "Verification time (ISO 8601), for certificate validity and timestamps. Default: now.")
    var at: String?

    @Flag(help: "List every verification step with ✔/✘ on stderr.")
    var explain = false

    @Argument(help: "The response JSON file; standard input when absent.")
    var file: String?

    func challengeBytes() throws -> [UInt8] {
        guard let bytes = Base64URL.decode(challenge), !bytes.isEmpty else {
            throw ValidationError("--challenge is not base64url")
        }
        return bytes
    }

    func time() throws -> Date {
        guard let at else { return Date() }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: at) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: at) { return date }
        throw ValidationError("--at must be an ISO 8601 time such as 2026-05-01T12:00:00Z")
    }

    func input() throws -> [UInt8] {
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
            return [UInt8](data)
        }
        return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
    }

    func relyingParty(algorithms: [COSEAlgorithm], anchors: any TrustAnchorProvider) throws -> RelyingParty {
        do {
            return try RelyingParty(
                id: rpID, name: rpID, origins: origin, allowCrossOrigin: allowCrossOrigin, topOrigins: topOrigin,
                algorithms: algorithms, trustAnchors: anchors)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    var userVerification: UserVerificationRequirement { requireUserVerification ? .required : .preferred }
}

struct VerifyRegistration: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registration", abstract: "Verify a RegistrationResponseJSON (WebAuthn §7.1).")

    @OptionGroup var common: CommonVerifyOptions

    @Option(parsing: .unconditionalSingleValue, help: "A COSE algorithm offered in pubKeyCredParams, e.g. -7; repeatable. Default: every algorithm the server verifies.")
    var algorithm: [Int] = []

    @Option(name: .customLong("trust-anchor"), help: "A PEM file of trust anchors; repeatable. Given: the chain must end at one of them (they replace the bundled anchors).")
    var trustAnchor: [String] = []

    func run() throws {
        let algorithms = try algorithm.isEmpty ? COSEAlgorithm.allCases : algorithm.map { id in
            guard let alg = COSEAlgorithm(rawValue: id) else { throw ValidationError("--algorithm \(id) is not an algorithm this server verifies") }
            return alg
        }
        let anchors = try trustAnchor.flatMap { path -> [Certificate] in
            guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read --trust-anchor \(path)") }
            do { return try Certificate.certificates(pem: String(decoding: data, as: UTF8.self)) } catch {
                throw ValidationError("--trust-anchor \(path) holds no PEM certificate: \(error)")
            }
        }
        let rp = try common.relyingParty(
            algorithms: algorithms, anchors: trustAnchor.isEmpty ? DefaultTrustAnchors.provider : StaticTrustAnchors(common: anchors))
        let expectation = RegistrationExpectation(
            challenge: try common.challengeBytes(), userVerification: common.userVerification, algorithms: algorithms.map(\.rawValue))
        let now = try common.time()
        let body = try common.input()
        var report = VerificationReport()
        let outcome = Result<VerifiedRegistration, any Error> {
            let response = try RegistrationResponse(json: body)
            return try RegistrationVerifier(rp: rp).verify(response, expecting: expectation, now: now, report: &report)
        }
        try VerifyOutput.finish(outcome, report: report, explain: common.explain) { v in
            [
                "result": "accept",
                "credential_id": Base64URL.encode(v.credentialID),
                "credential_public_key": Base64URL.encode(v.publicKey.bytes),
                "algorithm": v.publicKey.algorithmIdentifier,
                "sign_count": Int(v.signCount),
                "aaguid": UUIDString.format(v.aaguid),
                "fmt": v.format,
                "attestation_type": v.attestationType.rawValue,
                "attestation_trusted": v.attestationTrusted,
                "user_verified": v.userVerified,
                "backup_eligible": v.backupEligible,
                "backup_state": v.backupState,
            ]
        }
    }
}

struct VerifyAuthentication: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authentication", abstract: "Verify an AuthenticationResponseJSON (WebAuthn §7.2).")

    @OptionGroup var common: CommonVerifyOptions

    @Option(name: .customLong("public-key"), help: "The stored credential public key: COSE_Key bytes, base64url.")
    var publicKey: String

    @Option(name: .customLong("sign-count"), help: "The stored signature counter (default 0).")
    var signCount: UInt32 = 0

    @Option(name: .customLong("credential-id"), help: "The stored credential id, base64url. Absent: that check is skipped.")
    var credentialID: String?

    @Option(name: .customLong("user-handle"), help: "The owner's user handle, base64url. Absent: the userHandle check is skipped.")
    var userHandle: String?

    func run() throws {
        guard let keyBytes = Base64URL.decode(publicKey) else { throw ValidationError("--public-key is not base64url") }
        let key: COSEKey
        do { key = try COSEKey(bytes: keyBytes) } catch { throw ValidationError("--public-key is not a usable COSE key: \(error)") }
        let id = try credentialID.map { value -> [UInt8] in
            guard let bytes = Base64URL.decode(value) else { throw ValidationError("--credential-id is not base64url") }
            return bytes
        }
        let handle = try userHandle.map { value -> [UInt8] in
            guard let bytes = Base64URL.decode(value) else { throw ValidationError("--user-handle is not base64url") }
            return bytes
        }
        let rp = try common.relyingParty(algorithms: COSEAlgorithm.allCases, anchors: StaticTrustAnchors())
        let expectation = AuthenticationExpectation(
            challenge: try common.challengeBytes(), userVerification: common.userVerification,
            allowCredentialIDs: id.map { [$0] } ?? [], identifiedUserHandle: nil)
        let credential = CredentialState(id: id, userHandle: handle, publicKey: key, signCount: signCount, backupEligible: nil)
        let body = try common.input()
        var report = VerificationReport()
        let outcome = Result<VerifiedAuthentication, any Error> {
            let response = try AuthenticationResponse(json: body)
            return try AuthenticationVerifier(rp: rp).verify(response, expecting: expectation, credential: credential, report: &report)
        }
        try VerifyOutput.finish(outcome, report: report, explain: common.explain) { v in
            [
                "result": "accept",
                "credential_id": Base64URL.encode(v.credentialID),
                "sign_count": Int(v.signCount),
                "user_verified": v.userVerified,
                "backup_state": v.backupState,
            ]
        }
    }
}

/// The verifier's output: one JSON object on stdout, the steps on stderr with --explain,
/// exit 0 on accept and 1 on reject.
enum VerifyOutput {
    static func finish<T>(_ outcome: Result<T, any Error>, report: VerificationReport, explain: Bool, accept: (T) -> [String: Any]) throws {
        if explain {
            var lines = report.steps.map { step -> String in
                if let skipped = step.skipped { return "– \(step.section) \(step.check) (skipped: \(skipped))" }
                if let error = step.error { return "✘ \(step.section) \(step.check): \(error.code.rawValue): \(error.reason)" }
                return "✔ \(step.section) \(step.check)"
            }
            if case .failure(let error as WebAuthnError) = outcome, report.steps.last?.error == nil {
                lines.append("✘ decoding the response: \(error.code.rawValue): \(error.reason)")
            }
            FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        switch outcome {
        case .success(let value):
            try write(accept(value))
        case .failure(let error as WebAuthnError):
            try write(["result": "reject", "error": error.code.rawValue, "message": error.reason])
            throw ExitCode(1)
        case .failure(let error):
            throw error
        }
    }

    static func write(_ object: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
