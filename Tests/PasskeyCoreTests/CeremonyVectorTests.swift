import PasskeyJSON
import PasskeyCore
import Testing

/// The vectors of Vectors/registration.json, authentication.json and spec.json (see
/// Vectors/README.md): the relying party's expectations, the client's response as posted, and
/// the verdict an independent implementation (generate.py) or the WebAuthn spec (§16) gives.
@Suite struct CeremonyVectorTests {
    static let registrations = (try? Vector.load("registration")) ?? []
    static let authentications = (try? Vector.load("authentication")) ?? []
    static let spec = (try? Vector.load("spec")) ?? []

    @Test func vectorFilesAreThere() {
        #expect(Self.registrations.count > 50)
        #expect(Self.authentications.count > 30)
        #expect(Self.spec.count > 10)
    }

    @Test(arguments: registrations + spec.filter { $0.ceremony == "registration" })
    func registration(_ vector: Vector) {
        let expect = vector.expect
        vector.check(Result { try vector.register() }) { result in
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
    func authentication(_ vector: Vector) throws {
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
        let expect = vector.expect
        vector.check(outcome) { result in
            if let count = expect.signCount { #expect(result.signCount == count) }
            if let uv = expect.userVerified { #expect(result.userVerified == uv) }
            if let bs = expect.backupState { #expect(result.backupState == bs) }
        }
    }
}
