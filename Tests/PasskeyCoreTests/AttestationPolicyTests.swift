import Foundation
import PasskeyCBOR
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import Testing

/// §7.1 steps 23–24 with metadata: anchors per AAGUID from the BLOB, the authenticator's status,
/// the trust requirement and the AAGUID allow/deny lists; each check as a function and inside a
/// whole registration.
@Suite struct AttestationPolicyTests {
    let challenge = SecureRandom.bytes(32)

    func rp(metadata: MetadataBLOB? = nil, policy: AttestationPolicy = AttestationPolicy()) throws -> RelyingParty {
        try RelyingParty(
            id: rpID, name: "Example", origins: [origin],
            trustAnchors: MetadataTrustAnchors(base: try BundledTrustAnchors(), metadata: metadata),
            metadata: metadata, attestationPolicy: policy)
    }

    /// A packed basic attestation by `signer` for the model `aaguid`.
    func packed(_ signer: PackedAttestationSigner, aaguid: [UInt8]) throws -> RegistrationBuilder {
        var b = RegistrationBuilder(credential: try TestCredential(), rpID: rpID, origin: origin, challenge: challenge)
        b.authData.aaguid = aaguid
        b.format = "packed"
        b.packedSigner = signer
        return b
    }

    /// `none` attestation claiming the model `aaguid`.
    func none(aaguid: [UInt8]) throws -> RegistrationBuilder {
        var b = RegistrationBuilder(credential: try TestCredential(), rpID: rpID, origin: origin, challenge: challenge)
        b.authData.aaguid = aaguid
        return b
    }

    func refusal(_ body: () throws -> Void) -> WebAuthnError? {
        do {
            try body()
            return nil
        } catch let error as WebAuthnError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    // MARK: Anchors per AAGUID

    @Test func metadataAnchorsApplyToTheirModelOnly() throws {
        let expected = try MDSFixtures.expected()
        let blob = try MDSFixtures.blob()
        let extra = try MDSFixtures.certificate("other-root.pem")
        let anchors = MetadataTrustAnchors(base: try BundledTrustAnchors(), additional: [extra], metadata: blob)
        let attestationRoot = try MDSFixtures.certificate("attestation-root.pem").derEncoded

        let good = anchors.anchors(format: "packed", aaguid: try expected.aaguid("good")).map(\.derEncoded)
        #expect(good == [extra.derEncoded, attestationRoot])
        // Another model, or none listed: only the anchors for every model.
        #expect(anchors.anchors(format: "packed", aaguid: try expected.aaguid("plain")).map(\.derEncoded) == [extra.derEncoded])
        #expect(anchors.anchors(format: "packed", aaguid: Array(repeating: 0, count: 16)).map(\.derEncoded) == [extra.derEncoded])
        // Per format: the bundled roots come first.
        let apple = anchors.anchors(format: "apple", aaguid: try expected.aaguid("good"))
        #expect(apple.count == 3)
        #expect(apple.first?.subject["CN"] == ["Apple WebAuthn Root CA"])
        // Without metadata.
        let plain = MetadataTrustAnchors(base: StaticTrustAnchors())
        #expect(plain.anchors(format: "packed", aaguid: try expected.aaguid("good")).isEmpty)
    }

    @Test func aPackedChainIsTrustedThroughItsMetadataRoot() throws {
        let expected = try MDSFixtures.expected()
        let b = try packed(try MDSFixtures.goodSigner(), aaguid: try expected.aaguid("good"))
        let result = try register(b, rp: try rp(metadata: try MDSFixtures.blob()), expecting: expectation(challenge))
        #expect(result.format == "packed")
        #expect(result.attestationType == .basic)
        #expect(result.attestationTrusted)
        #expect(result.authenticatorName == expected.description("good"))

        // Without the BLOB the same statement verifies but is not trusted, and has no name.
        let untrusted = try register(b, rp: try rp(), expecting: expectation(challenge))
        #expect(untrusted.attestationType == .basic)
        #expect(!untrusted.attestationTrusted)
        #expect(untrusted.authenticatorName == nil)
    }

    // The model name is an AAGUID-based fact: without a chain to the model's own metadata roots
    // the AAGUID is a claim, and a claimed "YubiKey" is no YubiKey.
    @Test func theModelNameNeedsAnAttestedAAGUID() throws {
        let expected = try MDSFixtures.expected()
        let claimed = try register(try none(aaguid: try expected.aaguid("plain")), rp: try rp(metadata: try MDSFixtures.blob()), expecting: expectation(challenge))
        #expect(claimed.authenticatorName == nil)
        #expect(!claimed.aaguidAttested)
        #expect(!claimed.attestationTrusted)
        let attested = try register(
            try packed(try MDSFixtures.goodSigner(), aaguid: try expected.aaguid("good")), rp: try rp(metadata: try MDSFixtures.blob()),
            expecting: expectation(challenge))
        #expect(attested.authenticatorName == expected.description("good"))
        #expect(attested.aaguidAttested)
    }

    @Test func theChainMustReachTheModelsOwnRoot() throws {
        // The GOOD leaf chains to the attestation root, which the BLOB lists for GOOD and REVOKED
        // only; the leaf's AAGUID extension names GOOD, so claiming PLAIN fails in the format.
        let expected = try MDSFixtures.expected()
        let b = try packed(try MDSFixtures.goodSigner(), aaguid: try expected.aaguid("plain"))
        expectRefusal(.invalidAttestation) { _ = try register(b, rp: try rp(metadata: try MDSFixtures.blob()), expecting: expectation(challenge)) }
    }

    // MARK: Status (FIDO MDS3 §3.1.4)

    @Test func aRevokedModelIsRefused() throws {
        let expected = try MDSFixtures.expected()
        let blob = try MDSFixtures.blob()
        let b = try packed(try MDSFixtures.revokedSigner(), aaguid: try expected.aaguid("revoked"))
        let error = refusal { _ = try register(b, rp: try rp(metadata: blob), expecting: expectation(challenge)) }
        #expect(error?.code == .invalidAttestation)
        #expect(error?.reason.contains("REVOKED") == true)
        #expect(error?.reason.contains(expected.revokedSince) == true)
        // Claiming the model without attestation is refused too.
        let claimed = refusal { _ = try register(try none(aaguid: try expected.aaguid("revoked")), rp: try rp(metadata: blob), expecting: expectation(challenge)) }
        #expect(claimed?.reason.contains("REVOKED") == true)
        // Without metadata nothing is known about the model.
        _ = try register(b, rp: try rp(), expecting: expectation(challenge))
    }

    @Test(arguments: AuthenticatorStatus.compromised.sorted())
    func everyCompromisedStatusIsRefused(_ status: String) throws {
        let entry = MetadataEntry(aaguid: Array(repeating: 7, count: 16), description: "Model X", attestationRootCertificates: [],
                                  statusReports: [try StatusReport(status: "FIDO_CERTIFIED_L1", effectiveDateText: "2025-01-01"),
                                                  try StatusReport(status: status, effectiveDateText: "2025-03-01")])
        let error = refusal { try AttestationPolicy.checkAuthenticatorStatus(entry, now: MDSFixtures.now) }
        #expect(error?.code == .invalidAttestation)
        #expect(error?.reason.contains(status) == true)
        #expect(error?.reason.contains("Model X") == true)
    }

    @Test(arguments: ["FIDO_CERTIFIED", "FIDO_CERTIFIED_L1", "NOT_FIDO_CERTIFIED", "UPDATE_AVAILABLE", "SELF_ASSERTION_SUBMITTED"])
    func otherStatusesPass(_ status: String) throws {
        let entry = MetadataEntry(aaguid: Array(repeating: 7, count: 16), description: nil, attestationRootCertificates: [],
                                  statusReports: [try StatusReport(status: status, effectiveDateText: "2025-03-01")])
        try AttestationPolicy.checkAuthenticatorStatus(entry, now: MDSFixtures.now)
        try AttestationPolicy.checkAuthenticatorStatus(nil, now: MDSFixtures.now)
    }

    // MARK: Trust requirement (§7.1 step 24)

    @Test func checkTrustworthyAsAFunction() throws {
        try AttestationPolicy(trust: .any).checkTrustworthy(false, format: "none", type: .none)
        try AttestationPolicy(trust: .trusted).checkTrustworthy(true, format: "packed", type: .basic)
        let error = refusal { try AttestationPolicy(trust: .trusted).checkTrustworthy(false, format: "packed", type: .self) }
        #expect(error?.code == .invalidAttestation)
    }

    @Test func trustedPolicyRefusesEverythingWithoutAVerifiedChain() throws {
        let expected = try MDSFixtures.expected()
        let blob = try MDSFixtures.blob()
        let trusted = try rp(metadata: blob, policy: AttestationPolicy(trust: .trusted))
        // A chain to the model's metadata root passes.
        let good = try register(try packed(try MDSFixtures.goodSigner(), aaguid: try expected.aaguid("good")), rp: trusted, expecting: expectation(challenge))
        #expect(good.attestationTrusted)
        // none, self attestation, and a chain to no anchor are refused.
        expectRefusal(.invalidAttestation) { _ = try register(try none(aaguid: try expected.aaguid("good")), rp: trusted, expecting: expectation(challenge)) }
        var selfAttested = try none(aaguid: try expected.aaguid("good"))
        selfAttested.format = "packed"
        expectRefusal(.invalidAttestation) { _ = try register(selfAttested, rp: trusted, expecting: expectation(challenge)) }
        let withoutMetadata = try rp(policy: AttestationPolicy(trust: .trusted))
        expectRefusal(.invalidAttestation) {
            _ = try register(try packed(try MDSFixtures.goodSigner(), aaguid: try expected.aaguid("good")), rp: withoutMetadata, expecting: expectation(challenge))
        }
        // The same under `any` is accepted and recorded as untrusted.
        let any = try register(selfAttested, rp: try rp(metadata: blob), expecting: expectation(challenge))
        #expect(!any.attestationTrusted)
    }

    // MARK: AAGUID lists

    @Test func allowAndDenyListsAsAFunction() throws {
        let a = [UInt8](repeating: 0xaa, count: 16), b = [UInt8](repeating: 0xbb, count: 16)
        try AttestationPolicy().checkAAGUIDAllowed(a, attested: false)
        try AttestationPolicy(allowedAAGUIDs: [a]).checkAAGUIDAllowed(a, attested: true)
        try AttestationPolicy(deniedAAGUIDs: [b]).checkAAGUIDAllowed(a, attested: false)
        let notAllowed = refusal { try AttestationPolicy(allowedAAGUIDs: [a]).checkAAGUIDAllowed(b, attested: true) }
        #expect(notAllowed?.code == .invalidAttestation)
        #expect(notAllowed?.reason.contains(UUIDString.format(b)) == true)
        // An allowed AAGUID that is only claimed is refused.
        let claimed = refusal { try AttestationPolicy(allowedAAGUIDs: [a]).checkAAGUIDAllowed(a, attested: false) }
        #expect(claimed?.code == .invalidAttestation)
        #expect(claimed?.reason.contains("only claimed") == true)
        // A claimed AAGUID is enough to be refused by the deny list.
        let denied = refusal { try AttestationPolicy(deniedAAGUIDs: [a]).checkAAGUIDAllowed(a, attested: false) }
        #expect(denied?.code == .invalidAttestation)
        // Denied wins over allowed.
        #expect(refusal { try AttestationPolicy(allowedAAGUIDs: [a], deniedAAGUIDs: [a]).checkAAGUIDAllowed(a, attested: true) } != nil)
    }

    @Test func allowAndDenyListsInARegistration() throws {
        let expected = try MDSFixtures.expected()
        let good = try expected.aaguid("good"), plain = try expected.aaguid("plain")
        let allowGood = try rp(metadata: try MDSFixtures.blob(), policy: AttestationPolicy(allowedAAGUIDs: [good]))
        // Admitted only with a chain to the model's own metadata roots…
        let admitted = try register(try packed(try MDSFixtures.goodSigner(), aaguid: good), rp: allowGood, expecting: expectation(challenge))
        #expect(admitted.aaguidAttested)
        // …not on the authenticator's word (none), whatever AAGUID it claims.
        expectRefusal(.invalidAttestation) { _ = try register(try none(aaguid: good), rp: allowGood, expecting: expectation(challenge)) }
        expectRefusal(.invalidAttestation) { _ = try register(try none(aaguid: plain), rp: allowGood, expecting: expectation(challenge)) }
        let denyGood = try rp(policy: AttestationPolicy(deniedAAGUIDs: [good]))
        expectRefusal(.invalidAttestation) { _ = try register(try none(aaguid: good), rp: denyGood, expecting: expectation(challenge)) }
        _ = try register(try none(aaguid: plain), rp: denyGood, expecting: expectation(challenge))
    }

    @Test func thePolicyStepsAreReported() throws {
        let expected = try MDSFixtures.expected()
        let b = try packed(try MDSFixtures.goodSigner(), aaguid: try expected.aaguid("good"))
        var report = VerificationReport()
        let response = try RegistrationResponse(json: b.json())
        _ = try RegistrationVerifier(rp: try rp(metadata: try MDSFixtures.blob(), policy: AttestationPolicy(trust: .trusted)))
            .verify(response, expecting: expectation(challenge), now: fixedNow, report: &report)
        let sections = report.steps.map(\.section)
        let assessed = try #require(sections.firstIndex(of: "7.1.23-24"))
        #expect(Array(sections[(assessed + 1)...(assessed + 3)]) == ["7.1.24", "7.1.24", "7.1.24"])
        #expect(report.steps.allSatisfy { $0.passed })
    }
}
