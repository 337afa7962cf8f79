internal import PasskeyCrypto

/// The Android key attestation extension (OID 1.3.6.1.4.1.11129.2.1.17), read strictly with
/// PasskeyCrypto's DER reader. Schema (Android "Verifying hardware-backed key pairs with key
/// attestation", KeyDescription):
///
///     KeyDescription ::= SEQUENCE {
///         attestationVersion         INTEGER,
///         attestationSecurityLevel   SecurityLevel,   -- ENUMERATED
///         keyMintVersion             INTEGER,         -- keymasterVersion before KeyMint
///         keyMintSecurityLevel       SecurityLevel,
///         attestationChallenge       OCTET STRING,
///         uniqueId                   OCTET STRING,
///         softwareEnforced           AuthorizationList,
///         hardwareEnforced           AuthorizationList }  -- teeEnforced before KeyMint
///
/// AuthorizationList is a SEQUENCE of optional `[n] EXPLICIT` fields in ascending tag order.
/// The fields WebAuthn §8.4 uses are decoded and type-checked — purpose `[1] SET OF INTEGER`,
/// allApplications `[600] NULL`, origin `[702] INTEGER`; the others (there are dozens, and new
/// KeyMint versions add more) must still be well-formed explicit tags, each at most once.
struct AndroidKeyDescription {
    static let extensionOID = "1.3.6.1.4.1.11129.2.1.17"

    /// The part of an AuthorizationList WebAuthn looks at.
    struct AuthorizationList {
        static let purposeTag: UInt32 = 1
        static let allApplicationsTag: UInt32 = 600
        static let originTag: UInt32 = 702

        /// `[1] purpose`: KM_PURPOSE_* values; nil when the field is absent.
        let purposes: [Int64]?
        /// `[600] allApplications` is present.
        let allApplications: Bool
        /// `[702] origin`: a KM_ORIGIN_* value; nil when absent.
        let origin: Int64?
    }

    let attestationVersion: Int64
    let attestationSecurityLevel: Int64
    let keymasterVersion: Int64
    let keymasterSecurityLevel: Int64
    let attestationChallenge: [UInt8]
    let uniqueID: [UInt8]
    let softwareEnforced: AuthorizationList
    /// `teeEnforced` (Keymaster) / `hardwareEnforced` (KeyMint).
    let hardwareEnforced: AuthorizationList

    /// Parses the extension's value (the bytes inside extnValue). Throws `invalid_attestation`.
    init(derEncoded: [UInt8]) throws {
        do {
            let fields = try DER.parseSequence(derEncoded)
            guard fields.count == 8 else {
                throw WebAuthnError.invalidAttestation("KeyDescription has \(fields.count) fields, not 8")
            }
            attestationVersion = try fields[0].integerValue()
            attestationSecurityLevel = try fields[1].enumeratedValue()
            keymasterVersion = try fields[2].integerValue()
            keymasterSecurityLevel = try fields[3].enumeratedValue()
            attestationChallenge = try Self.octetString(fields[4], "attestationChallenge")
            uniqueID = try Self.octetString(fields[5], "uniqueId")
            softwareEnforced = try Self.authorizationList(fields[6], "softwareEnforced")
            hardwareEnforced = try Self.authorizationList(fields[7], "teeEnforced")
        } catch let error as CryptoError {
            throw WebAuthnError.invalidAttestation("Android KeyDescription does not decode: \(error.reason)")
        }
    }

    private static func octetString(_ node: DERNode, _ field: String) throws -> [UInt8] {
        guard node.tag == 0x04 else {
            throw WebAuthnError.invalidAttestation("KeyDescription.\(field) is not an OCTET STRING")
        }
        return node.content
    }

    private static func authorizationList(_ node: DERNode, _ field: String) throws -> AuthorizationList {
        guard node.tag == 0x30 else {
            throw WebAuthnError.invalidAttestation("KeyDescription.\(field) is not a SEQUENCE")
        }
        var purposes: [Int64]?
        var allApplications = false
        var origin: Int64?
        var previousTag: UInt32?
        for entry in try node.children() {
            // DER: the optional fields of a SEQUENCE appear in their definition order, once.
            if let previousTag, entry.tagNumber <= previousTag {
                throw WebAuthnError.invalidAttestation("KeyDescription.\(field) tag [\(entry.tagNumber)] is out of order or repeated")
            }
            previousTag = entry.tagNumber
            let value = try entry.explicitlyTagged(entry.tagNumber)
            switch entry.tagNumber {
            case AuthorizationList.purposeTag:
                guard value.tag == 0x31 else {
                    throw WebAuthnError.invalidAttestation("KeyDescription.\(field).purpose is not a SET OF INTEGER")
                }
                let values = try value.children().map { try $0.integerValue() }
                guard Set(values).count == values.count else {
                    throw WebAuthnError.invalidAttestation("KeyDescription.\(field).purpose repeats a value")
                }
                purposes = values
            case AuthorizationList.allApplicationsTag:
                try value.checkNull()
                allApplications = true
            case AuthorizationList.originTag:
                origin = try value.integerValue()
            default:
                break
            }
        }
        return AuthorizationList(purposes: purposes, allApplications: allApplications, origin: origin)
    }
}
