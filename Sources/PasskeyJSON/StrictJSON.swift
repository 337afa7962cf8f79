/// A strict RFC 8259 syntax check, run on every JSON body before Foundation decodes it.
///
/// Foundation's decoder keeps the last of two members with the same name and skips a leading
/// byte order mark, so `{"type":"webauthn.get","type":"webauthn.create"}` would mean whatever
/// the last writer wanted. This checker refuses, with a reason: a BOM, invalid UTF-8, anything
/// outside the grammar, a member name repeated in one object (compared after unescaping, so
/// `"a"` and `"\u0061"` are the same name), unpaired surrogate escapes, numbers a double cannot
/// hold, nesting deeper than `maximumDepth`, and bytes after the value (other than white space).
public enum StrictJSON {
    public static let maximumDepth = 32
    /// The refusal's reason for bytes that are not UTF-8.
    public static let notUTF8 = "JSON is not valid UTF-8"

    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public let reason: String
        /// The byte offset the refusal names, when it names one.
        public var offset: Int? = nil
        public var description: String { reason }
    }

    public static func validate(_ bytes: [UInt8]) throws(Refusal) {
        _ = try run(bytes, building: false)
    }

    /// The checks of `validate` and the value, in one pass over the bytes: what
    /// `JSONValue(parsing:)` gives for the same text (numbers as it reads them: an integer when
    /// the number is one an Int64 holds exactly, else a double), without a second parse by
    /// Foundation.
    public static func parse(_ bytes: [UInt8]) throws(Refusal) -> JSONValue {
        try run(bytes, building: true)
    }

    private static func run(_ bytes: [UInt8], building: Bool) throws(Refusal) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw Refusal(reason: "JSON must not start with a byte order mark")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw Refusal(reason: notUTF8)
        }
        var parser = Parser(bytes: bytes, building: building)
        try parser.skipWhitespace()
        let value = try parser.value(depth: 1)
        try parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw Refusal(reason: "bytes after the JSON value at offset \(parser.index)", offset: parser.index)
        }
        return value
    }

    /// Checks, and with `building` also makes the value (without it every value is `.null`,
    /// and nothing is allocated but the list of member names, and escaped or non-ASCII names).
    private struct Parser {
        let bytes: [UInt8]
        let building: Bool
        var index = 0

        init(bytes: [UInt8], building: Bool) {
            self.bytes = bytes
            self.building = building
        }

        func fail(_ reason: String) -> Refusal {
            Refusal(reason: "\(reason) at offset \(index)", offset: index)
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() throws(Refusal) {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
            }
        }

        mutating func expect(_ byte: UInt8) throws(Refusal) {
            guard current == byte else { throw fail("expected '\(Character(Unicode.Scalar(byte)))'") }
            index += 1
        }

        mutating func value(depth: Int) throws(Refusal) -> JSONValue {
            guard depth <= StrictJSON.maximumDepth else { throw fail("nesting deeper than \(StrictJSON.maximumDepth)") }
            guard let byte = current else { throw fail("unexpected end of JSON") }
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return try stringValue()
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw fail("unexpected character")
            }
        }

        /// A string value: checked; with `building`, its text, read straight from the bytes
        /// when it has no escape.
        mutating func stringValue() throws(Refusal) -> JSONValue {
            let start = index
            _ = try string(collecting: false)
            guard building else { return .null }
            let body = bytes[(start + 1)..<(index - 1)]
            guard body.contains(UInt8(ascii: "\\")) else { return .string(String(decoding: body, as: UTF8.self)) }
            let end = index
            index = start
            let units = try string(collecting: true)
            index = end
            return .string(String(decoding: units, as: UTF16.self))
        }

        mutating func literal(_ word: String) throws(Refusal) {
            let expected = Array(word.utf8)
            guard bytes.count - index >= expected.count, bytes[index..<(index + expected.count)].elementsEqual(expected) else {
                throw fail("invalid literal")
            }
            index += expected.count
        }

        mutating func object(depth: Int) throws(Refusal) -> JSONValue {
            try expect(UInt8(ascii: "{"))
            try skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return building ? .object([:]) : .null
            }
            var names = MemberNames()
            var members: [String: JSONValue] = [:]
            while true {
                try skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                let key = try memberName(into: &names)
                try skipWhitespace()
                try expect(UInt8(ascii: ":"))
                try skipWhitespace()
                let member = try value(depth: depth + 1)
                // Two names that differ in UTF-16 but are one Swift string (canonically
                // equivalent) keep the first value, as Foundation's decoder does.
                if let key, members[key] == nil { members[key] = member }
                try skipWhitespace()
                guard let byte = current else { throw fail("unterminated object") }
                index += 1
                if byte == UInt8(ascii: "}") { return building ? .object(members) : .null }
                guard byte == UInt8(ascii: ",") else {
                    index -= 1
                    throw fail("expected ',' or '}'")
                }
            }
        }

        /// A member name, checked and added to `names`; a name `names` already holds is
        /// refused. With `building`, the name as a Swift string (nil without).
        /// A name of plain ASCII (no escape) is compared as its bytes, with no allocation; any
        /// other is unescaped first, so `"a"` and `"\u0061"` are one name.
        mutating func memberName(into names: inout MemberNames) throws(Refusal) -> String? {
            let start = index
            _ = try string(collecting: false)
            let body = bytes[(start + 1)..<(index - 1)]
            if !body.contains(where: { $0 >= 0x80 || $0 == UInt8(ascii: "\\") }) {
                guard names.insert(ascii: body) else { throw fail("member name repeated in one object") }
                return building ? String(decoding: body, as: UTF8.self) : nil
            }
            let end = index
            index = start
            let units = try string(collecting: true)
            index = end
            let inserted = units.allSatisfy { $0 < 0x80 }
                ? names.insert(ascii: ArraySlice(units.map { UInt8($0) }))
                : names.insert(other: units)
            guard inserted else { throw fail("member name repeated in one object") }
            return building ? String(decoding: units, as: UTF16.self) : nil
        }

        mutating func array(depth: Int) throws(Refusal) -> JSONValue {
            try expect(UInt8(ascii: "["))
            try skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return building ? .array([]) : .null
            }
            var items: [JSONValue] = []
            while true {
                try skipWhitespace()
                let item = try value(depth: depth + 1)
                if building { items.append(item) }
                try skipWhitespace()
                guard let byte = current else { throw fail("unterminated array") }
                index += 1
                if byte == UInt8(ascii: "]") { return building ? .array(items) : .null }
                guard byte == UInt8(ascii: ",") else {
                    index -= 1
                    throw fail("expected ',' or ']'")
                }
            }
        }

        /// A string; with `collecting`, returns its value as UTF-16 code units (escapes
        /// resolved), so that two spellings of one member name compare equal. Values are only
        /// checked (nothing is allocated for them).
        mutating func string(collecting: Bool) throws(Refusal) -> [UInt16] {
            try expect(UInt8(ascii: "\""))
            var units: [UInt16] = []
            var pendingHigh: UInt16?
            while true {
                guard let byte = current else { throw fail("unterminated string") }
                if byte == UInt8(ascii: "\"") {
                    guard pendingHigh == nil else { throw fail("unpaired surrogate escape") }
                    index += 1
                    return units
                }
                guard byte >= 0x20 else { throw fail("control character in a string") }
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard let escaped = current else { throw fail("unterminated escape") }
                    index += 1
                    let unit: UInt16
                    switch escaped {
                    case UInt8(ascii: "\""): unit = 0x22
                    case UInt8(ascii: "\\"): unit = 0x5C
                    case UInt8(ascii: "/"): unit = 0x2F
                    case UInt8(ascii: "b"): unit = 0x08
                    case UInt8(ascii: "f"): unit = 0x0C
                    case UInt8(ascii: "n"): unit = 0x0A
                    case UInt8(ascii: "r"): unit = 0x0D
                    case UInt8(ascii: "t"): unit = 0x09
                    case UInt8(ascii: "u"): unit = try hex4()
                    default: throw fail("invalid escape")
                    }
                    if let high = pendingHigh {
                        guard (0xDC00...0xDFFF).contains(unit) else { throw fail("unpaired surrogate escape") }
                        if collecting {
                            units.append(high)
                            units.append(unit)
                        }
                        pendingHigh = nil
                    } else if (0xD800...0xDBFF).contains(unit) {
                        pendingHigh = unit
                    } else if (0xDC00...0xDFFF).contains(unit) {
                        throw fail("unpaired surrogate escape")
                    } else if collecting {
                        units.append(unit)
                    }
                    continue
                }
                guard pendingHigh == nil else { throw fail("unpaired surrogate escape") }
                guard collecting else {
                    index += 1   // the whole input is valid UTF-8: continuation bytes are skipped one by one
                    continue
                }
                // Raw UTF-8 (the whole input is already valid UTF-8): one scalar, as UTF-16.
                let length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
                guard bytes.count - index >= length else { throw fail("truncated UTF-8") }
                var scalar = length == 1 ? UInt32(byte) : UInt32(byte) & (0xFF >> UInt32(length + 1))
                for offset in 1..<length {
                    scalar = scalar << 6 | UInt32(bytes[index + offset] & 0x3F)
                }
                guard let decoded = Unicode.Scalar(scalar) else { throw fail("invalid UTF-8") }
                units.append(contentsOf: UTF16.encode(decoded).map { Array($0) } ?? [])
                index += length
            }
        }

        mutating func hex4() throws(Refusal) -> UInt16 {
            guard bytes.count - index >= 4 else { throw fail("truncated \\u escape") }
            var value: UInt16 = 0
            for _ in 0..<4 {
                guard let digit = ASCIIHex.value(bytes[index]) else { throw fail("invalid \\u escape") }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }

        /// A number of RFC 8259 §6's grammar whose value a double can hold (§6: beyond that,
        /// parsers disagree; Foundation refuses `1e999`, so the checker does too).
        /// With `building`, read as `JSONValue(parsing:)` reads it: digits alone are an integer
        /// when an Int64 holds them, else a double. A number with a fraction or an exponent
        /// (rare in what the server reads) is handed to Foundation on its own, whose reading of
        /// those is its own (`1.0` and `1e2` are integers, `9007199254740993.5` is …993).
        mutating func number() throws(Refusal) -> JSONValue {
            let start = index
            try numberSyntax()
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw fail("number out of range") }
            guard building else { return .null }
            let plain = !bytes[start..<index].contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
            if plain { return Int64(text).map(JSONValue.integer) ?? .double(value) }
            return (try? JSONValue(parsing: bytes[start..<index])) ?? .double(value)
        }

        mutating func numberSyntax() throws(Refusal) {
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, isDigit(first) else { throw fail("invalid number") }
            index += 1
            if first != UInt8(ascii: "0") {
                while let byte = current, isDigit(byte) { index += 1 }
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard let byte = current, isDigit(byte) else { throw fail("invalid number") }
                while let byte = current, isDigit(byte) { index += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard let byte = current, isDigit(byte) else { throw fail("invalid number") }
                while let byte = current, isDigit(byte) { index += 1 }
            }
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }

    /// The member names of one object so far, as UTF-16 code units after unescaping (two
    /// names are one when those are equal). A name of ASCII code units is kept as its bytes:
    /// the first 16 in a list (a few compares beat hashing), beyond that in a set, so a
    /// hostile object of many members costs no more than hashing each name once.
    struct MemberNames {
        private static let listed = 16
        private var list: [ArraySlice<UInt8>] = []
        private var set: Set<ArraySlice<UInt8>> = []
        private var other: Set<[UInt16]> = []

        /// False when the name was already there.
        mutating func insert(ascii name: ArraySlice<UInt8>) -> Bool {
            if set.isEmpty {
                if list.contains(name) { return false }
                if list.count < Self.listed {
                    list.append(name)
                    return true
                }
                set = Set(list)
                list = []
            }
            return set.insert(name).inserted
        }

        mutating func insert(other name: [UInt16]) -> Bool {
            other.insert(name).inserted
        }
    }
}
