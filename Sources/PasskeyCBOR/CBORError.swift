/// Why a byte string was refused as CBOR. `code` is for programs, `reason` for logs;
/// neither is meant to be shown to clients verbatim.
public struct CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The input ends before the item does.
        case truncated
        /// `decode` found bytes after the top-level item.
        case trailingBytes
        /// A map holds two equal keys.
        case duplicateMapKey
        /// Nesting deeper than `CBORDecoder.maximumDepth`.
        case tooDeep
        /// A declared string length or element count cannot fit in the remaining input.
        case lengthExceedsInput
        /// Indefinite-length string, array or map (CTAP2 canonical CBOR is definite only).
        case indefiniteLength
        /// A text string that is not valid UTF-8.
        case invalidUTF8
        /// Not well-formed CBOR (reserved additional information, stray break, ...).
        case malformed
    }

    public let code: Code
    public let reason: String

    init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String {
        "CBORError.\(code.rawValue): \(reason)"
    }
}
