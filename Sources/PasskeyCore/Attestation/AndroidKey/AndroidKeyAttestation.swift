internal import PasskeyCrypto
internal import PasskeyCBOR

/// `android-key` (WebAuthn L3 §8.4): Android Keystore attests the credential key itself — the
/// leaf of x5c certifies the credential public key and carries the KeyDescription extension.
///
/// Policy: the origin and purpose requirements read the hardware-enforced (teeEnforced)
/// authorization list only by default ("if the RP wants to accept only keys from a trusted
/// execution environment"); `requireHardwareEnforced: false` reads the union of both lists.
public struct AndroidKeyAttestation: AttestationStatementFormat {
    /// KM_ORIGIN_GENERATED: the key was generated inside Keystore.
    static let originGenerated: Int64 = 0
    /// KM_PURPOSE_SIGN.
    static let purposeSign: Int64 = 2

    public let requireHardwareEnforced: Bool

    public init(requireHardwareEnforced: Bool = true) {
        self.requireHardwareEnforced = requireHardwareEnforced
    }

    public var identifier: String { "android-key" }

    public func verify(_ input: AttestationInput) throws -> AttestationOutcome {
        // "Verify that attStmt is valid CBOR conforming to the syntax defined above."
        let members = try AttestationStatement.map(input.statement, knownKeys: ["alg", "sig", "x5c"])
        guard let algValue = members["alg"]?.intValue, let algInt = Int(exactly: algValue) else {
            throw WebAuthnError.invalidAttestation("android-key attStmt.alg is missing or not an integer")
        }
        guard let algorithm = COSEAlgorithm(rawValue: algInt) else {
            throw WebAuthnError.invalidAttestation("android-key attStmt.alg \(algInt) is not supported")
        }
        let sig = try AttestationStatement.signature(members)
        guard let x5c = try AttestationStatement.certificates(members) else {
            throw WebAuthnError.invalidAttestation("android-key attStmt.x5c is missing")
        }
        let leaf = x5c[0]

        try Self.checkSignature(sig, over: input.authenticatorData.bytes + input.clientDataHash, leaf: leaf, algorithm: algorithm)
        try Self.checkPublicKey(of: leaf, matches: input.credential.credentialPublicKey)
        let description = try Self.keyDescription(of: leaf)
        try Self.checkChallenge(description, clientDataHash: input.clientDataHash)
        try Self.checkAllApplicationsAbsent(description)
        try checkOriginGenerated(description)
        try checkPurposeSign(description)
        return AttestationOutcome(type: .basic, trustPath: x5c)
    }

    /// "Verify that sig is a valid signature over the concatenation of authenticatorData and
    /// clientDataHash using the public key in the first certificate in x5c with the algorithm
    /// specified in alg."
    static func checkSignature(_ sig: [UInt8], over signedData: [UInt8], leaf: Certificate, algorithm: COSEAlgorithm) throws {
        let key = try AttestationStatement.publicKey(of: leaf)
        try AttestationStatement.checkKeyFitsAlgorithm(key, algorithm, format: "android-key")
        guard key.isValidSignature(sig, for: signedData, algorithm: algorithm.signatureAlgorithm) else {
            throw WebAuthnError.invalidAttestation("android-key signature does not verify with the x5c leaf (\(algorithm.name))")
        }
    }

    /// "Verify that the public key in the first certificate in x5c matches the
    /// credentialPublicKey in the attestedCredentialData in authenticatorData."
    static func checkPublicKey(of leaf: Certificate, matches credentialKey: COSEKey) throws {
        let leafKey = try AttestationStatement.publicKey(of: leaf)
        guard let credential = credentialKey.publicKey, leafKey.matches(credential) else {
            throw WebAuthnError.invalidAttestation("the x5c leaf's key is not the credential public key")
        }
    }

    /// §8.4.1: the attestation certificate's extension data (OID 1.3.6.1.4.1.11129.2.1.17),
    /// whose schema is Android's KeyDescription.
    static func keyDescription(of leaf: Certificate) throws -> AndroidKeyDescription {
        guard let ext = leaf.extensionValue(oid: AndroidKeyDescription.extensionOID) else {
            throw WebAuthnError.invalidAttestation("the x5c leaf has no Android key attestation extension")
        }
        return try AndroidKeyDescription(derEncoded: ext.value)
    }

    /// "Verify that the attestationChallenge field in the attestation certificate extension
    /// data is identical to clientDataHash."
    static func checkChallenge(_ description: AndroidKeyDescription, clientDataHash: [UInt8]) throws {
        guard constantTimeEquals(description.attestationChallenge, clientDataHash) else {
            throw WebAuthnError.invalidAttestation("KeyDescription.attestationChallenge is not clientDataHash")
        }
    }

    /// "The AuthorizationList.allApplications field is not present on either authorization
    /// list (softwareEnforced nor teeEnforced), since PublicKeyCredential MUST be scoped to the
    /// RP ID."
    static func checkAllApplicationsAbsent(_ description: AndroidKeyDescription) throws {
        guard !description.softwareEnforced.allApplications, !description.hardwareEnforced.allApplications else {
            throw WebAuthnError.invalidAttestation("KeyDescription has allApplications: the key is not scoped to one app")
        }
    }

    /// "The value in the AuthorizationList.origin field is equal to KM_ORIGIN_GENERATED", in
    /// the lists the policy reads: present, and GENERATED wherever it is present.
    func checkOriginGenerated(_ description: AndroidKeyDescription) throws {
        let origins = authorizationLists(description).compactMap(\.origin)
        guard !origins.isEmpty, origins.allSatisfy({ $0 == Self.originGenerated }) else {
            throw WebAuthnError.invalidAttestation("KeyDescription origin is \(origins) in \(scope), not KM_ORIGIN_GENERATED")
        }
    }

    /// "The value in the AuthorizationList.purpose field is equal to KM_PURPOSE_SIGN" — the
    /// purpose set (it may list more) contains SIGN, in the lists the policy reads.
    func checkPurposeSign(_ description: AndroidKeyDescription) throws {
        let purposes = authorizationLists(description).flatMap { $0.purposes ?? [] }
        guard purposes.contains(Self.purposeSign) else {
            throw WebAuthnError.invalidAttestation("KeyDescription purpose \(purposes) in \(scope) lacks KM_PURPOSE_SIGN")
        }
    }

    private func authorizationLists(_ description: AndroidKeyDescription) -> [AndroidKeyDescription.AuthorizationList] {
        requireHardwareEnforced
            ? [description.hardwareEnforced]
            : [description.hardwareEnforced, description.softwareEnforced]
    }

    private var scope: String {
        requireHardwareEnforced ? "teeEnforced" : "teeEnforced ∪ softwareEnforced"
    }
}
