public import Foundation
public import PasskeyCrypto

/// What the server issued for one registration ceremony.
public struct RegistrationExpectation: Sendable {
    public var challenge: [UInt8]
    public var userVerification: UserVerificationRequirement
    /// The pubKeyCredParams offered, as COSE algorithm identifiers.
    public var algorithms: [Int]
    /// Issued challenges shorter than this are refused (16 bytes, WebAuthn §13.4.3).
    public var minimumChallengeLength = 16
    /// The options were used with `mediation: "conditional"` (an automatic passkey upgrade):
    /// §7.1 step 15 then does not require user presence.
    public var conditional: Bool

    public init(challenge: [UInt8], userVerification: UserVerificationRequirement, algorithms: [Int], conditional: Bool = false) {
        self.challenge = challenge
        self.userVerification = userVerification
        self.algorithms = algorithms
        self.conditional = conditional
    }
}

/// A registration that passed every check: what becomes the credential record (§7.1 step 27).
public struct VerifiedRegistration: Sendable {
    public let credentialID: [UInt8]
    public let publicKey: COSEKey
    public let signCount: UInt32
    public let aaguid: [UInt8]
    public let transports: [String]
    public let userVerified: Bool
    public let backupEligible: Bool
    public let backupState: Bool
    public let format: String
    public let attestationType: AttestationType
    public let attestationTrusted: Bool
    public let residentKey: Bool?
    /// clientExtensionResults.prf.enabled: the credential can evaluate the PRF extension.
    public let prfEnabled: Bool
    /// The model's name from the authenticator metadata (MDS description), only when the AAGUID
    /// is attested (`aaguidAttested`).
    public let authenticatorName: String?
    /// Whether the AAGUID is vouched for by the attestation: the chain verified to the roots of
    /// that AAGUID's own metadata entry. Otherwise it is the authenticator's (or client's) claim.
    public let aaguidAttested: Bool
}

/// WebAuthn Level 3 §7.1 "Registering a New Credential", steps 5–27, as the RP performs them.
/// Steps 1–4 run in the client. Step 26 (credential id not registered for any user) is the
/// store's PRIMARY KEY, enforced atomically when the record is written.
public struct RegistrationVerifier: Sendable {
    public let rp: RelyingParty

    public init(rp: RelyingParty) {
        self.rp = rp
    }

    public func verify(_ response: RegistrationResponse, expecting expectation: RegistrationExpectation, now: Date) throws -> VerifiedRegistration {
        var report = VerificationReport()
        return try verify(response, expecting: expectation, now: now, report: &report)
    }

    public func verify(
        _ response: RegistrationResponse, expecting expectation: RegistrationExpectation, now: Date,
        report: inout VerificationReport
    ) throws -> VerifiedRegistration {
        let clientData = response.clientData
        let attestation = response.attestationObject
        let authData = attestation.authenticatorData
        // AttestationObject refuses authenticator data without attested credential data.
        let credential = authData.attestedCredentialData!

        // Steps 5–6 (UTF-8 decode and JSON parse of clientDataJSON) and 13 (CBOR decoding of
        // the attestation object) ran when the response was decoded: malformed input is
        // `invalid_request` before any challenge is spent.
        try report.run("7.1.7", "C.type is webauthn.create") {
            try CeremonyChecks.checkType(clientData, expected: "webauthn.create")
        }
        try report.run("7.1.8", "C.challenge is the issued challenge") {
            try CeremonyChecks.checkChallenge(clientData, expected: expectation.challenge, minimumLength: expectation.minimumChallengeLength)
        }
        try report.run("7.1.9", "C.origin is an allowed origin") {
            try CeremonyChecks.checkOrigin(clientData, rp: rp)
        }
        try report.run("7.1.10-11", "crossOrigin / topOrigin as the RP allows") {
            try CeremonyChecks.checkCrossOrigin(clientData, rp: rp)
        }
        // Step 12: clientDataHash.
        let clientDataHash = Digest.sha256.hash(clientData.bytes)
        try report.run("7.1.14", "rpIdHash is SHA-256 of the RP ID") {
            try CeremonyChecks.checkRPIDHash(authData, rp: rp)
        }
        try report.run("7.1.15", "UP flag set, unless the creation was conditional") {
            try Self.checkUserPresence(authData, conditional: expectation.conditional)
        }
        try report.run("7.1.16", "UV flag set when required") {
            try CeremonyChecks.checkUserVerified(authData, requirement: expectation.userVerification)
            try Self.checkFormatSignsFlags(attestation.format, requirement: expectation.userVerification)
        }
        try report.run("7.1.17", "BS not set without BE") {
            try CeremonyChecks.checkBackupFlags(authData)
        }
        // Steps 18–19: BE and BS are recorded with the credential; BE never changes afterwards.
        try report.run("7.1.20", "credential alg is one offered in pubKeyCredParams") {
            try Self.checkAlgorithmOffered(credential.credentialPublicKey, offered: expectation.algorithms)
        }
        // Step 20: extension outputs. This RP requests only credProps, a client extension
        // with no authenticator output; unrequested authenticator outputs are ignored.
        var format: (any AttestationStatementFormat)?
        try report.run("7.1.21", "fmt is a supported attestation statement format") {
            format = try Self.checkFormatSupported(attestation.format)
        }
        var outcome: AttestationOutcome?
        try report.run("7.1.22", "attestation statement verifies (\(attestation.format))") {
            outcome = try format!.verify(try AttestationInput(
                statement: attestation.statement, authenticatorData: authData, clientDataHash: clientDataHash, now: now))
        }
        var trusted = false
        try report.run("7.1.23-24", "attestation trust path assessed against the RP's anchors") {
            trusted = try Self.assessTrustworthiness(
                outcome!, format: attestation.format, aaguid: credential.aaguid, provider: rp.trustAnchors, now: now)
        }
        let metadataEntry = rp.metadata?.entry(aaguid: credential.aaguid)
        let aaguidAttested = trusted && Self.isAAGUIDAttested(outcome!, format: attestation.format, entry: metadataEntry, now: now)
        try report.run("7.1.24", "authenticator model not compromised per its metadata status") {
            try AttestationPolicy.checkAuthenticatorStatus(metadataEntry, now: now)
        }
        try report.run("7.1.24", "authenticator model (AAGUID) admitted by the policy") {
            try rp.attestationPolicy.checkAAGUIDAllowed(credential.aaguid, attested: aaguidAttested)
        }
        try report.run("7.1.24", "attestation trustworthy as the policy requires") {
            try rp.attestationPolicy.checkTrustworthy(trusted, format: attestation.format, type: outcome!.type)
        }
        try report.run("7.1.25", "credential id at most 1023 bytes and equal to rawId") {
            try Self.checkCredentialID(credential.credentialID, rawID: response.credentialID)
        }
        return VerifiedRegistration(
            credentialID: credential.credentialID,
            publicKey: credential.credentialPublicKey,
            signCount: authData.signCount,
            aaguid: credential.aaguid,
            transports: response.transports,
            userVerified: authData.userVerified,
            backupEligible: authData.backupEligible,
            backupState: authData.backupState,
            format: attestation.format,
            attestationType: outcome!.type,
            attestationTrusted: trusted,
            residentKey: response.residentKey,
            prfEnabled: response.prfEnabled == true,
            authenticatorName: aaguidAttested ? metadataEntry?.description.map(Self.printable) : nil,
            aaguidAttested: aaguidAttested)
    }

    /// §7.1 step 15: "If options.mediation is not set to conditional, verify that the UP bit of
    /// the flags in authData is set." A conditional creation (an automatic upgrade to a passkey
    /// after another sign-in) comes without a gesture; every other one needs UP.
    public static func checkUserPresence(_ authData: AuthenticatorData, conditional: Bool) throws {
        guard !conditional else { return }
        try CeremonyChecks.checkUserPresent(authData)
    }

    /// §7.1 step 16, for formats whose signature does not cover the flags: a fido-u2f statement
    /// signs neither UV nor the AAGUID, so its UV bit proves nothing and it cannot satisfy
    /// `userVerification: required`.
    static func checkFormatSignsFlags(_ format: String, requirement: UserVerificationRequirement) throws {
        if format == "fido-u2f", requirement == .required {
            throw WebAuthnError(.userVerificationRequired, "fido-u2f attestation does not sign the UV flag, and user verification is required")
        }
    }

    /// Whether the AAGUID may be relied on (allow lists, model names): only when a trust path
    /// verifies to the attestation roots of that AAGUID's own metadata entry. A chain to a
    /// vendor root alone does not bind it: any app on a real Android phone gets a Google-rooted
    /// android-key or SafetyNet attestation over authenticator data it wrote itself, AAGUID
    /// included. fido-u2f never binds one (the U2F signature does not cover it).
    static func isAAGUIDAttested(_ outcome: AttestationOutcome, format: String, entry: MetadataEntry?, now: Date) -> Bool {
        guard format != "fido-u2f", let entry, !entry.attestationRootCertificates.isEmpty else { return false }
        let paths = outcome.subOutcomes.isEmpty
            ? [outcome.trustPath]
            : outcome.subOutcomes.filter { $0.format != "fido-u2f" }.map(\.outcome.trustPath)
        return paths.contains { path in
            guard let leaf = path.first else { return false }
            let verdict = CertificateChain.verify(
                leaf: leaf, intermediates: Array(path.dropFirst()), anchors: entry.attestationRootCertificates, at: now)
            if case .trusted = verdict { return true }
            return false
        }
    }

    /// The checks whose failure makes a response malformed (`invalid_request`) rather than a
    /// refused ceremony, run before the server looks its challenge up, so a malformed response
    /// spends nothing: BS without BE (step 17), and the credential id's length and its match with
    /// rawId (step 25). `verify` runs the same checks again in their place.
    public static func checkWellFormed(_ response: RegistrationResponse) throws {
        try CeremonyChecks.checkBackupFlags(response.attestationObject.authenticatorData)
        guard let credential = response.attestationObject.authenticatorData.attestedCredentialData else {
            throw WebAuthnError.invalidRequest("authenticator data in a registration has no attested credential data (AT flag)")
        }
        try checkCredentialID(credential.credentialID, rawID: response.credentialID)
    }

    /// §7.1 step 20: the credential key's alg is one of the offered pubKeyCredParams, and one
    /// this server verifies.
    /// The model name from metadata without control characters (NUL included), which neither
    /// the page nor every database can hold: signed metadata is trusted for what it says, not
    /// for being well-formed text.
    static func printable(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.filter { $0.properties.generalCategory != .control }))
    }

    static func checkAlgorithmOffered(_ key: COSEKey, offered: [Int]) throws {
        guard offered.contains(key.algorithmIdentifier), key.algorithm != nil else {
            throw WebAuthnError(.unsupportedAlgorithm, "credential algorithm \(key.algorithmIdentifier) was not offered")
        }
    }

    /// §7.1 step 25: the credential id is at most 1023 bytes. The response's rawId must also
    /// name the credential that was attested.
    static func checkCredentialID(_ credentialID: [UInt8], rawID: [UInt8]) throws {
        guard !credentialID.isEmpty, credentialID.count <= 1023 else {
            throw WebAuthnError.invalidRequest("credential id is \(credentialID.count) bytes; 1 to 1023 are allowed")
        }
        guard credentialID == rawID else {
            throw WebAuthnError.invalidRequest("rawId differs from the attested credential id")
        }
    }

    /// §7.1 step 21: a case-sensitive match of fmt against the supported formats.
    static func checkFormatSupported(_ fmt: String) throws -> any AttestationStatementFormat {
        guard let format = AttestationFormats.format(for: fmt) else {
            throw WebAuthnError.invalidAttestation("attestation format \"\(fmt)\" is not supported")
        }
        return format
    }

    /// §7.1 steps 23–24 for the outcome of format `format`, with that format's anchors.
    ///
    /// A compound outcome (§8.9) is assessed sub-statement by sub-statement, each with the anchors
    /// of its own format: every sub-statement that has a trust path must have all certificates
    /// valid at `now` (else `invalid_attestation`), and the registration is trusted only if at
    /// least one sub-statement has a trust path and every such path chains to its anchors.
    static func assessTrustworthiness(
        _ outcome: AttestationOutcome, format: String, aaguid: [UInt8], provider: any TrustAnchorProvider, now: Date
    ) throws -> Bool {
        guard !outcome.subOutcomes.isEmpty else {
            return try assessTrustworthiness(outcome, anchors: provider.anchors(format: format, aaguid: aaguid), now: now)
        }
        // `map`, not `allSatisfy`: the validity of every path is checked even after an untrusted one.
        let verdicts = try outcome.subOutcomes.filter { !$0.outcome.trustPath.isEmpty }.map {
            try assessTrustworthiness($0.outcome, format: $0.format, aaguid: aaguid, provider: provider, now: now)
        }
        return !verdicts.isEmpty && verdicts.allSatisfy { $0 }
    }

    /// §7.1 steps 23–24 (the policy's decision on an untrusted statement is
    /// `AttestationPolicy.checkTrustworthy`): every certificate of the trust path must be valid at the verification
    /// time; the path is trusted only if OpenSSL builds a chain from it to one of the RP's
    /// anchors. Certificates carried in x5c are never anchors, so an x5c ending in a self-signed
    /// root is not trusted by itself (GHSA-6hxq-p678-4hr2).
    static func assessTrustworthiness(_ outcome: AttestationOutcome, anchors: [Certificate], now: Date) throws -> Bool {
        guard let leaf = outcome.trustPath.first else { return false }
        for certificate in outcome.trustPath where now < certificate.notBefore || now > certificate.notAfter {
            throw WebAuthnError.invalidAttestation("an attestation certificate is not valid at the verification time")
        }
        guard !anchors.isEmpty else { return false }
        let verdict = CertificateChain.verify(
            leaf: leaf, intermediates: Array(outcome.trustPath.dropFirst()), anchors: anchors, at: now)
        if case .trusted = verdict { return true }
        return false
    }
}
