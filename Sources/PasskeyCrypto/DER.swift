/// One DER TLV. Constructed nodes carry their parsed children.
public struct DERNode: Sendable {
    /// The class bits of an identifier (X.690 §8.1.2.2).
    public enum TagClass: UInt8, Sendable {
        case universal = 0, application = 1, contextSpecific = 2, `private` = 3
    }

    /// The first identifier octet: class, constructed bit and, for tag numbers below 31, the
    /// number. For the high-tag-number form (numbers ≥ 31) its low five bits are 0x1F and the
    /// number is in `tagNumber`, so it never equals a single-octet identifier such as 0x04.
    public let tag: UInt8
    /// The tag number, in either form (e.g. 600 for Android's `[600] allApplications`).
    public let tagNumber: UInt32
    /// The content octets.
    public let content: [UInt8]
    private let parsedChildren: [DERNode]

    public var isConstructed: Bool { tag & 0x20 != 0 }
    public var tagClass: TagClass { TagClass(rawValue: tag >> 6)! }

    /// The nodes inside a constructed node; throws for a primitive one.
    public func children() throws -> [DERNode] {
        guard isConstructed else {
            throw CryptoError(.invalidCertificate, "DER: tag 0x\(String(tag, radix: 16)) is primitive, it has no children")
        }
        return parsedChildren
    }

    init(tag: UInt8, tagNumber: UInt32, content: [UInt8], children: [DERNode]) {
        self.tag = tag
        self.tagNumber = tagNumber
        self.content = content
        self.parsedChildren = children
    }
}

extension DERNode {
    /// Whether this is the context-specific tag `[number]` (either form, either encoding).
    public func isContextSpecific(_ number: UInt32) -> Bool {
        tagClass == .contextSpecific && tagNumber == number
    }

    /// The one value inside an EXPLICIT `[number]` tag: the node must be context-specific,
    /// constructed, numbered `number`, and hold exactly one element.
    public func explicitlyTagged(_ number: UInt32) throws -> DERNode {
        guard isContextSpecific(number), isConstructed else {
            throw CryptoError(.invalidCertificate, "DER: expected an explicit [\(number)], found \(tagDescription)")
        }
        guard parsedChildren.count == 1 else {
            throw CryptoError(.invalidCertificate, "DER: explicit [\(number)] holds \(parsedChildren.count) elements, not 1")
        }
        return parsedChildren[0]
    }

    /// An INTEGER (universal tag 2) that fits in Int64: minimal two's complement.
    public func integerValue() throws -> Int64 {
        try signedValue(expectedTag: 0x02, name: "INTEGER")
    }

    /// An ENUMERATED (universal tag 10) that fits in Int64: minimal two's complement.
    public func enumeratedValue() throws -> Int64 {
        try signedValue(expectedTag: 0x0A, name: "ENUMERATED")
    }

    /// A NULL (universal tag 5, no content).
    public func checkNull() throws {
        guard tag == 0x05, content.isEmpty else {
            throw CryptoError(.invalidCertificate, "DER: expected NULL, found \(tagDescription) of \(content.count) bytes")
        }
    }

    /// An OBJECT IDENTIFIER (universal tag 6) in dotted-decimal form. Subidentifiers must be
    /// minimal (no leading 0x80 octet) and fit in 64 bits.
    public func objectIdentifier() throws -> String {
        guard tag == 0x06 else {
            throw CryptoError(.invalidCertificate, "DER: expected OBJECT IDENTIFIER, found \(tagDescription)")
        }
        guard !content.isEmpty, content.last! & 0x80 == 0 else {
            throw CryptoError(.invalidCertificate, "DER: OBJECT IDENTIFIER is empty or truncated")
        }
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        var startsArc = true
        for byte in content {
            if startsArc, byte == 0x80 {
                throw CryptoError(.invalidCertificate, "DER: OBJECT IDENTIFIER subidentifier is not minimal")
            }
            guard value >> 57 == 0 else {
                throw CryptoError(.invalidCertificate, "DER: OBJECT IDENTIFIER subidentifier exceeds 64 bits")
            }
            value = value << 7 | UInt64(byte & 0x7F)
            startsArc = byte & 0x80 == 0
            if startsArc {
                arcs.append(value)
                value = 0
            }
        }
        // The first subidentifier packs two arcs: 40·X + Y with X ∈ {0, 1, 2}.
        let first = arcs[0]
        let leading: [UInt64] = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80]
        return (leading + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }

    var tagDescription: String {
        switch tagClass {
        case .universal: "universal tag \(tagNumber)"
        case .application: "[APPLICATION \(tagNumber)]"
        case .contextSpecific: "[\(tagNumber)]"
        case .private: "[PRIVATE \(tagNumber)]"
        }
    }

    private func signedValue(expectedTag: UInt8, name: String) throws -> Int64 {
        guard tag == expectedTag else {
            throw CryptoError(.invalidCertificate, "DER: expected \(name), found \(tagDescription)")
        }
        guard let first = content.first else {
            throw CryptoError(.invalidCertificate, "DER: \(name) has no content")
        }
        if content.count > 1 {
            let second = content[1]
            guard !(first == 0x00 && second & 0x80 == 0), !(first == 0xFF && second & 0x80 != 0) else {
                throw CryptoError(.invalidCertificate, "DER: \(name) is not minimally encoded")
            }
        }
        guard content.count <= 8 else {
            throw CryptoError(.invalidCertificate, "DER: \(name) of \(content.count) bytes does not fit in 64 bits")
        }
        // Sign-extend the first octet, then shift in the rest.
        var value = Int64(Int8(bitPattern: first))
        for byte in content.dropFirst() {
            value = value << 8 | Int64(byte)
        }
        return value
    }
}

/// A minimal strict DER reader for certificate extension contents: tags in the low form (number
/// below 31) or the minimal high-tag-number form (numbers 31 to 2^28 − 1), definite minimal
/// lengths, constructed contents parsed eagerly, nesting capped at 16 levels, nothing trailing.
/// Errors use `CryptoError.Code.invalidCertificate`.
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
            let tagNumber = tag & 0x1F == 0x1F ? try readHighTagNumber() : UInt32(tag & 0x1F)
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
            return DERNode(tag: tag, tagNumber: tagNumber, content: content, children: children)
        }

        /// X.690 §8.1.2.4: base-128 octets, bit 8 set on all but the last; the first may not be
        /// 0x80 (not minimal), and numbers below 31 must use the single-octet form. At most four
        /// octets (numbers below 2^28).
        private mutating func readHighTagNumber() throws -> UInt32 {
            var number: UInt32 = 0
            for index in 0..<4 {
                guard let octet = bytes.popFirst() else {
                    throw CryptoError(.invalidCertificate, "DER: truncated multi-byte tag")
                }
                guard !(index == 0 && octet == 0x80) else {
                    throw CryptoError(.invalidCertificate, "DER: multi-byte tag with a leading zero group")
                }
                number = number << 7 | UInt32(octet & 0x7F)
                if octet & 0x80 == 0 {
                    guard number >= 31 else {
                        throw CryptoError(.invalidCertificate, "DER: tag number \(number) must use the single-octet form")
                    }
                    return number
                }
            }
            throw CryptoError(.invalidCertificate, "DER: multi-byte tag longer than four octets")
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
