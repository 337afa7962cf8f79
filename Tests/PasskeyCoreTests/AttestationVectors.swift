import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyCrypto
import Testing

/// A fixture of Vectors/attestation/ (made by generate_tpm_android.py): registrations of one
/// attestation format, verified end to end against the fixture's test root.
struct AttestationVectors {
    struct Expectation: Decodable {
        let result: String
        let error: String?
        let fmt: String?
        let attestationType: String?
        let attestationTrusted: Bool?

        var accepts: Bool { result == "accept" }

        enum CodingKeys: String, CodingKey {
            case result, error, fmt
            case attestationType = "attestation_type"
            case attestationTrusted = "attestation_trusted"
        }
    }

    struct Vector {
        let name: String
        let description: String
        let challenge: [UInt8]
        let algorithms: [Int]
        /// RegistrationResponseJSON, as a client would post it.
        let responseJSON: [UInt8]
        let expect: Expectation
        /// android-key only: the outcome with `AndroidKeyAttestation(requireHardwareEnforced: false)`.
        let expectSoftwareEnforcedAllowed: Expectation?
    }

    private struct File: Decodable {
        struct Entry: Decodable {
            let name: String
            let description: String
            let challenge: String
            let algorithms: [Int]
            let expect: Expectation
            let expectSoftwareEnforcedAllowed: Expectation?

            enum CodingKeys: String, CodingKey {
                case name, description, challenge, algorithms, expect
                case expectSoftwareEnforcedAllowed = "expect_software_enforced_allowed"
            }
        }
        let rpID: String
        let origin: String
        let now: String
        let trustAnchors: [String]
        let vectors: [Entry]

        enum CodingKeys: String, CodingKey {
            case origin, now, vectors
            case rpID = "rp_id"
            case trustAnchors = "trust_anchors"
        }
    }

    let rpID: String
    let origin: String
    let now: Date
    let anchors: [Certificate]
    let vectors: [Vector]

    /// Loads Vectors/attestation/<name>.json from the test bundle (the target copies Vectors/).
    init(_ name: String) throws {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Vectors/attestation"),
                               "Vectors/attestation/\(name).json is not in the test bundle")
        let data = try Data(contentsOf: url)
        let file = try JSONDecoder().decode(File.self, from: data)
        // The responses are kept as JSON bytes, exactly as a client would send them.
        let raw = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let rawVectors = try #require(raw["vectors"] as? [[String: Any]])
        rpID = file.rpID
        origin = file.origin
        now = try #require(ISO8601DateFormatter().date(from: file.now))
        anchors = try file.trustAnchors.flatMap { try Certificate.certificates(pem: $0) }
        vectors = try zip(file.vectors, rawVectors).map { entry, raw in
            let response = try #require(raw["response"])
            return Vector(
                name: entry.name, description: entry.description,
                challenge: try #require(Base64URL.decode(entry.challenge)), algorithms: entry.algorithms,
                responseJSON: [UInt8](try JSONSerialization.data(withJSONObject: response)),
                expect: entry.expect, expectSoftwareEnforcedAllowed: entry.expectSoftwareEnforcedAllowed)
        }
    }

    func vector(_ name: String) throws -> Vector {
        try #require(vectors.first { $0.name == name }, "no vector \(name)")
    }

    func relyingParty(anchors: [Certificate]) throws -> RelyingParty {
        try RelyingParty(id: rpID, name: "Example", origins: [origin], trustAnchors: StaticTrustAnchors(common: anchors))
    }

    /// RegistrationResponse JSON → RegistrationVerifier (§7.1), against `anchors` (the
    /// fixture's test root unless given). The report tells which step refused.
    func register(_ vector: Vector, anchors: [Certificate]? = nil, report: inout VerificationReport) throws -> VerifiedRegistration {
        let response = try RegistrationResponse(json: vector.responseJSON)
        let expectation = RegistrationExpectation(challenge: vector.challenge, userVerification: .preferred, algorithms: vector.algorithms)
        return try RegistrationVerifier(rp: relyingParty(anchors: anchors ?? self.anchors))
            .verify(response, expecting: expectation, now: now, report: &report)
    }

    /// The vector's statement as a format's verification procedure receives it (§7.1 step 22).
    func attestationInput(_ vector: Vector) throws -> AttestationInput {
        let response = try RegistrationResponse(json: vector.responseJSON)
        return try AttestationInput(
            statement: response.attestationObject.statement, authenticatorData: response.attestationObject.authenticatorData,
            clientDataHash: Digest.sha256.hash(response.clientData.bytes), now: now)
    }

    /// Checks an accepted vector: the format, type and trust the fixture states.
    func expectAccepted(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let vector = try vector(name)
        #expect(vector.expect.accepts, "\(name) is not an accepting vector", sourceLocation: sourceLocation)
        var report = VerificationReport()
        let result = try register(vector, report: &report)
        #expect(result.format == vector.expect.fmt, sourceLocation: sourceLocation)
        #expect(result.attestationType.rawValue == vector.expect.attestationType, sourceLocation: sourceLocation)
        #expect(result.attestationTrusted == vector.expect.attestationTrusted, sourceLocation: sourceLocation)
        #expect(report.steps.allSatisfy { $0.passed }, sourceLocation: sourceLocation)
    }

    /// Checks a refused vector: the fixture's error code, raised by the attestation statement
    /// verification (§7.1 step 22) — not by an earlier step the vector broke by accident.
    func expectRefused(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let vector = try vector(name)
        let code = try #require(vector.expect.error, "\(name) is not a refusing vector", sourceLocation: sourceLocation)
        var report = VerificationReport()
        do {
            _ = try register(vector, report: &report)
            Issue.record("\(name) accepted; expected \(code): \(vector.description)", sourceLocation: sourceLocation)
        } catch let error as WebAuthnError {
            #expect(error.code.rawValue == code, "\(name): \(error)", sourceLocation: sourceLocation)
            #expect(report.steps.last?.section == "7.1.22", "\(name) refused at \(report.steps.last?.section ?? "-"): \(error)",
                    sourceLocation: sourceLocation)
        }
    }
}
