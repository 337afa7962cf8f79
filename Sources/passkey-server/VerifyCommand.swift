internal import PasskeyJSON
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

    // `.unconditional`: a value may begin with "-" (base64url uses it).
    @Option(parsing: .unconditionalSingleValue, help: "An allowed origin; repeatable.")
    var origin: [String]

    @Option(parsing: .unconditional, help: "The challenge the server issued, base64url (or base64).")
    var challenge: String

    @Flag(name: .customLong("require-user-verification"), help: "Refuse unless the UV flag is set.")
    var requireUserVerification = false

    @Flag(name: .customLong("allow-cross-origin"), help: "Accept responses from cross-origin iframes.")
    var allowCrossOrigin = false

    @Option(name: .customLong("top-origin"), help: "An allowed top-level origin for cross-origin ceremonies; repeatable.")
    var topOrigin: [String] = []

    @Option(parsing: .unconditional, help: "Verification time (ISO 8601), for certificate validity and timestamps. Default: now.")
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

    /// The CLI checks what other servers issued: a challenge under 16 bytes is verified, with a
    /// warning under --explain (this server never issues one).
    func challengeWarnings() throws -> [String] {
        let count = try challengeBytes().count
        return count < 16 ? ["⚠ the expected challenge is \(count) bytes; WebAuthn §13.4.3 asks for at least 16 random bytes"] : []
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

    func relyingParty(
        algorithms: [COSEAlgorithm], anchors: any TrustAnchorProvider, metadata: MetadataBLOB? = nil,
        policy: AttestationPolicy = AttestationPolicy()
    ) throws -> RelyingParty {
        do {
            return try RelyingParty(
                id: rpID, name: rpID, origins: origin, allowCrossOrigin: allowCrossOrigin, topOrigins: topOrigin,
                algorithms: algorithms, trustAnchors: anchors, metadata: metadata, attestationPolicy: policy)
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

    @Option(parsing: .unconditionalSingleValue, help: "A COSE algorithm offered in pubKeyCredParams, e.g. -7; repeatable. An algorithm this server cannot verify (ML-DSA, …) may be named: a credential using it is rejected as unsupported_algorithm. Default: every algorithm the server verifies.")
    var algorithm: [Int] = []

    @Option(name: .customLong("trust-anchor"), help: "A PEM file of trust anchors; repeatable. Given: they replace the bundled anchors, and the attestation must chain to one of them (an unanchored chain is rejected) unless --attestation-policy any.")
    var trustAnchor: [String] = []

    @Option(name: .customLong("attestation-policy"), help: ArgumentHelp("any: accept every attestation that verifies; trusted: reject unless it chains to a trust anchor. Default: trusted with --trust-anchor, else any.", valueName: "any|trusted"))
    var attestationPolicy: String?

    @Option(name: .customLong("mds-blob"), help: ArgumentHelp("A FIDO Metadata Service BLOB: its models' roots become anchors, and their status is checked.", valueName: "FILE"))
    var mdsBlob: String?

    @Option(name: .customLong("mds-root"), help: ArgumentHelp("A PEM file replacing the bundled FIDO MDS root for --mds-blob.", valueName: "PEM_FILE"))
    var mdsRoot: String?

    @Option(name: .customLong("mds-signer"), help: ArgumentHelp("The subject CN the --mds-blob signer must have; repeatable (default mds.fidoalliance.org).", valueName: "NAME"))
    var mdsSigner: [String] = []

    func run() throws {
        let offered = algorithm.isEmpty ? COSEAlgorithm.allCases.map(\.rawValue) : algorithm
        let verifiable = offered.compactMap(COSEAlgorithm.init(rawValue:))
        let anchors = try trustAnchor.flatMap { path -> [Certificate] in
            guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read --trust-anchor \(path)") }
            do { return try Certificate.certificates(pem: String(decoding: data, as: UTF8.self)) } catch {
                throw ValidationError("--trust-anchor \(path) holds no PEM certificate: \(error)")
            }
        }
        let trust: AttestationPolicy.Trust
        if let attestationPolicy {
            guard let parsed = AttestationPolicy.Trust(rawValue: attestationPolicy) else {
                throw ValidationError("--attestation-policy must be any or trusted, not \(attestationPolicy)")
            }
            trust = parsed
        } else {
            trust = trustAnchor.isEmpty ? .any : .trusted
        }
        let now = try common.time()
        let metadata = try loadMetadata(now: now)
        let base: any TrustAnchorProvider = trustAnchor.isEmpty ? try DefaultTrustAnchors.provider : StaticTrustAnchors(common: anchors)
        let rp = try common.relyingParty(
            algorithms: verifiable.isEmpty ? [.es256] : verifiable,
            anchors: MetadataTrustAnchors(base: base, metadata: metadata), metadata: metadata,
            policy: AttestationPolicy(trust: trust))
        var expectation = RegistrationExpectation(
            challenge: try common.challengeBytes(), userVerification: common.userVerification, algorithms: offered)
        expectation.minimumChallengeLength = 1
        let body = try common.input()
        var report = VerificationReport()
        let outcome = Result<VerifiedRegistration, any Error> {
            let response = try RegistrationResponse(json: body)
            return try RegistrationVerifier(rp: rp).verify(response, expecting: expectation, now: now, report: &report)
        }
        try VerifyOutput.finish(outcome, report: report, explain: common.explain, warnings: try common.challengeWarnings()) { v in
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

    func loadMetadata(now: Date) throws -> MetadataBLOB? {
        guard let mdsBlob else {
            if mdsRoot != nil { throw ValidationError("--mds-root needs --mds-blob") }
            return nil
        }
        guard let data = FileManager.default.contents(atPath: mdsBlob) else { throw ValidationError("cannot read --mds-blob \(mdsBlob)") }
        var roots = try DefaultTrustAnchors.bundled.metadataServiceRoots
        if let mdsRoot {
            guard let pem = FileManager.default.contents(atPath: mdsRoot) else { throw ValidationError("cannot read --mds-root \(mdsRoot)") }
            do { roots = try Certificate.certificates(pem: String(decoding: pem, as: UTF8.self)) } catch {
                throw ValidationError("--mds-root \(mdsRoot) holds no PEM certificate: \(error)")
            }
        }
        do {
            return try MetadataBLOB(
                jws: [UInt8](data), roots: roots,
                signerNames: mdsSigner.isEmpty ? MetadataBLOB.fidoSignerNames : Set(mdsSigner), now: now)
        } catch {
            throw ValidationError("--mds-blob \(mdsBlob) is refused: \(error)")
        }
    }
}

struct VerifyAuthentication: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authentication", abstract: "Verify an AuthenticationResponseJSON (WebAuthn §7.2).")

    @OptionGroup var common: CommonVerifyOptions

    @Option(name: .customLong("public-key"), parsing: .unconditional, help: "The stored credential public key: COSE_Key bytes, base64url.")
    var publicKey: String

    @Option(name: .customLong("sign-count"), help: "The stored signature counter (default 0).")
    var signCount: UInt32 = 0

    @Option(name: .customLong("credential-id"), parsing: .unconditional, help: "The stored credential id, base64url. Absent: that check is skipped.")
    var credentialID: String?

    @Option(name: .customLong("user-handle"), parsing: .unconditional, help: "The owner's user handle, base64url. Absent: the userHandle check is skipped.")
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
        var expectation = AuthenticationExpectation(
            challenge: try common.challengeBytes(), userVerification: common.userVerification,
            allowCredentialIDs: id.map { [$0] } ?? [], identifiedUserHandle: nil)
        expectation.minimumChallengeLength = 1
        let credential = CredentialState(id: id, userHandle: handle, publicKey: key, signCount: signCount, backupEligible: nil)
        let body = try common.input()
        var report = VerificationReport()
        let outcome = Result<VerifiedAuthentication, any Error> {
            let response = try AuthenticationResponse(json: body)
            return try AuthenticationVerifier(rp: rp).verify(response, expecting: expectation, credential: credential, report: &report)
        }
        try VerifyOutput.finish(outcome, report: report, explain: common.explain, warnings: try common.challengeWarnings()) { v in
            [
                "result": "accept",
                "credential_id": Base64URL.encode(v.credentialID),
                "sign_count": Int(v.signCount),
                "user_verified": v.userVerified,
                "backup_eligible": v.backupEligible,
                "backup_state": v.backupState,
            ]
        }
    }
}

/// The verifier's output: one JSON object on stdout, the steps on stderr with --explain,
/// exit 0 on accept and 1 on reject.
enum VerifyOutput {
    static func finish<T>(
        _ outcome: Result<T, any Error>, report: VerificationReport, explain: Bool, warnings: [String] = [], accept: (T) -> [String: Any]
    ) throws {
        if explain {
            var lines = warnings + report.steps.map { step -> String in
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
