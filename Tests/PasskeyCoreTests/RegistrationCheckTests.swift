import PasskeyJSON
import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import Testing

/// One test per §7.1 check, each flipping one field of an otherwise valid registration.
@Suite struct RegistrationCheckTests {
    let challenge = SecureRandom.bytes(32)

    func builder(_ algorithm: COSEAlgorithm = .es256) throws -> RegistrationBuilder {
        RegistrationBuilder(credential: try TestCredential(algorithm: algorithm), rpID: rpID, origin: origin, challenge: challenge)
    }

    @Test(arguments: COSEAlgorithm.allCases)
    func acceptsNoneAttestationForEveryAlgorithm(_ algorithm: COSEAlgorithm) throws {
        let b = try builder(algorithm)
        let result = try register(b, expecting: expectation(challenge, algorithms: COSEAlgorithm.allCases))
        #expect(result.credentialID == b.credential.id)
        #expect(result.publicKey.bytes == b.credential.coseKey)
        #expect(result.publicKey.algorithm == algorithm)
        #expect(result.format == "none")
        #expect(result.attestationType == .none)
        #expect(result.attestationTrusted == false)
        #expect(result.userVerified)
        #expect(result.transports == ["internal"])
    }

    @Test(arguments: COSEAlgorithm.allCases)
    func acceptsPackedSelfAttestationForEveryAlgorithm(_ algorithm: COSEAlgorithm) throws {
        var b = try builder(algorithm)
        b.format = "packed"
        let result = try register(b, expecting: expectation(challenge, algorithms: COSEAlgorithm.allCases))
        #expect(result.attestationType == .self)
        #expect(result.attestationTrusted == false)
    }

    // §7.1 step 7
    @Test func refusesWrongType() throws {
        var b = try builder()
        b.clientData.type = "webauthn.get"
        expectRefusal(.typeMismatch) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // §7.1 step 8
    @Test func refusesOtherChallenge() throws {
        let b = try builder()
        expectRefusal(.unknownChallenge) { _ = try register(b, expecting: expectation(SecureRandom.bytes(32))) }
    }

    // §7.1 step 8: an empty or short issued challenge never verifies (a server bug elsewhere
    // accepted an empty expected challenge matching an empty one in clientData).
    @Test func refusesEmptyAndShortChallenges() throws {
        for issued in [[UInt8](), [UInt8](repeating: 7, count: 8)] {
            let b = RegistrationBuilder(credential: try TestCredential(), rpID: rpID, origin: origin, challenge: issued)
            expectRefusal(.unknownChallenge) { _ = try register(b, expecting: expectation(issued)) }
        }
    }

    // §7.1 step 8 compares the challenge's bytes: native clients that write it in standard
    // base64 (padded or not) send the same challenge; other bytes are refused in any encoding.
    @Test func comparesTheChallengeBytesInAnyBase64Encoding() throws {
        for encoded in [Base64URL.encode(challenge) + "=", Data(challenge).base64EncodedString(),
                        Data(challenge).base64EncodedString().replacingOccurrences(of: "=", with: "")] {
            var b = try builder()
            b.clientData.challenge = encoded
            _ = try register(b, expecting: expectation(challenge))
        }
        var other = challenge
        other[0] ^= 1
        for encoded in [Base64URL.encode(other), Data(other).base64EncodedString()] {
            var b = try builder()
            b.clientData.challenge = encoded
            expectRefusal(.unknownChallenge) { _ = try register(b, expecting: expectation(challenge)) }
        }
    }

    // §7.1 step 9: exact string match, no suffix/prefix/subdomain/scheme/port tricks.
    @Test(arguments: [
        "https://evil.example.org", "https://example.org.evil.com", "http://example.org",
        "https://example.org:8443", "https://example.org/", "https://EXAMPLE.org", "https://example.or", "null",
    ])
    func refusesOtherOrigins(_ other: String) throws {
        var b = try builder()
        b.clientData.origin = other
        expectRefusal(.originMismatch) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // §7.1 step 10
    @Test func refusesCrossOriginUnlessConfigured() throws {
        var b = try builder()
        b.clientData.crossOrigin = true
        expectRefusal(.originMismatch) { _ = try register(b, expecting: expectation(challenge)) }
        _ = try register(b, rp: makeRP(allowCrossOrigin: true), expecting: expectation(challenge))
    }

    // §7.1 step 11
    @Test func refusesTopOriginUnlessConfiguredAndListed() throws {
        var b = try builder()
        b.clientData.crossOrigin = true
        b.clientData.topOrigin = "https://shop.example.com"
        expectRefusal(.originMismatch) { _ = try register(b, expecting: expectation(challenge)) }
        expectRefusal(.originMismatch) {
            _ = try register(b, rp: makeRP(allowCrossOrigin: true, topOrigins: ["https://other.example.com"]), expecting: expectation(challenge))
        }
        _ = try register(b, rp: makeRP(allowCrossOrigin: true, topOrigins: ["https://shop.example.com"]), expecting: expectation(challenge))
    }

    // §7.1 step 14
    @Test func refusesOtherRPIDHash() throws {
        var b = try builder()
        b.authData.rpIDHash = Digest.sha256.hash(Array("evil.org".utf8))
        expectRefusal(.rpIdMismatch) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // §7.1 step 15
    @Test func refusesMissingUserPresence() throws {
        var b = try builder()
        b.authData.flags &= ~AuthDataBuilder.up
        expectRefusal(.userPresenceRequired) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // §7.1 step 15, conditional creation: an automatic upgrade comes without UP (Apple's
    // authenticator sends neither UP nor UV); only a ceremony issued as conditional accepts it,
    // and user verification is still applied as the ceremony asked.
    @Test func conditionalCreationNeedsNoUserPresence() throws {
        var b = try builder()
        b.authData.flags &= ~(AuthDataBuilder.up | AuthDataBuilder.uv)
        var conditional = expectation(challenge)
        conditional.conditional = true
        let result = try register(b, expecting: conditional)
        #expect(!result.userVerified)
        expectRefusal(.userPresenceRequired) { _ = try register(b, expecting: expectation(challenge)) }
        var required = expectation(challenge, uv: .required)
        required.conditional = true
        expectRefusal(.userVerificationRequired) { _ = try register(b, expecting: required) }
        // The named check, alone.
        let authData = try AuthenticatorData(bytes: b.authData.bytes)
        #expect(throws: WebAuthnError.self) { try RegistrationVerifier.checkUserPresence(authData, conditional: false) }
        try RegistrationVerifier.checkUserPresence(authData, conditional: true)
    }

    @Test func prfEnabledIsReadFromTheExtensionResults() throws {
        let b = try builder()
        #expect(try register(b, expecting: expectation(challenge)).prfEnabled == false)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(b.json())) as? [String: Any])
        object["clientExtensionResults"] = ["prf": ["enabled": true, "results": ["first": "AAAA"]]]
        let json = [UInt8](try JSONSerialization.data(withJSONObject: object))
        let verified = try RegistrationVerifier(rp: makeRP()).verify(
            try RegistrationResponse(json: json), expecting: expectation(challenge), now: fixedNow)
        #expect(verified.prfEnabled)
    }

    // §7.1 step 16
    @Test func requiresUserVerificationOnlyWhenRequired() throws {
        var b = try builder()
        b.authData.flags &= ~AuthDataBuilder.uv
        expectRefusal(.userVerificationRequired) { _ = try register(b, expecting: expectation(challenge, uv: .required)) }
        let result = try register(b, expecting: expectation(challenge, uv: .preferred))
        #expect(!result.userVerified)
    }

    // §7.1 step 17
    @Test func refusesBackupStateWithoutEligibility() throws {
        var b = try builder()
        b.authData.flags |= AuthDataBuilder.bs
        expectRefusal(.invalidRequest) { _ = try register(b, expecting: expectation(challenge)) }
        b.authData.flags |= AuthDataBuilder.be
        let result = try register(b, expecting: expectation(challenge))
        #expect(result.backupEligible && result.backupState)
    }

    // §7.1 step 20
    @Test func refusesAlgorithmNotOffered() throws {
        let b = try builder(.rs256)
        expectRefusal(.unsupportedAlgorithm) { _ = try register(b, expecting: expectation(challenge, algorithms: [.es256])) }
    }

    // RS1 is verified (TPM) but not offered unless the RP asks for it.
    @Test func rs1IsNotOfferedByDefault() throws {
        #expect(!COSEAlgorithm.defaultOffered.contains(.rs1))
        let b = try builder(.rs1)
        expectRefusal(.unsupportedAlgorithm) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // EdDSA names either curve; the fully-specified identifiers fix theirs.
    @Test func edwardsKeysMustFitTheirAlgorithm() throws {
        let ed448 = try PrivateKey.generateEdwards(.ed448)
        var b = try builder(.ed25519)
        b.authData.coseKey = COSEKeyEncoder.encode(ed448.publicKey, algorithm: COSEAlgorithm.ed25519.rawValue)
        expectRefusal(.invalidRequest) { _ = try register(b, expecting: expectation(challenge)) }
        let ed25519 = try PrivateKey.generateEdwards(.ed25519)
        b.authData.coseKey = COSEKeyEncoder.encode(ed25519.publicKey, algorithm: COSEAlgorithm.ed448.rawValue)
        expectRefusal(.invalidRequest) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // §7.1 step 20: an algorithm this server does not know at all.
    @Test func refusesUnknownAlgorithm() throws {
        var b = try builder()
        b.authData.coseKey = CBORValue.map([
            CBORMapEntry(key: .int(1), value: .int(2)), CBORMapEntry(key: .int(3), value: .int(-260)),
        ]).encoded()
        expectRefusal(.unsupportedAlgorithm) {
            _ = try register(b, expecting: RegistrationExpectation(challenge: challenge, userVerification: .preferred, algorithms: [-7, -260]))
        }
    }

    // §7.1 step 25
    @Test func refusesCredentialIDsOver1023Bytes() throws {
        let long = try TestCredential(id: SecureRandom.bytes(1024))
        let b = RegistrationBuilder(credential: long, rpID: rpID, origin: origin, challenge: challenge)
        expectRefusal(.invalidRequest) { _ = try register(b, expecting: expectation(challenge)) }
        let limit = try TestCredential(id: SecureRandom.bytes(1023))
        _ = try register(RegistrationBuilder(credential: limit, rpID: rpID, origin: origin, challenge: challenge), expecting: expectation(challenge))
    }

    @Test func refusesRawIDOtherThanTheAttestedCredential() throws {
        var b = try builder()
        b.rawID = SecureRandom.bytes(32)
        expectRefusal(.invalidRequest) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // §7.1 step 21
    @Test func refusesUnknownFormat() throws {
        var b = try builder()
        b.format = "Packed"   // case-sensitive match
        expectRefusal(.invalidAttestation) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // §8.7: none has an empty attStmt.
    @Test func refusesNoneWithStatement() throws {
        var b = try builder()
        b.statement = .map([CBORMapEntry(key: .text("sig"), value: .bytes([1]))])
        expectRefusal(.invalidAttestation) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // §8.2 self attestation: alg equals the credential's, signature verifies.
    @Test func refusesSelfAttestationWithOtherAlgOrBadSignature() throws {
        var b = try builder()
        b.format = "packed"
        let authBytes = b.authData.bytes
        let sig = try b.credential.sign(authBytes + Digest.sha256.hash(b.clientData.bytes))
        b.statement = .map([CBORMapEntry(key: .text("alg"), value: .int(-35)), CBORMapEntry(key: .text("sig"), value: .bytes(sig))])
        expectRefusal(.invalidAttestation) { _ = try register(b, expecting: expectation(challenge)) }
        var flipped = sig
        flipped[flipped.count - 1] ^= 1
        b.statement = .map([CBORMapEntry(key: .text("alg"), value: .int(-7)), CBORMapEntry(key: .text("sig"), value: .bytes(flipped))])
        expectRefusal(.invalidAttestation) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // Parsing (steps 5–6, 13): malformed input is invalid_request.
    @Test func refusesMalformedParts() throws {
        var noAT = try builder()
        noAT.authData.flags &= ~AuthDataBuilder.at
        expectRefusal(.invalidRequest) { _ = try register(noAT, expecting: expectation(challenge)) }

        var trailing = try builder()
        trailing.authData.trailing = [0]
        expectRefusal(.invalidRequest) { _ = try register(trailing, expecting: expectation(challenge)) }

        var edWithoutExtensions = try builder()
        edWithoutExtensions.authData.flags |= AuthDataBuilder.ed
        expectRefusal(.invalidRequest) { _ = try register(edWithoutExtensions, expecting: expectation(challenge)) }

        expectRefusal(.invalidRequest) { _ = try RegistrationResponse(json: Array("{\"id\":1}".utf8)) }
        expectRefusal(.invalidRequest) { _ = try RegistrationResponse(json: Array("not json".utf8)) }
    }

    @Test func acceptsAuthenticatorExtensions() throws {
        var b = try builder()
        b.authData.flags |= AuthDataBuilder.ed
        b.authData.extensions = CBORValue.map([CBORMapEntry(key: .text("credProtect"), value: .int(2))]).encoded()
        _ = try register(b, expecting: expectation(challenge))
    }

    // COSE: the key must match its algorithm (WebAuthn L3 §5.8.5).
    @Test func refusesKeyOnTheWrongCurve() throws {
        let p384 = try PrivateKey.generateEC(.p384)
        var b = try builder()
        b.authData.coseKey = COSEKeyEncoder.encode(p384.publicKey, algorithm: -7)
        expectRefusal(.invalidRequest) { _ = try register(b, expecting: expectation(challenge)) }
    }

    @Test func refusesKeyOffTheCurve() throws {
        var b = try builder()
        let (x, y) = b.credential.privateKey.publicKey.ecCoordinates!
        var badY = y
        badY[31] ^= 1
        b.authData.coseKey = CBORValue.map([
            CBORMapEntry(key: .int(1), value: .int(2)), CBORMapEntry(key: .int(3), value: .int(-7)),
            CBORMapEntry(key: .int(-1), value: .int(1)), CBORMapEntry(key: .int(-2), value: .bytes(x)),
            CBORMapEntry(key: .int(-3), value: .bytes(badY)),
        ]).encoded()
        expectRefusal(.invalidRequest) { _ = try register(b, expecting: expectation(challenge)) }
    }

    // Native clients send standard base64, padded.
    @Test func acceptsStandardBase64() throws {
        var b = try builder()
        b.base64 = { Data($0).base64EncodedString() }
        _ = try register(b, expecting: expectation(challenge))
    }

    @Test func reportListsEveryStepInOrder() throws {
        let b = try builder()
        var report = VerificationReport()
        _ = try RegistrationVerifier(rp: makeRP()).verify(
            RegistrationResponse(json: b.json()), expecting: expectation(challenge), now: fixedNow, report: &report)
        #expect(report.steps.map(\.section) == [
            "7.1.7", "7.1.8", "7.1.9", "7.1.10-11", "7.1.14", "7.1.15", "7.1.16", "7.1.17", "7.1.20", "7.1.21",
            "7.1.22", "7.1.23-24", "7.1.24", "7.1.24", "7.1.24", "7.1.25",
        ])
        #expect(report.steps.allSatisfy { $0.passed })
    }
}
