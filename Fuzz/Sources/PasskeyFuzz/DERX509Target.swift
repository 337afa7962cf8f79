import Foundation
import PasskeyCrypto

/// `der-x509`: PasskeyCrypto's DER reader (`DER.parse`, every typed accessor on every node),
/// ECDSA signature DER, SubjectPublicKeyInfo import, `Certificate(derEncoded:)` with every field
/// and extension read, chain verification of the certificate against itself, and — for input
/// that does not start like DER (0x30) — PEM with `Certificate.certificates(pem:)`.
enum DERX509Target {
    /// The extensions the core reads: basicConstraints, extendedKeyUsage, subjectAltName, the
    /// FIDO AAGUID, Android key attestation, Apple's nonce, TPM's subjectDirectoryAttributes.
    static let extensionOIDs = [
        "2.5.29.19", "2.5.29.37", "2.5.29.17", "2.5.29.15", "2.5.29.9",
        "1.3.6.1.4.1.45724.1.1.4", "1.3.6.1.4.1.11129.2.1.17", "1.2.840.113635.100.8.2",
    ]

    static func run(_ bytes: [UInt8]) {
        if let node = attempt("DER", { try DER.parse(bytes) }) {
            visit(node, depth: 0)
        }
        if let elements = try? DER.parseSequence(bytes) {
            for element in elements { visit(element, depth: 1) }
        }
        if let parts = try? ECDSASignature.components(der: bytes) {
            expect(!parts.r.isEmpty && !parts.s.isEmpty, "ECDSA signature components are empty")
        }
        _ = try? ECDSASignature.der(concatenated: bytes)
        if let key = attempt("SubjectPublicKeyInfo", { try PublicKey(subjectPublicKeyInfo: bytes) }) {
            _ = (key.kind, key.ecCoordinates, key.edwardsRaw, key.rsaComponents)
        }
        if let certificate = attempt("certificate", { try Certificate(derEncoded: bytes) }) {
            inspect(certificate)
        }
        if bytes.first != 0x30, let certificates = attempt("PEM", { try Certificate.certificates(pem: String(decoding: bytes, as: UTF8.self)) }) {
            for certificate in certificates { inspect(certificate) }
        }
    }

    static func visit(_ node: DERNode, depth: Int) {
        _ = (node.tag, node.tagNumber, node.tagClass, node.content.count)
        _ = try? node.integerValue()
        _ = try? node.enumeratedValue()
        _ = try? node.objectIdentifier()
        _ = try? node.checkNull()
        _ = node.isContextSpecific(node.tagNumber)
        _ = try? node.explicitlyTagged(node.tagNumber)
        if let children = try? node.children() {
            for child in children { visit(child, depth: depth + 1) }
        }
    }

    static func inspect(_ certificate: Certificate) {
        _ = (certificate.version, certificate.notBefore, certificate.notAfter, certificate.isSelfIssued)
        _ = (certificate.basicConstraintsIsCA, certificate.extendedKeyUsageOIDs)
        for name in [certificate.subject, certificate.issuer] {
            for attribute in name.attributes { _ = (attribute.oid, attribute.shortName, attribute.value.utf8.count) }
            _ = name["CN"]
        }
        _ = try? certificate.subjectAlternativeDNSNames
        if let key = try? certificate.publicKey {
            _ = (key.kind, key.subjectPublicKeyInfo.count)
        }
        for oid in extensionOIDs {
            if let value = certificate.extensionValue(oid: oid)?.value, let node = try? DER.parse(value) {
                visit(node, depth: 0)
            }
        }
        _ = CertificateChain.verify(leaf: certificate, intermediates: [], anchors: [certificate], at: Fixtures.now)
    }
}
