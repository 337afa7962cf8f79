import Foundation
@testable import PasskeyAccounts
import PasskeyStorage
import Testing

/// The claims that say how the user signed in (docs/contracts/identity.md, "Tokens and claims"): `amr` per
/// RFC 8176 and `acr`, from the session and the passkey that opened it, and which classes
/// satisfy a requirement.
@Suite struct OpenIDClaimsTests {
    static func credential(backupEligible: Bool, trusted: Bool) -> CredentialRecord {
        CredentialRecord(
            id: [1], userHandle: [2], publicKey: [], algorithm: -7, signCount: 0, transports: [], backupEligible: backupEligible,
            backupState: backupEligible, uvInitialized: true, aaguid: Array(repeating: 0, count: 16), attestationFormat: trusted ? "packed" : "none",
            attestationType: trusted ? "basic" : "none", attestationTrusted: trusted, authenticatorName: nil, name: "k",
            createdAt: Date(), lastUsedAt: nil, possiblyCloned: false)
    }

    static func session(via: String? = nil, verified: Bool?) -> SessionRecord {
        SessionRecord(tokenHash: [3], userHandle: [2], createdAt: Date(), expiresAt: Date(), credentialID: via == nil ? [1] : nil, via: via, userVerified: verified)
    }

    @Test func amrNamesTheKeyTheUserAndTheSecondFactor() {
        let deviceBound = Self.credential(backupEligible: false, trusted: false)
        let synced = Self.credential(backupEligible: true, trusted: false)
        #expect(OpenIDProvider.amr(Self.session(verified: true), credential: deviceBound) == ["hwk", "user", "mfa"])
        #expect(OpenIDProvider.amr(Self.session(verified: false), credential: deviceBound) == ["hwk", "user"])
        #expect(OpenIDProvider.amr(Self.session(verified: true), credential: synced) == ["swk", "user", "mfa"])
        #expect(OpenIDProvider.amr(Self.session(verified: nil), credential: synced) == ["swk", "user"])
        #expect(OpenIDProvider.amr(Self.session(via: "push:d1", verified: true), credential: nil) == ["swk", "user", "mfa"])
        #expect(OpenIDProvider.amr(Self.session(via: "push:d1", verified: false), credential: nil) == ["swk", "user"])
        #expect(OpenIDProvider.amr(Self.session(via: "apple", verified: nil), credential: nil) == ["fed"])
    }

    @Test func acrIsPhrhOnlyForADeviceBoundAttestedPasskey() {
        #expect(OpenIDProvider.acr(Self.credential(backupEligible: false, trusted: true)) == "phrh")
        #expect(OpenIDProvider.acr(Self.credential(backupEligible: false, trusted: false)) == "phr")
        #expect(OpenIDProvider.acr(Self.credential(backupEligible: true, trusted: true)) == "phr")
        #expect(OpenIDProvider.acr(nil) == nil)
    }

    @Test func aStrongerClassSatisfiesAWeakerRequirementNeverTheReverse() {
        #expect(OpenIDProvider.satisfies("phrh", required: "phrh"))
        #expect(OpenIDProvider.satisfies("phrh", required: "phr"))
        #expect(OpenIDProvider.satisfies("phr", required: "phr"))
        #expect(!OpenIDProvider.satisfies("phr", required: "phrh"))
        #expect(!OpenIDProvider.satisfies(nil, required: "phr"))
        #expect(!OpenIDProvider.satisfies("phrh", required: "other"))
    }

    @Test func theSessionIDIsOpaqueAndStable() {
        let hash = Array(repeating: UInt8(7), count: 32)
        #expect(OpenIDProvider.sessionID(hash) == OpenIDProvider.sessionID(hash))
        #expect(OpenIDProvider.sessionID(hash) != OpenIDProvider.sessionID(Array(repeating: 8, count: 32)))
        #expect(OpenIDProvider.sessionID(hash).utf8.count == 22)
    }
}
