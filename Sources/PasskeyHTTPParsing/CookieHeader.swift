/// The name–value pairs of `Cookie` header values (RFC 6265 §5.4), in the order sent: pairs
/// split on `;`, each on its first `=`, optional whitespace around both trimmed. A piece without
/// `=` is skipped; nothing is decoded (cookie values are opaque tokens here).
public enum CookieHeader {
    public static func pairs(_ headerValues: some Sequence<String>) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for header in headerValues {
            for piece in header.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true) {
                guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else { continue }
                let name = OptionalWhitespace.trimmed(piece[piece.startIndex..<equals])
                let value = OptionalWhitespace.trimmed(piece[piece.index(after: equals)...])
                pairs.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            }
        }
        return pairs
    }

    /// The value of the first cookie named `name`, or nil.
    public static func first(_ name: String, in headerValues: some Sequence<String>) -> String? {
        pairs(headerValues).first { $0.name == name }?.value
    }
}
