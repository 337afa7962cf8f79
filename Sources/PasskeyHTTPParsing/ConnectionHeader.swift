/// The `Connection` header's options (RFC 9110 §7.6.1): a list of tokens separated by commas,
/// with optional whitespace around each, compared without regard to ASCII case.
public enum ConnectionHeader {
    /// Whether the field (its values joined with commas, as HTTPTypes gives them) holds the
    /// `close` option: the client asks that the connection end after this answer.
    public static func asksToClose(_ value: String?) -> Bool {
        guard let value else { return false }
        for piece in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
            let token = OptionalWhitespace.trimmed(piece[...])
            // ASCII letters only: `| 0x20` folds 'C' to 'c' and maps no other byte onto a letter of "close".
            if token.elementsEqual("close".utf8, by: { $0 | 0x20 == $1 }) { return true }
        }
        return false
    }
}
