extension Certificate {
    /// id-ce-subjectAltName (RFC 5280 §4.2.1.6).
    public static let subjectAlternativeNameOID = "2.5.29.17"

    /// The dNSName entries of the subjectAltName extension, in order; empty when the certificate
    /// has no such extension.
    ///
    /// The extension is parsed strictly with `DER`: `GeneralNames ::= SEQUENCE SIZE (1..MAX) OF
    /// GeneralName`, every element one of the nine GeneralName choices with the right
    /// primitive/constructed form, and every dNSName an IA5String (7-bit). Anything else throws
    /// `.invalidCertificate`. Names are returned as written (no case folding, no wildcard
    /// interpretation).
    public var subjectAlternativeDNSNames: [String] {
        get throws {
            guard let ext = extensionValue(oid: Self.subjectAlternativeNameOID) else { return [] }
            let names = try DER.parseSequence(ext.value)
            guard !names.isEmpty else {
                throw CryptoError(.invalidCertificate, "subjectAltName: empty GeneralNames")
            }
            var dnsNames: [String] = []
            for name in names {
                try GeneralNameTag.check(name.tag)
                guard name.tag == GeneralNameTag.dnsName else { continue }
                guard name.content.allSatisfy({ $0 < 0x80 }) else {
                    throw CryptoError(.invalidCertificate, "subjectAltName: dNSName is not an IA5String")
                }
                dnsNames.append(String(decoding: name.content, as: UTF8.self))
            }
            return dnsNames
        }
    }
}

/// GeneralName (RFC 5280 §4.2.1.6) identifier octets: context-specific [0]…[8]; otherName,
/// x400Address, directoryName and ediPartyName are constructed, the others primitive.
private enum GeneralNameTag {
    static let dnsName: UInt8 = 0x82
    static let allowed: Set<UInt8> = [0xA0, 0x81, 0x82, 0xA3, 0xA4, 0xA5, 0x86, 0x87, 0x88]

    static func check(_ tag: UInt8) throws {
        guard allowed.contains(tag) else {
            throw CryptoError(.invalidCertificate, "subjectAltName: 0x\(String(tag, radix: 16)) is not a GeneralName")
        }
    }
}
