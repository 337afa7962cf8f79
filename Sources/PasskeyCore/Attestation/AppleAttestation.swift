internal import PasskeyCBOR
internal import PasskeyCrypto

/// `apple`, Apple Anonymous Attestation (WebAuthn L3 §8.8): attStmt = {x5c}. The leaf
/// (credCert) is issued for the credential key itself and carries the nonce in an extension.
public struct AppleAttestation: AttestationStatementFormat {
    public init() {}
    public var identifier: String { "apple" }

    /// The nonce extension's OID (§8.8 "Verification procedure" step 4).
    static let nonceExtensionOID = "1.2.840.113635.100.8.2"

    public func verify(_ input: AttestationInput) throws -> AttestationOutcome {
        // Step 1: attStmt is {x5c} with a non-empty array of DER certificates, credCert first.
        let members = try AttestationStatement.map(input.statement, knownKeys: ["x5c"])
        guard let x5c = try AttestationStatement.certificates(members) else {
            throw WebAuthnError.invalidAttestation("apple attStmt.x5c is missing")
        }
        let credCert = x5c[0]
        let nonce = Self.nonce(input)
        try Self.checkNonceExtension(credCert, nonce: nonce)
        try Self.checkCredentialKey(credCert, credentialKey: input.credential.credentialPublicKey)
        // Step 6: Anonymization CA, trust path x5c.
        return AttestationOutcome(type: .anonCA, trustPath: x5c)
    }

    /// §8.8 steps 2–3: nonce = SHA-256(authenticatorData ‖ clientDataHash).
    static func nonce(_ input: AttestationInput) -> [UInt8] {
        Digest.sha256.hash(input.authenticatorData.bytes + input.clientDataHash)
    }

    /// §8.8 step 4: the extension 1.2.840.113635.100.8.2 of credCert holds the nonce. Its value
    /// is `SEQUENCE { [1] EXPLICIT OCTET STRING }`, read strictly: exactly that one element, and
    /// exactly one OCTET STRING inside the tag.
    static func checkNonceExtension(_ credCert: Certificate, nonce: [UInt8]) throws {
        guard let ext = credCert.extensionValue(oid: nonceExtensionOID) else {
            throw WebAuthnError.invalidAttestation("apple credCert has no nonce extension (\(nonceExtensionOID))")
        }
        let certified: [UInt8]
        do {
            let elements = try DER.parseSequence(ext.value)
            guard elements.count == 1, elements[0].tag == 0xA1 else {
                throw WebAuthnError.invalidAttestation("apple nonce extension is not SEQUENCE { [1] OCTET STRING }")
            }
            let inner = try elements[0].children()
            guard inner.count == 1, inner[0].tag == 0x04 else {
                throw WebAuthnError.invalidAttestation("apple nonce extension's [1] does not hold one OCTET STRING")
            }
            certified = inner[0].content
        } catch let error as CryptoError {
            throw WebAuthnError.invalidAttestation("apple nonce extension is not DER: \(error.reason)")
        }
        guard certified == nonce else {
            throw WebAuthnError.invalidAttestation("apple nonce extension does not match SHA-256(authData ‖ clientDataHash)")
        }
    }

    /// §8.8 step 5: the credential public key equals credCert's subject public key.
    static func checkCredentialKey(_ credCert: Certificate, credentialKey: COSEKey) throws {
        // §7.1 step 20 ran first, so the credential's algorithm is one this server imports.
        guard let credential = credentialKey.publicKey else {
            throw WebAuthnError.invalidAttestation("apple attestation for a credential key this server cannot import")
        }
        let certified = try AttestationStatement.publicKey(of: credCert)
        guard certified.matches(credential) else {
            throw WebAuthnError.invalidAttestation("apple credCert's public key is not the credential public key")
        }
    }
}
