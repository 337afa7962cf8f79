/// Where values sit in a JSON text, for messages that name a line: the top-level object's
/// members and the elements of an array, as byte offsets. Give it text `StrictJSON.parse`
/// accepted; anything else answers nil (never a trap), whatever the bytes.
public enum JSONOffsets {
    /// The top-level object's members: each name (unescaped) with the offset of its value, in
    /// the order of the text. Nil when the text is not an object.
    public static func members(in bytes: [UInt8]) -> [(name: String, offset: Int)]? {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.take(UInt8(ascii: "{")) else { return nil }
        var found: [(name: String, offset: Int)] = []
        scanner.skipWhitespace()
        if scanner.take(UInt8(ascii: "}")) { return found }
        while true {
            scanner.skipWhitespace()
            guard let name = scanner.string() else { return nil }
            scanner.skipWhitespace()
            guard scanner.take(UInt8(ascii: ":")) else { return nil }
            scanner.skipWhitespace()
            found.append((name, scanner.index))
            guard scanner.skipValue(depth: 1) else { return nil }
            scanner.skipWhitespace()
            if scanner.take(UInt8(ascii: ",")) { continue }
            guard scanner.take(UInt8(ascii: "}")) else { return nil }
            return found
        }
    }

    /// The offsets of the elements of the array that starts at `offset`; nil when no array
    /// starts there.
    public static func elements(ofArrayAt offset: Int, in bytes: [UInt8]) -> [Int]? {
        guard offset >= 0, offset <= bytes.count else { return nil }
        var scanner = Scanner(bytes: bytes, index: offset)
        guard scanner.take(UInt8(ascii: "[")) else { return nil }
        var found: [Int] = []
        scanner.skipWhitespace()
        if scanner.take(UInt8(ascii: "]")) { return found }
        while true {
            scanner.skipWhitespace()
            found.append(scanner.index)
            guard scanner.skipValue(depth: 1) else { return nil }
            scanner.skipWhitespace()
            if scanner.take(UInt8(ascii: ",")) { continue }
            guard scanner.take(UInt8(ascii: "]")) else { return nil }
            return found
        }
    }

    /// The 1-based line of the byte at `offset` (offsets past the end count as the last line).
    public static func line(ofOffset offset: Int, in bytes: [UInt8]) -> Int {
        1 + bytes.prefix(max(0, offset)).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        /// A string at the index, unescaped by the strict parser; nil when there is none.
        mutating func string() -> String? {
            let start = index
            guard skipString() else { return nil }
            guard case .string(let text)? = try? StrictJSON.parse(Array(bytes[start..<index])) else { return nil }
            return text
        }

        mutating func skipString() -> Bool {
            guard take(UInt8(ascii: "\"")) else { return false }
            while let byte = current {
                index += 1
                if byte == UInt8(ascii: "\\") {
                    guard current != nil else { return false }
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    return true
                }
            }
            return false
        }

        /// Past one value: a string, an object or array (nested at most `StrictJSON.maximumDepth`),
        /// or a literal or number (up to the next delimiter).
        mutating func skipValue(depth: Int) -> Bool {
            guard depth <= StrictJSON.maximumDepth, let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                index += 1
                skipWhitespace()
                if take(close) { return true }
                while true {
                    skipWhitespace()
                    if byte == UInt8(ascii: "{") {
                        guard skipString() else { return false }
                        skipWhitespace()
                        guard take(UInt8(ascii: ":")) else { return false }
                        skipWhitespace()
                    }
                    guard skipValue(depth: depth + 1) else { return false }
                    skipWhitespace()
                    if take(UInt8(ascii: ",")) { continue }
                    return take(close)
                }
            default:
                let start = index
                while let next = current, !",]} \t\r\n:".utf8.contains(next) { index += 1 }
                return index > start
            }
        }
    }
}
