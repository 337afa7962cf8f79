internal import CPasskeyOpenSSL

/// An X.501 name as an ordered list of attributes (multi-valued RDNs are flattened).
public struct DistinguishedName: Sendable, Equatable {
    public struct Attribute: Sendable, Equatable {
        /// Dotted-decimal attribute type, e.g. "2.5.4.11".
        public let oid: String
        /// OpenSSL's short name, e.g. "OU"; the OID when OpenSSL has no name for it.
        public let shortName: String
        /// The value as UTF-8; a value that is not a string type is "#" + hex of its content.
        public let value: String
    }

    public let attributes: [Attribute]

    /// Values of every attribute with this short name, in order (e.g. `dn["OU"]`).
    public subscript(shortName: String) -> [String] {
        attributes.filter { $0.shortName == shortName }.map(\.value)
    }

    public var isEmpty: Bool { attributes.isEmpty }

    /// Reads an `X509_NAME *` (not owned).
    init(reading name: OpaquePointer?) {
        guard let name else {
            attributes = []
            return
        }
        var attributes: [Attribute] = []
        for index in 0..<max(0, X509_NAME_entry_count(name)) {
            guard let entry = X509_NAME_get_entry(name, index) else { continue }
            let object = X509_NAME_ENTRY_get_object(entry)
            let oid = oidText(object) ?? "?"
            let nid = OBJ_obj2nid(object)
            let shortName = nid == NID_undef ? oid : (OBJ_nid2sn(nid).map { String(cString: $0) } ?? oid)
            attributes.append(Attribute(oid: oid, shortName: shortName,
                                        value: Self.text(of: X509_NAME_ENTRY_get_data(entry))))
        }
        self.attributes = attributes
    }

    private static func text(of value: UnsafeMutablePointer<ASN1_STRING>?) -> String {
        guard let value else { return "" }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, value)
        if length >= 0, let utf8 {
            defer { passkey_openssl_free(utf8) }
            return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
        }
        OpenSSLErrorQueue.clear()
        let count = Int(ASN1_STRING_length(value))
        guard count > 0, let data = ASN1_STRING_get0_data(value) else { return "#" }
        let hexDigits = Array("0123456789abcdef")
        var text = "#"
        for byte in UnsafeBufferPointer(start: data, count: count) {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return text
    }
}
