import Foundation
import PasskeyCore
import PasskeyCrypto
import Testing

/// A vector of Vectors/registration.json, authentication.json or spec.json (see
/// Vectors/README.md): the relying party's expectations, the client's response exactly as
/// posted, and the verdict an independent implementation (generate.py) or the WebAuthn spec
/// (§16) gives.
struct CeremonyVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Credential: Decodable, Sendable {
        let id: String
        let publicKey: String
        let signCount: UInt32
        let userHandle: String
        let backupEligible: Bool
        enum CodingKeys: String, CodingKey {
            case id, publicKey = "public_key", signCount = "sign_count", userHandle = "user_handle", backupEligible = "backup_eligible"
        }
    }

    struct Expect: Decodable, Sendable {
        let result: String
        let error: String?
        let fmt: String?
        let attestationType: String?
        let attestationTrusted: Bool?
        let algorithm: Int?
        let credentialID: String?
        let signCount: UInt32?
        let aaguid: String?
        let userVerified: Bool?
        let backupEligible: Bool?
        let backupState: Bool?
        enum CodingKeys: String, CodingKey {
            case result, error, fmt, algorithm, aaguid
            case attestationType = "attestation_type", attestationTrusted = "attestation_trusted"
            case credentialID = "credential_id", signCount = "sign_count", userVerified = "user_verified"
            case backupEligible = "backup_eligible", backupState = "backup_state"
        }
    }

    let file: String
    let name: String
    let ceremony: String
    let rpID: String
    let origins: [String]
    let allowCrossOrigin: Bool
    let topOrigins: [String]
    let challenge: String
    let userVerification: String
    let algorithms: [Int]
    let trustAnchors: [String]
    let now: String
    let credential: Credential?
    let allowCredentials: [String]?
    let response: [UInt8]
    let expect: Expect

    var testDescription: String { "\(file):\(name)" }

    static func load(_ file: String) throws -> [CeremonyVector] {
        let url = try #require(Bundle.module.url(forResource: file, withExtension: "json", subdirectory: "Vectors"))
        let data = try Data(contentsOf: url)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try (root["vectors"] as? [[String: Any]] ?? []).map { try CeremonyVector(file: file, raw: $0) }
    }

    init(file: String, raw: [String: Any]) throws {
        struct Fields: Decodable {
            let name: String, ceremony: String, rp_id: String, origins: [String], challenge: String
            let allow_cross_origin: Bool?, top_origins: [String]?, user_verification: String, algorithms: [Int]
            let trust_anchors: [String]?, now: String, credential: Credential?, allow_credentials: [String]?, expect: Expect
        }
        let fields = try JSONDecoder().decode(Fields.self, from: JSONSerialization.data(withJSONObject: raw))
        self.file = file
        name = fields.name
        ceremony = fields.ceremony
        rpID = fields.rp_id
        origins = fields.origins
        allowCrossOrigin = fields.allow_cross_origin ?? false
        topOrigins = fields.top_origins ?? []
        challenge = fields.challenge
        userVerification = fields.user_verification
        algorithms = fields.algorithms
        trustAnchors = fields.trust_anchors ?? []
        now = fields.now
        credential = fields.credential
        allowCredentials = fields.allow_credentials
        expect = fields.expect
        // The response stays the JSON the client posted, byte for byte as the file has it.
        response = [UInt8](try JSONSerialization.data(withJSONObject: try #require(raw["response"])))
    }

    init(from decoder: any Decoder) throws { fatalError("use load(_:)") }

    func relyingParty() throws -> RelyingParty {
        let anchors = try trustAnchors.flatMap { try Certificate.certificates(pem: $0) }
        return try RelyingParty(
            id: rpID, name: "vectors", origins: origins, allowCrossOrigin: allowCrossOrigin, topOrigins: topOrigins,
            trustAnchors: StaticTrustAnchors(common: anchors))
    }

    var time: Date { get throws { try #require(ISO8601DateFormatter().date(from: now)) } }
    var challengeBytes: [UInt8] { get throws { try #require(Base64URL.decode(challenge)) } }
    var requirement: UserVerificationRequirement { get throws { try #require(UserVerificationRequirement(rawValue: userVerification)) } }
}

@Suite struct CeremonyVectorTests {
    static let registrations = (try? CeremonyVector.load("registration")) ?? []
    static let authentications = (try? CeremonyVector.load("authentication")) ?? []
    static let spec = (try? CeremonyVector.load("spec")) ?? []

    @Test func vectorFilesAreThere() {
        #expect(Self.registrations.count > 50)
        #expect(Self.authentications.count > 30)
        #expect(Self.spec.count > 10)
    }

    @Test(arguments: registrations + spec.filter { $0.ceremony == "registration" })
    func registration(_ vector: CeremonyVector) throws {
        let outcome = Result<VerifiedRegistration, any Error> {
            let response = try RegistrationResponse(json: vector.response)
            let expectation = RegistrationExpectation(
                challenge: try vector.challengeBytes, userVerification: try vector.requirement, algorithms: vector.algorithms)
            return try RegistrationVerifier(rp: vector.relyingParty()).verify(response, expecting: expectation, now: try vector.time)
        }
        try check(outcome, vector) { result, expect in
            if let fmt = expect.fmt { #expect(result.format == fmt) }
            if let type = expect.attestationType { #expect(result.attestationType.rawValue == type) }
            if let trusted = expect.attestationTrusted { #expect(result.attestationTrusted == trusted) }
            if let alg = expect.algorithm { #expect(result.publicKey.algorithmIdentifier == alg) }
            if let id = expect.credentialID { #expect(Base64URL.encode(result.credentialID) == id) }
            if let count = expect.signCount { #expect(result.signCount == count) }
            if let aaguid = expect.aaguid { #expect(UUIDString.format(result.aaguid) == aaguid) }
            if let uv = expect.userVerified { #expect(result.userVerified == uv) }
            if let be = expect.backupEligible { #expect(result.backupEligible == be) }
            if let bs = expect.backupState { #expect(result.backupState == bs) }
        }
    }

    @Test(arguments: authentications + spec.filter { $0.ceremony == "authentication" })
    func authentication(_ vector: CeremonyVector) throws {
        let stored = try #require(vector.credential)
        let outcome = Result<VerifiedAuthentication, any Error> {
            let response = try AuthenticationResponse(json: vector.response)
            let owner = try #require(Base64URL.decode(stored.userHandle))
            let allow = try (vector.allowCredentials ?? []).map { try #require(Base64URL.decode($0)) }
            let expectation = AuthenticationExpectation(
                challenge: try vector.challengeBytes, userVerification: try vector.requirement, allowCredentialIDs: allow,
                identifiedUserHandle: vector.allowCredentials == nil ? nil : owner)
            let key = try COSEKey(bytes: try #require(Base64URL.decode(stored.publicKey)))
            let state = CredentialState(
                id: try #require(Base64URL.decode(stored.id)), userHandle: owner, publicKey: key,
                signCount: stored.signCount, backupEligible: stored.backupEligible)
            return try AuthenticationVerifier(rp: vector.relyingParty()).verify(response, expecting: expectation, credential: state)
        }
        try check(outcome, vector) { result, expect in
            if let count = expect.signCount { #expect(result.signCount == count) }
            if let uv = expect.userVerified { #expect(result.userVerified == uv) }
            if let bs = expect.backupState { #expect(result.backupState == bs) }
        }
    }

    private func check<T>(_ outcome: Result<T, any Error>, _ vector: CeremonyVector, accepted: (T, CeremonyVector.Expect) -> Void) throws {
        switch (outcome, vector.expect.result) {
        case (.success(let value), "accept"):
            accepted(value, vector.expect)
        case (.success, _):
            Issue.record("\(vector.name) accepted; expected \(vector.expect.error ?? "?")")
        case (.failure(let error as WebAuthnError), "reject"):
            #expect(error.code.rawValue == vector.expect.error, "\(vector.name): \(error)")
        case (.failure(let error), _):
            Issue.record("\(vector.name) refused: \(error); expected \(vector.expect.result)")
        }
    }
}
