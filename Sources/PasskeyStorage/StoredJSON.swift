internal import PasskeyJSON

/// The JSON text the store keeps in list and details columns (`["usb","internal"]`, `[-7,-257]`,
/// `{"credential":"…","method":"passkey"}`), written and read without Foundation's coders.
///
/// Every finalize reads three such lists and writes one details object, so they skip the coders'
/// tree of values. What this writes is compact JSON that any JSON reader accepts. Reading
/// takes the plain form this writer produces; anything else (an escape, a float, a nested value,
/// rows written by an older version with Foundation's `\/`) returns nil, and the caller reads the
/// text with Foundation instead, so every valid stored value is still read.
public enum StoredJSON {
    // MARK: Writing

    public static func array(strings: [String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, string) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(string, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    public static func array(integers: [Int]) -> String {
        "[" + integers.map(String.init).joined(separator: ",") + "]"
    }

    /// An object of strings with its keys in byte order, as JSONEncoder's `.sortedKeys` wrote it.
    public static func object(_ map: [String: String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, key) in map.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendQuoted(map[key] ?? "", to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }


    // MARK: Reading the plain form

    /// `["a","b"]` with no escapes; nil for anything else.
    public static func plainStrings(_ text: String) -> [String]? {
        var items: [String] = []
        var reader = Reader(Array(text.utf8))
        let read = reader.members(UInt8(ascii: "["), UInt8(ascii: "]")) { reader in
            guard let item = reader.plainString() else { return false }
            items.append(item)
            return true
        }
        return read ? items : nil
    }

    /// `[-7,257]`: integers of at most 18 digits; nil for anything else.
    public static func plainIntegers(_ text: String) -> [Int]? {
        var items: [Int] = []
        var reader = Reader(Array(text.utf8))
        let read = reader.members(UInt8(ascii: "["), UInt8(ascii: "]")) { reader in
            guard let item = reader.plainInteger() else { return false }
            items.append(item)
            return true
        }
        return read ? items : nil
    }

    /// `{"k":"v",…}` with no escapes and no repeated key; nil for anything else.
    public static func plainObject(_ text: String) -> [String: String]? {
        var map: [String: String] = [:]
        var reader = Reader(Array(text.utf8))
        let read = reader.members(UInt8(ascii: "{"), UInt8(ascii: "}")) { reader in
            guard let key = reader.plainString(), reader.take(UInt8(ascii: ":")), let value = reader.plainString() else { return false }
            return map.updateValue(value, forKey: key) == nil
        }
        return read ? map : nil
    }

    /// A cursor over the bytes; every read checks the bounds (the column may hold anything).
    struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        /// The whole text is `open close`, or `open member (, member)* close`; `member` reads one
        /// and says whether it was well formed.
        mutating func members(_ open: UInt8, _ close: UInt8, _ member: (inout Reader) -> Bool) -> Bool {
            guard take(open) else { return false }
            if take(close) { return atEnd }
            repeat {
                guard member(&self) else { return false }
            } while take(UInt8(ascii: ","))
            return take(close) && atEnd
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string without escapes or control characters, as valid UTF-8.
        mutating func plainString() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let content = bytes[start..<index]
                    index += 1
                    // Invalid UTF-8 is left to the full reader (which refuses it).
                    return String(validating: content, as: UTF8.self)
                }
                guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { return nil }
                index += 1
            }
            return nil
        }

        /// An optional `-`, then 1 to 18 digits without a leading zero (or `0` alone).
        mutating func plainInteger() -> Int? {
            let negative = take(UInt8(ascii: "-"))
            let start = index
            var value = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), index - start < 18 {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            let digits = index - start
            guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
            // A 19th digit, a fraction or an exponent: not the plain form.
            if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
                || bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                return nil
            }
            return negative ? -value : value
        }
    }
}
