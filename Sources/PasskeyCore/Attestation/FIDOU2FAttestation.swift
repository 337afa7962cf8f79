public import PasskeyCrypto
internal import PasskeyCBOR

/// `fido-u2f` (WebAuthn L3 §8.6).
public struct FIDOU2FAttestation: AttestationStatementFormat {
    public init() {}
    public var identifier: String { "fido-u2f" }

    public func verify(_ input: AttestationInput) throws -> AttestationOutcome {
        let members = try AttestationStatement.map(input.statement, knownKeys: ["sig", "x5c"])
        try Self.checkAAGUIDIsZero(input.credential.aaguid)
        let sig = try AttestationStatement.signature(members)
        // "Check that x5c has exactly one element."
        guard let x5c = try AttestationStatement.certificates(members) else {
            throw WebAuthnError.invalidAttestation("fido-u2f attStmt.x5c is missing")
        }
        guard x5c.count == 1 else {
            throw WebAuthnError.invalidAttestation("fido-u2f attStmt.x5c must have exactly one certificate, has \(x5c.count)")
        }
        // "If certificate public key is not an Elliptic Curve (EC) public key over the P-256 curve, terminate."
        let attestationKey = try AttestationStatement.publicKey(of: x5c[0])
        guard attestationKey.kind == .ec(.p256) else {
            throw WebAuthnError.invalidAttestation("fido-u2f attestation certificate key is not P-256")
        }
        // The credential key must be an EC2 P-256 key; publicKeyU2F = 0x04 ‖ x ‖ y.
        let credential = input.credential
        guard credential.credentialPublicKey.algorithm == .es256,
              let coordinates = credential.credentialPublicKey.publicKey?.ecCoordinates
        else {
            throw WebAuthnError.invalidAttestation("fido-u2f credential key is not an ES256 P-256 key")
        }
        let publicKeyU2F = [0x04] + coordinates.x + coordinates.y
        // verificationData = 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ publicKeyU2F
        let verificationData = [0x00] + input.authenticatorData.rpIDHash + input.clientDataHash
            + credential.credentialID + publicKeyU2F
        guard attestationKey.isValidSignature(sig, for: verificationData, algorithm: .ecdsa(.sha256)) else {
            throw WebAuthnError.invalidAttestation("fido-u2f signature does not verify")
        }
        return AttestationOutcome(type: .basic, trustPath: x5c)
    }

    /// U2F authenticators have no AAGUID and the U2F signature covers neither the AAGUID nor the
    /// flags (§8.6 verificationData), so a fido-u2f authData must carry the all-zero AAGUID:
    /// anything else is a client's unsigned claim about the model.
    static func checkAAGUIDIsZero(_ aaguid: [UInt8]) throws {
        guard aaguid.allSatisfy({ $0 == 0 }) else {
            throw WebAuthnError.invalidAttestation("fido-u2f authenticator data must carry the all-zero AAGUID, not \(UUIDString.format(aaguid))")
        }
    }
}
