public import Foundation
public import PasskeyCrypto

/// What the server issued for one authentication ceremony.
public struct AuthenticationExpectation: Sendable {
    public var challenge: [UInt8]
    public var userVerification: UserVerificationRequirement
    /// allowCredentials as sent; empty for a discoverable-credential ("usernameless") ceremony.
    public var allowCredentialIDs: [[UInt8]]
    /// The account named before the ceremony started, if any.
    public var identifiedUserHandle: [UInt8]?
    /// Issued challenges shorter than this are refused (16 bytes, WebAuthn §13.4.3).
    public var minimumChallengeLength = 16

    public init(challenge: [UInt8], userVerification: UserVerificationRequirement, allowCredentialIDs: [[UInt8]], identifiedUserHandle: [UInt8]?) {
        self.challenge = challenge
        self.userVerification = userVerification
        self.allowCredentialIDs = allowCredentialIDs
        self.identifiedUserHandle = identifiedUserHandle
    }
}

/// The credential record as stored, as far as §7.2 needs it. The offline verifier may not know
/// the id or the owner's user handle: then the steps that need them are skipped and reported so.
public struct CredentialState: Sendable {
    public var id: [UInt8]?
    public var userHandle: [UInt8]?
    public var publicKey: COSEKey
    public var signCount: UInt32
    /// nil: unknown, so the BE comparison of step 19 is skipped.
    public var backupEligible: Bool?

    public init(id: [UInt8]?, userHandle: [UInt8]?, publicKey: COSEKey, signCount: UInt32, backupEligible: Bool?) {
        self.id = id
        self.userHandle = userHandle
        self.publicKey = publicKey
        self.signCount = signCount
        self.backupEligible = backupEligible
    }
}

/// An assertion that passed every check: the values to store (§7.2 step 25).
public struct VerifiedAuthentication: Sendable {
    public let credentialID: [UInt8]
    public let signCount: UInt32
    public let userVerified: Bool
    public let backupEligible: Bool
    public let backupState: Bool
}

/// WebAuthn Level 3 §7.2 "Verifying an Authentication Assertion", steps 5–25. The caller looks
/// the credential record up by rawId (an unknown id is `unknown_credential`) and stores the
/// result; a `counter_regression` must not update the record (only mark it possibly cloned).
public struct AuthenticationVerifier: Sendable {
    public let rp: RelyingParty

    public init(rp: RelyingParty) {
        self.rp = rp
    }

    public func verify(
        _ response: AuthenticationResponse, expecting expectation: AuthenticationExpectation, credential: CredentialState
    ) throws -> VerifiedAuthentication {
        var report = VerificationReport()
        return try verify(response, expecting: expectation, credential: credential, report: &report)
    }

    public func verify(
        _ response: AuthenticationResponse, expecting expectation: AuthenticationExpectation, credential: CredentialState,
        report: inout VerificationReport
    ) throws -> VerifiedAuthentication {
        let clientData = response.clientData
        let authData = response.authenticatorData

        try report.run("7.2.5", "credential is in allowCredentials") {
            try Self.checkAllowedCredential(response.credentialID, allowed: expectation.allowCredentialIDs, credential: credential)
        }
        if let owner = credential.userHandle {
            try report.run("7.2.6", "userHandle belongs to the credential's owner") {
                try Self.checkUserHandle(response.userHandle, identifiedUser: expectation.identifiedUserHandle, owner: owner)
            }
        } else {
            report.skip("7.2.6", "userHandle belongs to the credential's owner", because: "the owner's user handle is not known")
        }
        // Steps 7–9 (UTF-8 decode and parse of clientDataJSON) ran when the response was
        // decoded: malformed input is `invalid_request` before any challenge is spent.
        try report.run("7.2.10", "C.type is webauthn.get") {
            try CeremonyChecks.checkType(clientData, expected: "webauthn.get")
        }
        try report.run("7.2.11", "C.challenge is the issued challenge") {
            try CeremonyChecks.checkChallenge(clientData, expected: expectation.challenge, minimumLength: expectation.minimumChallengeLength)
        }
        try report.run("7.2.12", "C.origin is an allowed origin") {
            try CeremonyChecks.checkOrigin(clientData, rp: rp)
        }
        try report.run("7.2.13-14", "crossOrigin / topOrigin as the RP allows") {
            try CeremonyChecks.checkCrossOrigin(clientData, rp: rp)
        }
        try report.run("7.2.15", "rpIdHash is SHA-256 of the RP ID") {
            try CeremonyChecks.checkRPIDHash(authData, rp: rp)
        }
        try report.run("7.2.16", "UP flag set") {
            try CeremonyChecks.checkUserPresent(authData)
        }
        try report.run("7.2.17", "UV flag set when required") {
            try CeremonyChecks.checkUserVerified(authData, requirement: expectation.userVerification)
        }
        try report.run("7.2.18", "BS not set without BE") {
            try CeremonyChecks.checkBackupFlags(authData)
        }
        if let storedBE = credential.backupEligible {
            try report.run("7.2.19", "BE equals the stored backup eligibility") {
                try Self.checkBackupEligibilityUnchanged(authData, stored: storedBE)
            }
        } else {
            report.skip("7.2.19", "BE equals the stored backup eligibility", because: "the stored backup eligibility is not known")
        }
        // Step 20: extension outputs. This RP requests no authentication extensions.
        // Step 21: hash of clientDataJSON.
        let clientDataHash = Digest.sha256.hash(clientData.bytes)
        try report.run("7.2.22", "signature over authData ‖ clientDataHash verifies") {
            try Self.checkSignature(response.signature, authData: authData, clientDataHash: clientDataHash, key: credential.publicKey)
        }
        try report.run("7.2.23", "signature counter increased (or both zero)") {
            try Self.checkSignCount(authData.signCount, stored: credential.signCount)
        }
        // Step 24: no attestation is requested in assertions.
        return VerifiedAuthentication(
            credentialID: response.credentialID, signCount: authData.signCount,
            userVerified: authData.userVerified, backupEligible: authData.backupEligible, backupState: authData.backupState)
    }

    /// The checks whose failure makes an assertion malformed (`invalid_request`), run before the
    /// server looks its challenge up so that a malformed assertion spends nothing: BS without BE
    /// (step 18) and, when the credential is known, BE equal to the stored value (step 19).
    public static func checkWellFormed(_ response: AuthenticationResponse, storedBackupEligible: Bool?) throws {
        try CeremonyChecks.checkBackupFlags(response.authenticatorData)
        if let storedBackupEligible {
            try checkBackupEligibilityUnchanged(response.authenticatorData, stored: storedBackupEligible)
        }
    }

    /// §7.2 step 5: when allowCredentials was sent, credential.id is one of them. Also that
    /// the record the caller found is the one named by rawId.
    static func checkAllowedCredential(_ rawID: [UInt8], allowed: [[UInt8]], credential: CredentialState) throws {
        if let id = credential.id, rawID != id {
            throw WebAuthnError(.unknownCredential, "the credential record does not match rawId")
        }
        if !allowed.isEmpty, !allowed.contains(rawID) {
            throw WebAuthnError(.unknownCredential, "the credential is not in allowCredentials")
        }
    }

    /// §7.2 step 6: if the user was identified before the ceremony, the credential belongs to
    /// that user and a present userHandle equals theirs; otherwise userHandle must be present
    /// and must be the handle of the credential's owner (YSA-2026-02 class).
    static func checkUserHandle(_ userHandle: [UInt8]?, identifiedUser: [UInt8]?, owner: [UInt8]) throws {
        if let identifiedUser {
            guard owner == identifiedUser else {
                throw WebAuthnError(.unknownCredential, "the credential does not belong to the identified user")
            }
            if let userHandle, userHandle != identifiedUser {
                throw WebAuthnError(.userHandleMismatch, "userHandle is not the identified user's handle")
            }
        } else {
            guard let userHandle else {
                throw WebAuthnError(.userHandleMismatch, "a discoverable-credential assertion must carry userHandle")
            }
            guard userHandle == owner else {
                throw WebAuthnError(.userHandleMismatch, "userHandle does not belong to the credential's owner")
            }
        }
    }

    /// §7.2 step 19: BE of a stored credential never changes.
    static func checkBackupEligibilityUnchanged(_ authData: AuthenticatorData, stored: Bool) throws {
        guard authData.backupEligible == stored else {
            throw WebAuthnError.invalidRequest("backup eligibility (BE) differs from the stored credential")
        }
    }

    /// §7.2 step 22: sig is a valid signature over authData ‖ hash with the stored key.
    static func checkSignature(_ signature: [UInt8], authData: AuthenticatorData, clientDataHash: [UInt8], key: COSEKey) throws {
        guard key.algorithm != nil else {
            throw WebAuthnError(.unsupportedAlgorithm, "the credential's algorithm \(key.algorithmIdentifier) is not one this server verifies")
        }
        guard key.isValidSignature(signature, for: authData.bytes + clientDataHash) else {
            throw WebAuthnError(.invalidSignature, "the assertion signature does not verify")
        }
    }

    /// §7.2 step 23: if either count is non-zero, the new count must exceed the stored one.
    /// Otherwise the authenticator may be cloned; this RP refuses the assertion.
    static func checkSignCount(_ received: UInt32, stored: UInt32) throws {
        if received != 0 || stored != 0 {
            guard received > stored else {
                throw WebAuthnError(.counterRegression, "sign count \(received) does not exceed the stored \(stored)")
            }
        }
    }
}
