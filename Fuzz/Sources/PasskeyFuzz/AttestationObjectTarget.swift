import PasskeyCBOR
import PasskeyCore

/// `attestation-object`: `AttestationObject(bytes:)` (§6.5.4) and `AuthenticatorData(bytes:)`
/// (§6.1) on the same input — the seeds hold both attestation objects and bare authenticator
/// data (registration and assertion). Checked: authenticator data inside a parsed attestation
/// object parses again on its own to the same parts.
enum AttestationObjectTarget {
    static func run(_ bytes: [UInt8]) {
        if let object = attempt("attestation object", { try AttestationObject(bytes: bytes) }) {
            _ = object.format.utf8.count
            _ = object.statement.mapEntries?.count ?? object.statement.arrayValue?.count
            inspect(object.authenticatorData)
            let again = try? AuthenticatorData(bytes: object.authenticatorData.bytes)
            expect(again?.signCount == object.authenticatorData.signCount
                && again?.attestedCredentialData?.credentialID == object.authenticatorData.attestedCredentialData?.credentialID,
                "authenticator data of an attestation object does not parse to the same parts on its own")
        }
        if let authenticatorData = attempt("authenticator data", { try AuthenticatorData(bytes: bytes) }) {
            inspect(authenticatorData)
        }
    }

    static func inspect(_ data: AuthenticatorData) {
        _ = (data.userPresent, data.userVerified, data.backupEligible, data.backupState, data.flags.rawValue)
        _ = data.rpIDHash.count
        _ = data.extensions?.mapEntries?.count
        if let credential = data.attestedCredentialData {
            _ = data.aaguidString
            _ = credential.credentialID.count
            let key = credential.credentialPublicKey
            _ = (key.keyType, key.algorithmIdentifier, key.algorithm?.name, key.bytes.count)
            _ = key.publicKey?.kind
        }
    }
}
