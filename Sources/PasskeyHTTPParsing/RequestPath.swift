/// One spelling per resource: a request path is served only in its canonical form, so that the
/// router (which skips empty segments) and every policy keyed on the path can never disagree.
///
/// Canonical means: it starts with `/`; no segment is empty (no `//`, no trailing `/` except the
/// root itself); no segment is `.` or `..`; no backslash; and no percent-encoded `/`, `\`, `.`
/// or `%` (`%2F`, `%5C`, `%2E`, `%25`, either case), which a later decoding step could turn
/// into one of the forms above. Other percent escapes are left to the route's own parameter
/// check. The router matches segments case-sensitively, so another case is simply unknown (404).
public enum RequestPath {
    public enum Refusal: Sendable, Equatable {
        case notAbsolute
        case emptySegment
        case dotSegment
        case backslash
        case encodedSeparator
    }

    /// Nil when `path` is canonical, else why not.
    public static func refusal(_ path: some StringProtocol) -> Refusal? {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return .notAbsolute }
        if bytes.count == 1 { return nil }
        if bytes.contains(UInt8(ascii: "\\")) { return .backslash }
        let segments = bytes.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for segment in segments {
            if segment.isEmpty { return .emptySegment }
            if segment.elementsEqual([UInt8(ascii: ".")]) || segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                return .dotSegment
            }
        }
        var index = bytes.startIndex
        while let percent = bytes[index...].firstIndex(of: UInt8(ascii: "%")) {
            guard percent + 2 < bytes.count else { break }
            let high = bytes[percent + 1], low = bytes[percent + 2] | 0x20  // lower-cased letter
            if high == UInt8(ascii: "2"), low == UInt8(ascii: "f") || low == UInt8(ascii: "e") || low == UInt8(ascii: "5") {
                return .encodedSeparator
            }
            if high == UInt8(ascii: "5"), low == UInt8(ascii: "c") { return .encodedSeparator }
            index = percent + 1
        }
        return nil
    }

    public static func isCanonical(_ path: some StringProtocol) -> Bool { refusal(path) == nil }
}
