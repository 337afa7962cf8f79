public import PasskeyCrypto
internal import PasskeyCBOR

/// `packed` (WebAuthn L3 §8.2): self attestation, or basic/AttCA with an x5c chain whose leaf
/// meets the certificate requirements of §8.2.1.
public struct PackedAttestation: AttestationStatementFormat {
    public init() {}
    public var identifier: String { "packed" }

    public func verify(_ input: AttestationInput) throws -> AttestationOutcome {
        // Syntax: {alg, sig, x5c?}.
        let members = try AttestationStatement.map(input.statement, knownKeys: ["alg", "sig", "x5c"])
        guard let algValue = members["alg"]?.intValue, let algInt = Int(exactly: algValue) else {
            throw WebAuthnError.invalidAttestation("packed attStmt.alg is missing or not an integer")
        }
        let sig = try AttestationStatement.signature(members)
        let signedData = input.authenticatorData.bytes + input.clientDataHash

        if let x5c = try AttestationStatement.certificates(members) {
            return try verifyCertificateAttestation(x5c: x5c, alg: algInt, sig: sig, signedData: signedData, input: input)
        }
        return try verifySelfAttestation(alg: algInt, sig: sig, signedData: signedData, input: input)
    }

    /// §8.2 "If x5c is present": the signature by attestnCert's key with alg, the §8.2.1
    /// requirements, and the AAGUID extension matching authData.
    private func verifyCertificateAttestation(
        x5c: [Certificate], alg: Int, sig: [UInt8], signedData: [UInt8], input: AttestationInput
    ) throws -> AttestationOutcome {
        guard let algorithm = COSEAlgorithm(rawValue: alg) else {
            throw WebAuthnError.invalidAttestation("packed attStmt.alg \(alg) is not supported")
        }
        let leaf = x5c[0]
        let key = try AttestationStatement.publicKey(of: leaf)
        try AttestationStatement.checkKeyFitsAlgorithm(key, algorithm, format: "packed")
        guard key.isValidSignature(sig, for: signedData, algorithm: algorithm.signatureAlgorithm) else {
            throw WebAuthnError.invalidAttestation("packed attestation signature does not verify with the x5c leaf")
        }
        try PackedCertificateRequirements.check(leaf, aaguid: input.credential.aaguid)
        return AttestationOutcome(type: .basic, trustPath: x5c)
    }

    /// §8.2 "If x5c is not present": self attestation — alg equals the credential's alg and
    /// the signature verifies with the credential public key.
    private func verifySelfAttestation(alg: Int, sig: [UInt8], signedData: [UInt8], input: AttestationInput) throws -> AttestationOutcome {
        let credentialKey = input.credential.credentialPublicKey
        guard alg == credentialKey.algorithmIdentifier else {
            throw WebAuthnError.invalidAttestation("self attestation alg \(alg) differs from the credential key alg \(credentialKey.algorithmIdentifier)")
        }
        guard credentialKey.isValidSignature(sig, for: signedData) else {
            throw WebAuthnError.invalidAttestation("self attestation signature does not verify with the credential key")
        }
        return AttestationOutcome(type: .self, trustPath: [])
    }
}

/// Packed attestation statement certificate requirements (WebAuthn L3 §8.2.1).
enum PackedCertificateRequirements {
    /// id-fido-gen-ce-aaguid
    static let aaguidExtensionOID = "1.3.6.1.4.1.45724.1.1.4"

    static func check(_ certificate: Certificate, aaguid: [UInt8]) throws {
        try checkVersion(certificate)
        try checkSubject(certificate)
        try checkAAGUIDExtension(certificate, aaguid: aaguid)
        try checkNotCA(certificate)
    }

    /// "Version MUST be set to 3."
    static func checkVersion(_ certificate: Certificate) throws {
        guard certificate.version == 3 else {
            throw WebAuthnError.invalidAttestation("attestation certificate version is \(certificate.version), not 3")
        }
    }

    /// "Subject-C, Subject-O, Subject-OU = 'Authenticator Attestation', Subject-CN."
    static func checkSubject(_ certificate: Certificate) throws {
        let subject = certificate.subject
        guard let country = subject["C"].first, country.count == 2 else {
            throw WebAuthnError.invalidAttestation("attestation certificate subject lacks a two-letter C")
        }
        guard subject["O"].first.map({ !$0.isEmpty }) == true else {
            throw WebAuthnError.invalidAttestation("attestation certificate subject lacks O")
        }
        guard subject["OU"] == ["Authenticator Attestation"] else {
            throw WebAuthnError.invalidAttestation("attestation certificate subject OU is not \"Authenticator Attestation\"")
        }
        guard subject["CN"].first.map({ !$0.isEmpty }) == true else {
            throw WebAuthnError.invalidAttestation("attestation certificate subject lacks CN")
        }
    }

    /// The AAGUID extension, when present, is not critical and equals authData's AAGUID.
    static func checkAAGUIDExtension(_ certificate: Certificate, aaguid: [UInt8]) throws {
        guard let ext = certificate.extensionValue(oid: aaguidExtensionOID) else { return }
        guard !ext.critical else {
            throw WebAuthnError.invalidAttestation("the AAGUID extension must not be marked critical")
        }
        let node: DERNode
        do { node = try DER.parse(ext.value) } catch {
            throw WebAuthnError.invalidAttestation("the AAGUID extension is not DER")
        }
        guard node.tag == 0x04, node.content.count == 16 else {
            throw WebAuthnError.invalidAttestation("the AAGUID extension is not a 16-byte OCTET STRING")
        }
        guard node.content == aaguid else {
            throw WebAuthnError.invalidAttestation("the AAGUID extension does not match the authenticator data AAGUID")
        }
    }

    /// "The Basic Constraints extension MUST have the CA component set to false."
    static func checkNotCA(_ certificate: Certificate) throws {
        guard certificate.basicConstraintsIsCA != true else {
            throw WebAuthnError.invalidAttestation("attestation certificate is a CA certificate")
        }
    }
}
