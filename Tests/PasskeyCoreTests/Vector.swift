import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import Testing

/// One vector of Vectors/ (schema: Vectors/README.md), from any of its files:
/// registration.json, authentication.json and spec.json (generate.py), and attestation/*.json
/// (generate_apple_safetynet.py, generate_tpm_android.py). A file may state `rp_id`, `origin`,
/// `now` and `trust_anchors` once for all its vectors (tpm.json, android-key.json); a field the
/// vector states itself wins. Read from the test bundle (`resources: [.copy("Vectors")]`).
struct Vector: Sendable, CustomTestStringConvertible {
    /// The stored credential record of an authentication vector.
    struct Credential: Decodable, Sendable {
        let id: String
        let publicKey: String
        let signCount: UInt32
        let userHandle: String
        let backupEligible: Bool

        enum CodingKeys: String, CodingKey {
            case id, publicKey = "public_key", signCount = "sign_count", userHandle = "user_handle"
            case backupEligible = "backup_eligible"
        }
    }

    /// The verdict: `result` "accept" with the fields of the result, or "reject" with `error`.
    struct Expect: Decodable, Sendable {
        let result: String
        let error: String?
        let fmt, attestationType: String?
        let attestationTrusted: Bool?
        let algorithm: Int?
        let credentialID, publicKey, aaguid: String?
        let signCount: UInt32?
        let userVerified, backupEligible, backupState: Bool?

        var accepts: Bool { result == "accept" }

        enum CodingKeys: String, CodingKey {
            case result, error, fmt, algorithm, aaguid
            case attestationType = "attestation_type", attestationTrusted = "attestation_trusted"
            case credentialID = "credential_id", signCount = "sign_count", userVerified = "user_verified"
            case backupEligible = "backup_eligible", backupState = "backup_state", publicKey = "public_key"
        }
    }

    /// The file below Vectors/, without ".json": "registration", "attestation/tpm".
    let file: String
    let name, description: String
    /// "registration" or "authentication".
    let ceremony: String
    /// The relying party's settings: origins allowed, what the server issued and offered, the
    /// PEM anchors (may be none), the pinned verification time (ISO 8601).
    let rpID: String
    let origins, topOrigins: [String]
    let allowCrossOrigin: Bool
    let challenge, userVerification: String
    let algorithms: [Int]
    let trustAnchors: [String]
    let now: String
    /// authentication only: the stored credential record.
    let credential: Credential?
    /// authentication only: nil for a usernameless ceremony.
    let allowCredentials: [String]?
    /// The JSON the client posts, serialized again from the file (the same JSON value).
    let response: [UInt8]
    let expect: Expect
    /// android-key.json: the outcome under `AndroidKeyAttestation(requireHardwareEnforced: false)`.
    let expectSoftwareEnforcedAllowed: Expect?
    /// apple, android-safetynet and compound.json: the one requirement a refusing vector breaks.
    let violates: [String]

    var testDescription: String { "\(file):\(name)" }

    /// The members of a file. A file without `ceremony` holds registrations and one without
    /// `user_verification` was made with "preferred" (tpm.json, android-key.json).
    private struct Contents: Decodable {
        struct Entry: Decodable {
            let name: String, description: String, ceremony: String?
            let rp_id: String?, origins: [String]?, allow_cross_origin: Bool?, top_origins: [String]?
            let challenge: String, user_verification: String?, algorithms: [Int]
            let trust_anchors: [String]?, now: String?, credential: Credential?, allow_credentials: [String]?
            let expect: Expect, expect_software_enforced_allowed: Expect?, violates: [String]?
        }
        let rp_id: String?, origin: String?, now: String?, trust_anchors: [String]?
        let vectors: [Entry]
    }

    /// Loads Vectors/<file>.json, e.g. `load("spec")`, `load("attestation/tpm")`.
    static func load(_ file: String) throws -> [Vector] {
        let path = file.split(separator: "/")
        let url = try #require(
            Bundle.module.url(
                forResource: path.last.map(String.init), withExtension: "json",
                subdirectory: (["Vectors"] + path.dropLast()).joined(separator: "/")),
            "Vectors/\(file).json is not in the test bundle")
        let data = try Data(contentsOf: url)
        let contents = try JSONDecoder().decode(Contents.self, from: data)
        // Each response stays JSON, the body a client posts: JSONSerialization reads it from the
        // file and writes it back (no Decodable JSON enum in between).
        let raw = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let responses = try #require(raw["vectors"] as? [[String: Any]]).map { $0["response"] }
        return try zip(contents.vectors, responses).map { entry, response in
            try Vector(
                file: file, name: entry.name, description: entry.description,
                ceremony: entry.ceremony ?? "registration",
                rpID: #require(entry.rp_id ?? contents.rp_id, "\(entry.name): no rp_id"),
                origins: #require(entry.origins ?? contents.origin.map { [$0] }, "\(entry.name): no origins"),
                topOrigins: entry.top_origins ?? [], allowCrossOrigin: entry.allow_cross_origin ?? false,
                challenge: entry.challenge, userVerification: entry.user_verification ?? "preferred",
                algorithms: entry.algorithms, trustAnchors: entry.trust_anchors ?? contents.trust_anchors ?? [],
                now: #require(entry.now ?? contents.now, "\(entry.name): no now"),
                credential: entry.credential, allowCredentials: entry.allow_credentials,
                response: [UInt8](JSONSerialization.data(withJSONObject: #require(response, "\(entry.name): no response"))),
                expect: entry.expect, expectSoftwareEnforcedAllowed: entry.expect_software_enforced_allowed,
                violates: entry.violates ?? [])
        }
    }

    static func named(_ name: String, in file: String) throws -> Vector {
        try load(file).named(name)
    }

    var anchors: [Certificate] {
        get throws { try trustAnchors.flatMap { try Certificate.certificates(pem: $0) } }
    }

    var time: Date { get throws { try #require(ISO8601DateFormatter().date(from: now)) } }
    var challengeBytes: [UInt8] { get throws { try #require(Base64URL.decode(challenge)) } }
    var requirement: UserVerificationRequirement {
        get throws { try #require(UserVerificationRequirement(rawValue: userVerification)) }
    }

    /// The vector's relying party, with its anchors as common anchors unless `provider` is given.
    func relyingParty(anchors provider: (any TrustAnchorProvider)? = nil) throws -> RelyingParty {
        try RelyingParty(
            id: rpID, name: "Vectors", origins: origins, allowCrossOrigin: allowCrossOrigin, topOrigins: topOrigins,
            trustAnchors: provider ?? StaticTrustAnchors(common: anchors))
    }

    /// §7.1 end to end: the response through RegistrationVerifier at the vector's pinned time.
    /// Decoding errors count as refusals too; `report` tells which step refused.
    func register(
        anchors provider: (any TrustAnchorProvider)? = nil, report: inout VerificationReport
    ) throws -> VerifiedRegistration {
        let expecting = RegistrationExpectation(
            challenge: try challengeBytes, userVerification: try requirement, algorithms: algorithms)
        return try RegistrationVerifier(rp: relyingParty(anchors: provider))
            .verify(RegistrationResponse(json: response), expecting: expecting, now: time, report: &report)
    }

    func register(anchors provider: (any TrustAnchorProvider)? = nil) throws -> VerifiedRegistration {
        var report = VerificationReport()
        return try register(anchors: provider, report: &report)
    }

    /// The statement as a format's verification procedure receives it (§7.1 step 22), and `fmt`.
    func attestationInput() throws -> (format: String, input: AttestationInput) {
        let response = try RegistrationResponse(json: response)
        let object = response.attestationObject
        let input = try AttestationInput(
            statement: object.statement, authenticatorData: object.authenticatorData,
            clientDataHash: Digest.sha256.hash(response.clientData.bytes), now: time)
        return (object.format, input)
    }
}
