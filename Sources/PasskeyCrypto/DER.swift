/// One DER TLV. Constructed nodes carry their parsed children.
public struct DERNode: Sendable {
    /// The identifier octet (class, constructed bit, tag number < 31).
    public let tag: UInt8
    /// The content octets.
    public let content: [UInt8]
    private let parsedChildren: [DERNode]

    public var isConstructed: Bool { tag & 0x20 != 0 }

    /// The nodes inside a constructed node; throws for a primitive one.
    public func children() throws -> [DERNode] {
        guard isConstructed else {
            throw CryptoError(.invalidCertificate, "DER: tag 0x\(String(tag, radix: 16)) is primitive, it has no children")
        }
        return parsedChildren
    }

    init(tag: UInt8, content: [UInt8], children: [DERNode]) {
        self.tag = tag
        self.content = content
        self.parsedChildren = children
    }
}

/// A minimal strict DER reader for certificate extension contents: single-byte tags only,
/// definite minimal lengths, constructed contents parsed eagerly, nesting capped at 16 levels,
/// nothing trailing. Errors use `CryptoError.Code.invalidCertificate`.
public enum DER {
    static let maximumDepth = 16

    /// Exactly one TLV spanning all of `bytes`.
    public static func parse(_ bytes: [UInt8]) throws -> DERNode {
        var reader = Reader(bytes: bytes[...])
        let node = try reader.readNode(depth: 1)
        guard reader.isAtEnd else {
            throw CryptoError(.invalidCertificate, "DER: \(reader.remaining) trailing bytes")
        }
        return node
    }

    /// The elements of a SEQUENCE spanning all of `bytes`.
    public static func parseSequence(_ bytes: [UInt8]) throws -> [DERNode] {
        let node = try parse(bytes)
        guard node.tag == 0x30 else {
            throw CryptoError(.invalidCertificate, "DER: expected SEQUENCE, found tag 0x\(String(node.tag, radix: 16))")
        }
        return try node.children()
    }

    private struct Reader {
        var bytes: ArraySlice<UInt8>

        var isAtEnd: Bool { bytes.isEmpty }
        var remaining: Int { bytes.count }

        mutating func readNode(depth: Int) throws -> DERNode {
            guard depth <= DER.maximumDepth else {
                throw CryptoError(.invalidCertificate, "DER: nesting deeper than \(DER.maximumDepth)")
            }
            guard let tag = bytes.popFirst() else {
                throw CryptoError(.invalidCertificate, "DER: truncated (no tag)")
            }
            guard tag & 0x1F != 0x1F else {
                throw CryptoError(.invalidCertificate, "DER: multi-byte tags are not supported")
            }
            let length = try readLength()
            guard length <= bytes.count else {
                throw CryptoError(.invalidCertificate, "DER: length \(length) exceeds the \(bytes.count) bytes left")
            }
            let content = Array(bytes.prefix(length))
            bytes = bytes.dropFirst(length)
            var children: [DERNode] = []
            if tag & 0x20 != 0 {
                var inner = Reader(bytes: content[...])
                while !inner.isAtEnd {
                    children.append(try inner.readNode(depth: depth + 1))
                }
            }
            return DERNode(tag: tag, content: content, children: children)
        }

        private mutating func readLength() throws -> Int {
            guard let first = bytes.popFirst() else {
                throw CryptoError(.invalidCertificate, "DER: truncated (no length)")
            }
            if first < 0x80 { return Int(first) }
            let count = Int(first & 0x7F)
            guard count != 0 else {
                throw CryptoError(.invalidCertificate, "DER: indefinite length")
            }
            guard count <= 4, count <= bytes.count else {
                throw CryptoError(.invalidCertificate, "DER: bad long-form length")
            }
            let lengthBytes = bytes.prefix(count)
            bytes = bytes.dropFirst(count)
            guard lengthBytes.first != 0 else {
                throw CryptoError(.invalidCertificate, "DER: length with a leading zero byte")
            }
            let length = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
            guard length >= 0x80 else {
                throw CryptoError(.invalidCertificate, "DER: long-form length below 128")
            }
            return length
        }
    }
}
