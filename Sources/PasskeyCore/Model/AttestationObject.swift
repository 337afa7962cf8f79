public import PasskeyCBOR

/// The attestation object (WebAuthn L3 §6.5.4): a CBOR map of `fmt`, `attStmt` and `authData`.
public struct AttestationObject: Sendable {
    public let format: String
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData

    /// §7.1 step 13: CBOR decoding of the attestation object. Strict: one item, no trailing
    /// bytes, unique keys, and attested credential data present.
    public init(bytes: [UInt8]) throws {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes, allowingIndefiniteContainers: true) } catch {
            throw WebAuthnError.invalidRequest("attestationObject is not valid CBOR: \(error)")
        }
        guard let entries = value.mapEntries else { throw WebAuthnError.invalidRequest("attestationObject is not a map") }
        guard let fmt = value[text: "fmt"]?.textValue else { throw WebAuthnError.invalidRequest("attestationObject has no text fmt") }
        // attStmtTemplate: a map, or an array (`compound`, §8.9); the format checks the rest.
        guard let statement = value[text: "attStmt"], statement.mapEntries != nil || statement.arrayValue != nil else {
            throw WebAuthnError.invalidRequest("attestationObject has no attStmt map or array")
        }
        guard let authData = value[text: "authData"]?.bytesValue else {
            throw WebAuthnError.invalidRequest("attestationObject has no authData byte string")
        }
        guard entries.count == 3 else { throw WebAuthnError.invalidRequest("attestationObject has unexpected members") }
        let parsed = try AuthenticatorData(bytes: authData)
        guard parsed.attestedCredentialData != nil else {
            throw WebAuthnError.invalidRequest("authenticator data in a registration has no attested credential data (AT flag)")
        }
        self.format = fmt
        self.statement = statement
        self.authenticatorData = parsed
    }
}
