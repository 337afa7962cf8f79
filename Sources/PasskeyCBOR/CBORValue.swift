/// One decoded CBOR data item (RFC 8949 §3).
///
/// Equality is structural and byte-exact: text compares by its UTF-8 bytes (not by Unicode
/// canonical equivalence, which `String ==` uses) and floats compare by bit pattern, so
/// `NaN == NaN` and `0.0 != -0.0`. That is what duplicate-key detection needs: two keys are
/// the same exactly when they are the same CBOR value.
public enum CBORValue: Sendable {
    case unsigned(UInt64)
    /// The integer `-1 - n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    /// Entries in encoded order; the decoder guarantees unique keys.
    case map([CBORMapEntry])
    indirect case tagged(UInt64, CBORValue)
    /// A simple value other than false/true/null/undefined (0...19 or 32...255).
    case simple(UInt8)
    case bool(Bool)
    case null
    case undefined
    /// Half, single and double precision floats, widened to `Double`.
    case float(Double)
}

/// One key/value pair of a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    public var key: CBORValue
    public var value: CBORValue

    public init(key: CBORValue, value: CBORValue) {
        self.key = key
        self.value = value
    }
}

extension CBORValue: Hashable {
    public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        switch (lhs, rhs) {
        case let (.unsigned(a), .unsigned(b)): a == b
        case let (.negative(a), .negative(b)): a == b
        case let (.bytes(a), .bytes(b)): a == b
        case let (.text(a), .text(b)): a.utf8.elementsEqual(b.utf8)
        case let (.array(a), .array(b)): a == b
        case let (.map(a), .map(b)): a == b
        case let (.tagged(ta, a), .tagged(tb, b)): ta == tb && a == b
        case let (.simple(a), .simple(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case (.null, .null), (.undefined, .undefined): true
        case let (.float(a), .float(b)): a.bitPattern == b.bitPattern
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .unsigned(let n):
            hasher.combine(0 as UInt8)
            hasher.combine(n)
        case .negative(let n):
            hasher.combine(1 as UInt8)
            hasher.combine(n)
        case .bytes(let b):
            hasher.combine(2 as UInt8)
            hasher.combine(b)
        case .text(let s):
            hasher.combine(3 as UInt8)
            hasher.combine(s.utf8.count)
            for byte in s.utf8 { hasher.combine(byte) }
        case .array(let items):
            hasher.combine(4 as UInt8)
            hasher.combine(items)
        case .map(let entries):
            hasher.combine(5 as UInt8)
            hasher.combine(entries)
        case .tagged(let tag, let item):
            hasher.combine(6 as UInt8)
            hasher.combine(tag)
            hasher.combine(item)
        case .simple(let v):
            hasher.combine(7 as UInt8)
            hasher.combine(v)
        case .bool(let b):
            hasher.combine(8 as UInt8)
            hasher.combine(b)
        case .null:
            hasher.combine(9 as UInt8)
        case .undefined:
            hasher.combine(10 as UInt8)
        case .float(let d):
            hasher.combine(11 as UInt8)
            hasher.combine(d.bitPattern)
        }
    }
}
