internal import PasskeyCBOR

/// `none` (WebAuthn L3 §8.7): no attestation; attStmt must be an empty map.
public struct NoneAttestation: AttestationStatementFormat {
    public init() {}
    public var identifier: String { "none" }

    public func verify(_ input: AttestationInput) throws -> AttestationOutcome {
        guard input.statement.mapEntries?.isEmpty == true else {
            throw WebAuthnError.invalidAttestation("fmt none requires an empty attStmt")
        }
        return AttestationOutcome(type: .none, trustPath: [])
    }
}
