extension CBORValue {
    /// The CBOR integer `v`: `.unsigned` when `v >= 0`, otherwise `.negative(-1 - v)`.
    public static func int(_ v: Int64) -> CBORValue {
        // -1 - Int64.min == Int64.max, so this never overflows.
        v >= 0 ? .unsigned(UInt64(v)) : .negative(UInt64(-1 - v))
    }

    /// The value stored under `key` when `self` is a map; nil when absent or not a map.
    public subscript(key: CBORValue) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        return entries.first(where: { $0.key == key })?.value
    }

    /// The value stored under the text key `key` (e.g. `"fmt"` in an attestation object).
    public subscript(text key: String) -> CBORValue? {
        self[.text(key)]
    }

    /// The value stored under the integer key `key` (e.g. COSE key labels `1`, `3`, `-1`).
    public subscript(int key: Int64) -> CBORValue? {
        self[.int(key)]
    }

    /// The integer value when `self` is an integer that fits in `Int64`.
    public var intValue: Int64? {
        switch self {
        case .unsigned(let n):
            n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n):
            n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default:
            nil
        }
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { b } else { nil }
    }

    public var textValue: String? {
        if case .text(let s) = self { s } else { nil }
    }

    public var arrayValue: [CBORValue]? {
        if case .array(let items) = self { items } else { nil }
    }

    public var mapEntries: [CBORMapEntry]? {
        if case .map(let entries) = self { entries } else { nil }
    }
}
