public import PasskeyCrypto
internal import PasskeyCBOR

/// `fido-u2f` (WebAuthn L3 §8.6).
public struct FIDOU2FAttestation: AttestationStatementFormat {
    public init() {}
    public var identifier: String { "fido-u2f" }

    public func verify(_ input: AttestationInput) throws -> AttestationOutcome {
        let members = try AttestationStatement.map(input.statement, allowedKeys: ["sig", "x5c"])
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
}
