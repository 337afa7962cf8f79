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

    /// The DER ECDSA-Sig-Value for a signature given as r ‖ s, both halves of equal length —
    /// the form JWS (RFC 7518 §3.4), COSE and IEEE P1363 use. Leading zero bytes are dropped and a
    /// 0x00 is prepended where the high bit is set, so the result is minimal DER. Throws
    /// `.invalidSignatureEncoding` for an empty or odd-length input. Whether the halves have the
    /// curve's size, and whether r and s are in range, is the caller's (and the verifier's) concern.
    public static func der(concatenated raw: [UInt8]) throws -> [UInt8] {
        guard !raw.isEmpty, raw.count % 2 == 0 else {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA signature: r ‖ s of \(raw.count) bytes cannot be split in two halves")
        }
        let half = raw.count / 2
        let body = integerTLV(Array(raw[..<half])) + integerTLV(Array(raw[half...]))
        return [0x30] + lengthOctets(body.count) + body
    }

    /// r ‖ s, each left-padded to `size` bytes (32 for P-256), from a DER ECDSA-Sig-Value: the
    /// form JWS wants (RFC 7518 §3.4), the inverse of `der(concatenated:)`. Throws
    /// `.invalidSignatureEncoding` when the DER is not strict or r or s is longer than `size`.
    public static func concatenated(der: [UInt8], size: Int) throws -> [UInt8] {
        let (r, s) = try components(der: der)
        guard r.count <= size, s.count <= size else {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA signature: r or s is longer than \(size) bytes")
        }
        return [UInt8](repeating: 0, count: size - r.count) + r + [UInt8](repeating: 0, count: size - s.count) + s
    }

    /// INTEGER holding a non-negative big-endian magnitude, minimally encoded.
    private static func integerTLV(_ magnitude: [UInt8]) -> [UInt8] {
        var content = BigEndian.minimal(magnitude)
        if content.first.map({ $0 & 0x80 != 0 }) ?? true {
            content.insert(0x00, at: 0)
        }
        return [0x02] + lengthOctets(content.count) + content
    }

    /// DER definite length: short form below 128, else the minimal long form.
    private static func lengthOctets(_ length: Int) -> [UInt8] {
        guard length >= 0x80 else { return [UInt8(length)] }
        var bytes: [UInt8] = []
        var remaining = length
        while remaining > 0 {
            bytes.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
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

extension ECDSASignature {
    /// The DER ECDSA-Sig-Value for a fixed-size `r ‖ s` signature, as JWS (RFC 7518 §3.4) and
    /// COSE carry ECDSA: `raw` must be exactly two `coordinateSize`-byte big-endian integers.
    /// Zero r or s is refused here; the range check against the curve order stays with the
    /// verifier (`isValidSignature`).
    public static func der(raw: [UInt8], curve: EllipticCurve) throws -> [UInt8] {
        let size = curve.coordinateSize
        guard raw.count == 2 * size else {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA r‖s for \(curve.groupName) must be \(2 * size) bytes, got \(raw.count)")
        }
        let r = BigEndian.minimal(Array(raw[0..<size])), s = BigEndian.minimal(Array(raw[size...]))
        guard !r.isEmpty, !s.isEmpty else {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA r‖s has a zero component")
        }
        let body = derInteger(r) + derInteger(s)
        return [0x30] + derLength(body.count) + body
    }

    /// A positive INTEGER from a minimal magnitude: a 0x00 byte first when the top bit is set.
    private static func derInteger(_ magnitude: [UInt8]) -> [UInt8] {
        let content = magnitude[0] & 0x80 != 0 ? [0] + magnitude : magnitude
        return [0x02] + derLength(content.count) + content
    }

    private static func derLength(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        if count <= 0xff { return [0x81, UInt8(count)] }
        return [0x82, UInt8(count >> 8), UInt8(count & 0xff)]
    }
}
