internal import PasskeyCrypto

/// TPM attestation statement certificate requirements (WebAuthn L3 §8.3.1) for aikCert, and
/// the AAGUID extension check of §8.3's verification procedure.
enum TPMCertificateRequirements {
    static let subjectAlternativeNameOID = "2.5.29.17"
    /// tcg-kp-AIKCertificate.
    static let aikCertificateKeyPurpose = "2.23.133.8.3"
    /// tcg-at-tpmManufacturer, tcg-at-tpmModel, tcg-at-tpmVersion (TCG EK Credential Profile §3.2.9).
    static let tpmManufacturerOID = "2.23.133.2.1"
    static let tpmModelOID = "2.23.133.2.2"
    static let tpmVersionOID = "2.23.133.2.3"

    static func check(_ certificate: Certificate, aaguid: [UInt8]) throws {
        try checkVersion(certificate)
        try checkSubjectEmpty(certificate)
        try checkSubjectAlternativeName(certificate)
        try checkExtendedKeyUsage(certificate)
        try checkNotCA(certificate)
        try checkAAGUIDExtension(certificate, aaguid: aaguid)
    }

    /// "Version MUST be set to 3."
    static func checkVersion(_ certificate: Certificate) throws {
        guard certificate.version == 3 else {
            throw WebAuthnError.invalidAttestation("aikCert version is \(certificate.version), not 3")
        }
    }

    /// "Subject field MUST be set to empty."
    static func checkSubjectEmpty(_ certificate: Certificate) throws {
        guard certificate.subject.isEmpty else {
            throw WebAuthnError.invalidAttestation("aikCert subject is not empty")
        }
    }

    /// "The Subject Alternative Name extension MUST be set as defined in [TPMv2-EK-Profile]
    /// section 3.2.9": critical (the subject is empty, RFC 5280 §4.2.1.6), with a
    /// directoryName holding the TPM manufacturer, model and version, each exactly once.
    static func checkSubjectAlternativeName(_ certificate: Certificate) throws {
        guard let san = certificate.extensionValue(oid: subjectAlternativeNameOID) else {
            throw WebAuthnError.invalidAttestation("aikCert has no Subject Alternative Name extension")
        }
        guard san.critical else {
            throw WebAuthnError.invalidAttestation("aikCert's Subject Alternative Name extension is not critical")
        }
        let attributes = try directoryNameAttributes(san.value)
        for (oid, label) in [(tpmManufacturerOID, "TPM manufacturer"), (tpmModelOID, "TPM model"), (tpmVersionOID, "TPM version")] {
            let values = attributes.filter { $0.oid == oid }.map(\.value)
            guard values.count == 1, !values[0].isEmpty else {
                throw WebAuthnError.invalidAttestation("aikCert's Subject Alternative Name needs one \(label) (\(oid)), has \(values.count)")
            }
        }
    }

    /// "The Extended Key Usage extension MUST contain the OID 2.23.133.8.3."
    static func checkExtendedKeyUsage(_ certificate: Certificate) throws {
        guard certificate.extendedKeyUsageOIDs.contains(aikCertificateKeyPurpose) else {
            throw WebAuthnError.invalidAttestation("aikCert's Extended Key Usage lacks tcg-kp-AIKCertificate (2.23.133.8.3)")
        }
    }

    /// "The Basic Constraints extension MUST have the CA component set to false."
    static func checkNotCA(_ certificate: Certificate) throws {
        guard certificate.basicConstraintsIsCA != true else {
            throw WebAuthnError.invalidAttestation("aikCert is a CA certificate")
        }
    }

    /// "If aikCert contains an extension with OID 1.3.6.1.4.1.45724.1.1.4 (id-fido-gen-ce-aaguid)
    /// verify that the value of this extension matches the aaguid in authenticatorData." Not
    /// critical, a 16-byte OCTET STRING: the same rule as packed's.
    static func checkAAGUIDExtension(_ certificate: Certificate, aaguid: [UInt8]) throws {
        try PackedCertificateRequirements.checkAAGUIDExtension(certificate, aaguid: aaguid)
    }

    /// The attributes of every directoryName in GeneralNames (RFC 5280 §4.2.1.6):
    /// SEQUENCE OF GeneralName, directoryName = [4] EXPLICIT Name, Name = SEQUENCE OF
    /// RelativeDistinguishedName (SET OF AttributeTypeAndValue). Values must be UTF8String or
    /// PrintableString. Other GeneralName choices are skipped.
    static func directoryNameAttributes(_ generalNames: [UInt8]) throws -> [(oid: String, value: String)] {
        do {
            return try readDirectoryNameAttributes(generalNames)
        } catch let error as CryptoError {
            throw malformedSAN(error.reason)
        }
    }

    private static func malformedSAN(_ reason: String) -> WebAuthnError {
        WebAuthnError.invalidAttestation("aikCert's Subject Alternative Name does not decode: \(reason)")
    }

    private static func readDirectoryNameAttributes(_ generalNames: [UInt8]) throws -> [(oid: String, value: String)] {
        var attributes: [(oid: String, value: String)] = []
        for generalName in try DER.parseSequence(generalNames) where generalName.isContextSpecific(4) {
            let name = try generalName.explicitlyTagged(4)
            guard name.tag == 0x30 else {
                throw malformedSAN("directoryName is not an RDNSequence")
            }
            for rdn in try name.children() {
                guard rdn.tag == 0x31 else { throw malformedSAN("RDN is not a SET") }
                for pair in try rdn.children() {
                    guard pair.tag == 0x30, case let parts = try pair.children(), parts.count == 2 else {
                        throw malformedSAN("AttributeTypeAndValue is not SEQUENCE { type, value }")
                    }
                    guard parts[1].tag == 0x0C || parts[1].tag == 0x13,
                          let value = String(validating: parts[1].content, as: UTF8.self)
                    else {
                        throw malformedSAN("attribute value is not a UTF8String or PrintableString")
                    }
                    attributes.append((try parts[0].objectIdentifier(), value))
                }
            }
        }
        return attributes
    }
}
