/// RFC 9110 §5.6.3's optional whitespace (spaces and tabs) around a header value's parts,
/// trimmed as bytes: Foundation's `trimmingCharacters` goes through `NSString` (it took 8 % of a
/// userinfo request when the Bearer token was trimmed with it) and also takes Unicode spaces.
enum OptionalWhitespace {
    static func trimmed(_ bytes: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
        var bytes = bytes
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        return bytes
    }
}
