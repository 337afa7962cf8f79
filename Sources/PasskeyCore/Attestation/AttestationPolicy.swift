public import Foundation

/// What the relying party accepts beyond a statement that verifies (WebAuthn L3 §7.1 step 24:
/// "If the attestation statement attStmt successfully verified but is not trustworthy per
/// step 23 above, the Relying Party SHOULD fail the registration ceremony"), and which
/// authenticator models it admits. Every refusal is `invalid_attestation`.
///
/// Without attestation (`none`, self attestation, or a chain that reaches no anchor) the AAGUID
/// is only the authenticator's claim: allow and deny lists bind only together with `.trusted`.
public struct AttestationPolicy: Sendable {
    public enum Trust: String, Sendable, CaseIterable {
        /// Any statement that verifies; trust is recorded with the credential.
        case any
        /// Only statements whose trust path verified to an anchor.
        case trusted
    }

    public var trust: Trust
    /// When not empty, only these AAGUIDs (16 bytes each) may register.
    public var allowedAAGUIDs: Set<[UInt8]>
    /// These AAGUIDs may not register.
    public var deniedAAGUIDs: Set<[UInt8]>

    public init(trust: Trust = .any, allowedAAGUIDs: Set<[UInt8]> = [], deniedAAGUIDs: Set<[UInt8]> = []) {
        self.trust = trust
        self.allowedAAGUIDs = allowedAAGUIDs
        self.deniedAAGUIDs = deniedAAGUIDs
    }

    /// §7.1 step 24: under `.trusted`, a statement that is not trustworthy fails the ceremony.
    public func checkTrustworthy(_ trusted: Bool, format: String, type: AttestationType) throws {
        guard trust == .trusted, !trusted else { return }
        throw WebAuthnError.invalidAttestation(
            "the attestation (\(format), \(type.rawValue)) does not chain to a trust anchor, and the policy requires one")
    }

    /// The deny list must not contain the AAGUID, claimed or attested (refusing on a claim is
    /// safe). The allow list, when not empty, admits only an AAGUID the attestation vouches for
    /// (`attested`): a claimed AAGUID would let any authenticator pass as an allowed model.
    public func checkAAGUIDAllowed(_ aaguid: [UInt8], attested: Bool) throws {
        if deniedAAGUIDs.contains(aaguid) {
            throw WebAuthnError.invalidAttestation("authenticator model \(UUIDString.format(aaguid)) is denied by the policy")
        }
        guard !allowedAAGUIDs.isEmpty else { return }
        guard allowedAAGUIDs.contains(aaguid) else {
            throw WebAuthnError.invalidAttestation("authenticator model \(UUIDString.format(aaguid)) is not in the allowed list")
        }
        guard attested else {
            throw WebAuthnError.invalidAttestation(
                "authenticator model \(UUIDString.format(aaguid)) is only claimed: no attestation chain to that model's metadata roots vouches for it")
        }
    }

    /// FIDO MDS3 §3.1.4: a model whose current status report says its attestation or keys are
    /// compromised (REVOKED, ATTESTATION_KEY_COMPROMISE, USER_VERIFICATION_BYPASS,
    /// USER_KEY_REMOTE_COMPROMISE, USER_KEY_PHYSICAL_COMPROMISE) may not register.
    public static func checkAuthenticatorStatus(_ entry: MetadataEntry?, now: Date) throws {
        guard let entry, let current = entry.currentStatus(at: now),
              AuthenticatorStatus.compromised.contains(current.status)
        else { return }
        let since = current.effectiveDateText.map { " since \($0)" } ?? ""
        let model = entry.description.map { "\"\($0)\"" } ?? UUIDString.format(entry.aaguid)
        throw WebAuthnError.invalidAttestation("the metadata status of authenticator model \(model) is \(current.status)\(since)")
    }
}

/// `attestation` in the registration options (WebAuthn L3 §5.4.7
/// AttestationConveyancePreference): what the relying party asks the client to convey.
public enum AttestationConveyancePreference: String, Sendable, CaseIterable {
    case none, indirect, direct, enterprise
}
