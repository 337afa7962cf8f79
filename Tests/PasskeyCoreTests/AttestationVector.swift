import Foundation
import PasskeyCore
import PasskeyCrypto
import Testing

/// Registration vectors under Vectors/attestation/, made by generate_apple_safetynet.py (the
/// schema of Vectors/generate.py's registration.json, plus `violates`: the one requirement a
/// negative vector breaks). Read from the test bundle (`resources: [.copy("Vectors")]`).
struct AttestationVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Expect: Decodable, Sendable {
        let result: String
        let error: String?
        let fmt: String?
        let attestationType: String?
        let attestationTrusted: Bool?
        let credentialID: String?
        let publicKey: String?
        let aaguid: String?

        enum CodingKeys: String, CodingKey {
            case result, error, fmt, aaguid
            case attestationType = "attestation_type", attestationTrusted = "attestation_trusted"
            case credentialID = "credential_id", publicKey = "public_key"
        }
    }

    let name: String
    let description: String
    let rpID: String
    let origins: [String]
    let challenge: String
    let userVerification: String
    let algorithms: [Int]
    let trustAnchors: [String]
    let now: String
    let response: JSONValue
    let expect: Expect
    let violates: [String]

    enum CodingKeys: String, CodingKey {
        case name, description, origins, challenge, algorithms, now, response, expect, violates
        case rpID = "rp_id", userVerification = "user_verification", trustAnchors = "trust_anchors"
    }

    var testDescription: String { name }

    static func load(_ file: String) throws -> [AttestationVector] {
        struct File: Decodable { let vectors: [AttestationVector] }
        let url = try #require(
            Bundle.module.url(forResource: file, withExtension: "json", subdirectory: "Vectors/attestation"),
            "Vectors/attestation/\(file).json is not in the test bundle")
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).vectors
    }

    static func named(_ name: String, in file: String) throws -> AttestationVector {
        try #require(try load(file).first { $0.name == name }, "no vector \(name) in \(file).json")
    }

    var anchors: [Certificate] {
        get throws { try trustAnchors.flatMap { try Certificate.certificates(pem: $0) } }
    }

    var verificationTime: Date {
        get throws { try Date(now, strategy: .iso8601) }
    }

    var registrationResponse: RegistrationResponse {
        get throws { try RegistrationResponse(json: [UInt8](JSONEncoder().encode(response))) }
    }

    /// The vector's relying party, with its anchors as common anchors unless `anchors` is given.
    func relyingParty(anchors provider: (any TrustAnchorProvider)? = nil) throws -> RelyingParty {
        try RelyingParty(id: rpID, name: "Attestation vectors", origins: origins,
                         trustAnchors: provider ?? StaticTrustAnchors(common: anchors))
    }

    /// §7.1 end to end through RegistrationVerifier, at the vector's pinned time.
    func register(anchors provider: (any TrustAnchorProvider)? = nil) throws -> VerifiedRegistration {
        let expecting = RegistrationExpectation(
            challenge: try #require(Base64URL.decode(challenge)),
            userVerification: try #require(UserVerificationRequirement(rawValue: userVerification)),
            algorithms: algorithms)
        return try RegistrationVerifier(rp: relyingParty(anchors: provider))
            .verify(registrationResponse, expecting: expecting, now: verificationTime)
    }

    /// The format's verification procedure alone (§7.1 step 22), as the verifier would call it.
    func attestationInput() throws -> (format: String, input: AttestationInput) {
        let response = try registrationResponse
        let object = response.attestationObject
        let input = try AttestationInput(
            statement: object.statement, authenticatorData: object.authenticatorData,
            clientDataHash: Digest.sha256.hash(response.clientData.bytes), now: verificationTime)
        return (object.format, input)
    }

    /// Runs the vector and checks the outcome it expects.
    func check(sourceLocation: SourceLocation = #_sourceLocation) throws {
        if expect.result == "reject" {
            let code = try #require(WebAuthnError.Code(rawValue: expect.error ?? ""), sourceLocation: sourceLocation)
            expectRefusal(code, sourceLocation: sourceLocation) { _ = try register() }
            return
        }
        #expect(violates.isEmpty, sourceLocation: sourceLocation)
        let result = try register()
        #expect(result.format == expect.fmt, sourceLocation: sourceLocation)
        #expect(result.attestationType.rawValue == expect.attestationType, sourceLocation: sourceLocation)
        #expect(result.attestationTrusted == expect.attestationTrusted, sourceLocation: sourceLocation)
        #expect(Base64URL.encode(result.credentialID) == expect.credentialID, sourceLocation: sourceLocation)
        #expect(Base64URL.encode(result.publicKey.bytes) == expect.publicKey, sourceLocation: sourceLocation)
        #expect(UUIDString.format(result.aaguid) == expect.aaguid, sourceLocation: sourceLocation)
    }
}

/// Any JSON value, so a vector's `response` object can be handed back to RegistrationResponse.
enum JSONValue: Codable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
