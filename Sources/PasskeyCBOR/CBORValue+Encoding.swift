extension CBORValue {
    /// The CBOR encoding of this value: shortest-form heads, definite lengths only, map
    /// entries in their stored order, every float as a double (major type 7, 0xfb).
    ///
    /// `.simple(v)` is written as given; values 20...31 are not meant for it (20...23 are
    /// false/true/null/undefined, 24...31 are not well-formed).
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    private func encode(into out: inout [UInt8]) {
        switch self {
        case .unsigned(let n):
            Self.appendHead(major: 0, argument: n, to: &out)
        case .negative(let n):
            Self.appendHead(major: 1, argument: n, to: &out)
        case .bytes(let b):
            Self.appendHead(major: 2, argument: UInt64(b.count), to: &out)
            out.append(contentsOf: b)
        case .text(let s):
            let utf8 = s.utf8
            Self.appendHead(major: 3, argument: UInt64(utf8.count), to: &out)
            out.append(contentsOf: utf8)
        case .array(let items):
            Self.appendHead(major: 4, argument: UInt64(items.count), to: &out)
            for item in items { item.encode(into: &out) }
        case .map(let entries):
            Self.appendHead(major: 5, argument: UInt64(entries.count), to: &out)
            for entry in entries {
                entry.key.encode(into: &out)
                entry.value.encode(into: &out)
            }
        case .tagged(let tag, let item):
            Self.appendHead(major: 6, argument: tag, to: &out)
            item.encode(into: &out)
        case .simple(let v):
            if v < 24 {
                out.append(0xe0 | v)
            } else {
                out.append(0xf8)
                out.append(v)
            }
        case .bool(let b):
            out.append(b ? 0xf5 : 0xf4)
        case .null:
            out.append(0xf6)
        case .undefined:
            out.append(0xf7)
        case .float(let d):
            out.append(0xfb)
            Self.appendBigEndian(d.bitPattern, byteCount: 8, to: &out)
        }
    }

    /// Appends the shortest head for `major` with `argument` (RFC 8949 §3, §4.2.1).
    private static func appendHead(major: UInt8, argument: UInt64, to out: inout [UInt8]) {
        let mt = major << 5
        switch argument {
        case 0..<24:
            out.append(mt | UInt8(argument))
        case 24...0xff:
            out.append(mt | 24)
            out.append(UInt8(argument))
        case 0x100...0xffff:
            out.append(mt | 25)
            appendBigEndian(argument, byteCount: 2, to: &out)
        case 0x1_0000...0xffff_ffff:
            out.append(mt | 26)
            appendBigEndian(argument, byteCount: 4, to: &out)
        default:
            out.append(mt | 27)
            appendBigEndian(argument, byteCount: 8, to: &out)
        }
    }

    private static func appendBigEndian(_ value: UInt64, byteCount: Int, to out: inout [UInt8]) {
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
