/// The name–value pairs of `Cookie` header values (RFC 6265 §5.4), in the order sent: pairs
/// split on `;`, each on its first `=`, optional whitespace around both trimmed. A piece without
/// `=` is skipped; nothing is decoded (cookie values are opaque tokens here).
public enum CookieHeader {
    public static func pairs(_ headerValues: some Sequence<String>) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for header in headerValues {
            for piece in header.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true) {
                guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else { continue }
                let name = trimmed(piece[piece.startIndex..<equals])
                let value = trimmed(piece[piece.index(after: equals)...])
                pairs.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            }
        }
        return pairs
    }

    /// The value of the first cookie named `name`, or nil.
    public static func first(_ name: String, in headerValues: some Sequence<String>) -> String? {
        pairs(headerValues).first { $0.name == name }?.value
    }

    static func trimmed(_ bytes: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
        var bytes = bytes
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        return bytes
    }
}
