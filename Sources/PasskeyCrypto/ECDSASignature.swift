/// The DER ECDSA-Sig-Value (RFC 3279 §2.2.3): SEQUENCE { r INTEGER, s INTEGER }.
public enum ECDSASignature {
    /// Strict DER (SEQUENCE of two positive INTEGERs, minimal encoding, nothing trailing).
    /// Returns r and s as minimal big-endian magnitudes (no sign byte). Zero and negative
    /// values throw `.invalidSignatureEncoding`. Range against the curve order is the caller's.
    public static func components(der: [UInt8]) throws -> (r: [UInt8], s: [UInt8]) {
        let elements: [DERNode]
        do {
            elements = try DER.parseSequence(der)
        } catch let error as CryptoError {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA signature: " + error.reason)
        }
        guard elements.count == 2 else {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA signature: expected 2 INTEGERs, found \(elements.count) elements")
        }
        return (try positiveInteger(elements[0], name: "r"), try positiveInteger(elements[1], name: "s"))
    }

    private static func positiveInteger(_ node: DERNode, name: String) throws -> [UInt8] {
        guard node.tag == 0x02 else {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA signature: \(name) is not an INTEGER")
        }
        let content = node.content
        guard let first = content.first else {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA signature: \(name) is empty")
        }
        guard first & 0x80 == 0 else {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA signature: \(name) is negative")
        }
        if first == 0, content.count > 1, content[content.startIndex + 1] & 0x80 == 0 {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA signature: \(name) is not minimally encoded")
        }
        let magnitude = BigEndian.minimal(content)
        guard !magnitude.isEmpty else {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA signature: \(name) is zero")
        }
        return magnitude
    }
}
