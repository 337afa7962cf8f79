import PasskeyCrypto

/// Byte-level edits of DER certificates, for negative tests: parse with `DER`, change one field,
/// encode again (the signature no longer verifies, which is the point: the parsers must refuse
/// or survive such input before any signature is checked).
public enum DERSurgery {
    /// TLV with a minimal definite length.
    public static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let count = content.count
        let length: [UInt8]
        if count < 0x80 {
            length = [UInt8(count)]
        } else {
            var bytes: [UInt8] = []
            var remaining = count
            while remaining > 0 {
                bytes.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            length = [0x80 | UInt8(bytes.count)] + bytes
        }
        return [tag] + length + content
    }

    static func encode(_ node: DERNode) -> [UInt8] {
        tlv(node.tag, node.content)
    }

    /// The certificate with its version field ([0] EXPLICIT INTEGER) holding `integerContent`
    /// (the INTEGER's content octets, e.g. 7F FF FF FF FF FF FF FF for 2^63 − 1).
    public static func certificate(_ der: [UInt8], versionInteger integerContent: [UInt8]) throws -> [UInt8] {
        let outer = try DER.parse(der)
        var parts = try outer.children()
        var tbsFields = try parts[0].children()
        let version = tlv(0xA0, tlv(0x02, integerContent))
        let rest = tbsFields[0].tag == 0xA0 ? Array(tbsFields.dropFirst()) : tbsFields
        tbsFields = []
        let tbs = tlv(0x30, version + rest.flatMap(encode))
        parts.removeFirst()
        return tlv(0x30, tbs + parts.flatMap(encode))
    }
}
