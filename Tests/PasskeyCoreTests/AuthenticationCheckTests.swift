import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import Testing

/// One test per §7.2 check, each flipping one field of an otherwise valid assertion.
@Suite struct AuthenticationCheckTests {
    let challenge = SecureRandom.bytes(32)

    struct Fixture {
        var credential: TestCredential
        var state: CredentialState
    }

    func fixture(_ algorithm: COSEAlgorithm = .es256, storedCount: UInt32 = 5, backupEligible: Bool = false) throws -> Fixture {
        let credential = try TestCredential(algorithm: algorithm)
        let key = try COSEKey(bytes: credential.coseKey)
        return Fixture(credential: credential, state: CredentialState(
            id: credential.id, userHandle: credential.userHandle, publicKey: key, signCount: storedCount, backupEligible: backupEligible))
    }

    func assertion(_ f: Fixture, signCount: UInt32 = 6) -> AssertionBuilder {
        AssertionBuilder(credential: f.credential, rpID: rpID, origin: origin, challenge: challenge, signCount: signCount)
    }

    func verify(
        _ builder: AssertionBuilder, _ f: Fixture, uv: UserVerificationRequirement = .preferred,
        allow: [[UInt8]]? = nil, identified: [UInt8]? = nil
    ) throws -> VerifiedAuthentication {
        let response = try AuthenticationResponse(json: builder.json())
        let expectation = AuthenticationExpectation(
            challenge: challenge, userVerification: uv, allowCredentialIDs: allow ?? [], identifiedUserHandle: identified)
        return try AuthenticationVerifier(rp: makeRP()).verify(response, expecting: expectation, credential: f.state)
    }

    @Test(arguments: COSEAlgorithm.allCases)
    func acceptsEveryAlgorithm(_ algorithm: COSEAlgorithm) throws {
        let f = try fixture(algorithm)
        let result = try verify(assertion(f), f)
        #expect(result.signCount == 6)
        #expect(result.userVerified)
        #expect(result.credentialID == f.credential.id)
    }

    // §7.2 step 5
    @Test func refusesCredentialOutsideAllowCredentials() throws {
        let f = try fixture()
        expectRefusal(.unknownCredential) { _ = try verify(assertion(f), f, allow: [SecureRandom.bytes(32)]) }
        _ = try verify(assertion(f), f, allow: [f.credential.id])
    }

    // §7.2 step 6, identified user: another user's credential is not theirs (YSA-2026-02).
    @Test func refusesAnotherUsersCredentialInANamedCeremony() throws {
        let f = try fixture()
        expectRefusal(.unknownCredential) { _ = try verify(assertion(f), f, identified: SecureRandom.bytes(32)) }
        var b = assertion(f)
        b.userHandle = SecureRandom.bytes(32)
        expectRefusal(.userHandleMismatch) { _ = try verify(b, f, identified: f.credential.userHandle) }
        _ = try verify(assertion(f), f, identified: f.credential.userHandle)
    }

    // §7.2 step 6, usernameless: userHandle present and the credential's owner.
    @Test func usernamelessAssertionNeedsTheOwnersUserHandle() throws {
        let f = try fixture()
        var missing = assertion(f)
        missing.userHandle = nil
        expectRefusal(.userHandleMismatch) { _ = try verify(missing, f) }
        var other = assertion(f)
        other.userHandle = SecureRandom.bytes(32)
        expectRefusal(.userHandleMismatch) { _ = try verify(other, f) }
    }

    @Test func refusesARecordThatIsNotTheOneNamedByRawID() throws {
        let f = try fixture()
        var b = assertion(f)
        b.rawID = SecureRandom.bytes(32)
        expectRefusal(.unknownCredential) { _ = try verify(b, f) }
    }

    // §7.2 step 10
    @Test func refusesWrongType() throws {
        let f = try fixture()
        var b = assertion(f)
        b.clientData.type = "webauthn.create"
        expectRefusal(.typeMismatch) { _ = try verify(b, f) }
    }

    // §7.2 step 11
    @Test func refusesOtherChallenge() throws {
        let f = try fixture()
        var b = assertion(f)
        b.clientData.challenge = Base64URL.encode(SecureRandom.bytes(32))
        expectRefusal(.unknownChallenge) { _ = try verify(b, f) }
    }

    // §7.2 step 12
    @Test func refusesOtherOrigin() throws {
        let f = try fixture()
        var b = assertion(f)
        b.clientData.origin = "https://example.org.evil.com"
        expectRefusal(.originMismatch) { _ = try verify(b, f) }
    }

    // §7.2 steps 13–14
    @Test func refusesCrossOriginAndTopOrigin() throws {
        let f = try fixture()
        var b = assertion(f)
        b.clientData.crossOrigin = true
        expectRefusal(.originMismatch) { _ = try verify(b, f) }
        b.clientData.crossOrigin = false
        b.clientData.topOrigin = "https://example.org"
        expectRefusal(.originMismatch) { _ = try verify(b, f) }
    }

    // §7.2 step 15
    @Test func refusesOtherRPIDHash() throws {
        let f = try fixture()
        var b = assertion(f)
        b.authData.rpIDHash = Digest.sha256.hash(Array("example.com".utf8))
        expectRefusal(.rpIdMismatch) { _ = try verify(b, f) }
    }

    // §7.2 step 16
    @Test func refusesMissingUserPresence() throws {
        let f = try fixture()
        var b = assertion(f)
        b.authData.flags = AuthDataBuilder.uv
        expectRefusal(.userPresenceRequired) { _ = try verify(b, f) }
    }

    // §7.2 step 17
    @Test func requiresUserVerificationWhenRequired() throws {
        let f = try fixture()
        var b = assertion(f)
        b.authData.flags = AuthDataBuilder.up
        expectRefusal(.userVerificationRequired) { _ = try verify(b, f, uv: .required) }
        #expect(try verify(b, f, uv: .preferred).userVerified == false)
    }

    // §7.2 step 18
    @Test func refusesBackupStateWithoutEligibility() throws {
        let f = try fixture()
        var b = assertion(f)
        b.authData.flags |= AuthDataBuilder.bs
        expectRefusal(.invalidRequest) { _ = try verify(b, f) }
    }

    // §7.2 step 19: BE of a stored credential never changes, in either direction.
    @Test func refusesChangedBackupEligibility() throws {
        let f = try fixture()
        var b = assertion(f)
        b.authData.flags |= AuthDataBuilder.be
        expectRefusal(.invalidRequest) { _ = try verify(b, f) }
        let synced = try fixture(backupEligible: true)
        expectRefusal(.invalidRequest) { _ = try verify(assertion(synced), synced) }
        var ok = assertion(synced)
        ok.authData.flags |= AuthDataBuilder.be | AuthDataBuilder.bs
        #expect(try verify(ok, synced).backupState)
    }

    // §7.2 step 22
    @Test func refusesBadSignature() throws {
        let f = try fixture()
        var b = assertion(f)
        var sig = try f.credential.sign(b.authData.bytes + Digest.sha256.hash(b.clientData.bytes))
        sig[sig.count - 2] ^= 0x01
        b.signature = sig
        expectRefusal(.invalidSignature) { _ = try verify(b, f) }
    }

    // §7.2 step 22: the signature must cover this clientDataJSON.
    @Test func refusesSignatureOverOtherClientData() throws {
        let f = try fixture()
        var b = assertion(f)
        var other = b.clientData
        other.origin = "https://other.example"
        b.signature = try f.credential.sign(b.authData.bytes + Digest.sha256.hash(other.bytes))
        expectRefusal(.invalidSignature) { _ = try verify(b, f) }
    }

    // CVE-2022-21449: r = 0, s = 0 verifies nothing.
    @Test(arguments: [COSEAlgorithm.es256, .es384, .es512])
    func refusesZeroECDSASignature(_ algorithm: COSEAlgorithm) throws {
        let f = try fixture(algorithm)
        var b = assertion(f)
        b.signature = [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00]
        expectRefusal(.invalidSignature) { _ = try verify(b, f) }
    }

    // §7.2 step 23
    @Test(arguments: [(UInt32(5), UInt32(0)), (5, 5), (5, 4), (0, 0), (0, 1), (5, 6), (UInt32.max - 1, UInt32.max)])
    func signCountRules(stored: UInt32, received: UInt32) throws {
        let f = try fixture(storedCount: stored)
        let b = assertion(f, signCount: received)
        if (stored == 0 && received == 0) || received > stored {
            #expect(try verify(b, f).signCount == received)
        } else {
            expectRefusal(.counterRegression) { _ = try verify(b, f) }
        }
    }

    // A counter regression is only reported for an otherwise valid signature, so junk cannot
    // mark a credential as cloned.
    @Test func badSignatureWinsOverCounter() throws {
        let f = try fixture(storedCount: 5)
        var b = assertion(f, signCount: 1)
        b.signature = [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]
        expectRefusal(.invalidSignature) { _ = try verify(b, f) }
    }

    @Test func refusesMalformedAuthenticatorData() throws {
        let f = try fixture()
        var b = assertion(f)
        b.authData.trailing = [1, 2]
        expectRefusal(.invalidRequest) { _ = try verify(b, f) }
        var short = assertion(f)
        short.authData.rpIDHash = [1, 2, 3]
        expectRefusal(.invalidRequest) { _ = try verify(short, f) }
    }
}
