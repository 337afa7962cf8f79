internal import Foundation

/// A name as people type it: an account's name, a group's, a passkey's label, a display name.
/// Trimmed and NFC-normalised; 1–64 Unicode scalars and at most 256 bytes of UTF-8; no control,
/// line or paragraph separator, bidirectional embedding, override or isolate, and no
/// default-ignorable code point (zero-width space and joiners, soft hyphen, variation
/// selectors…: invisible, so `alice` and `al\u{200B}ice` would be two names that look the same).
/// `key` is the form that makes `Alice`, `alice` and `ａｌｉｃｅ` one name: RFC 8265's
/// UsernameCaseMapped mappings (`keyOf`).
///
/// "Characters" are counted as Unicode scalars, not grapheme clusters (one cluster can carry
/// thousands of combining marks).
public struct NameText: Sendable, Equatable {
    public let value: String
    public let key: String

    public static let maximumLength = 64
    public static let maximumBytes = 256

    /// Why a text is not a name.
    public enum Refusal: Error, Sendable, Equatable {
        case empty
        case tooLong
        case controlCharacter
        case invisibleCharacter
    }

    public init(_ raw: String) throws(Refusal) {
        let value = Self.normalized(raw)
        guard !value.isEmpty else { throw .empty }
        try Self.check(value)
        self.value = value
        key = Self.keyOf(value)
    }

    /// RFC 8265 §3.3.2's mappings of the UsernameCaseMapped profile, in its order: width
    /// mapping (a fullwidth or halfwidth form becomes its decomposition, §3.4.1), case mapping
    /// (Unicode toLowerCase), then NFC. The characters allowed stay the ones `check` allows:
    /// the profile's IdentifierClass is not enforced.
    public static func keyOf(_ value: String) -> String {
        var mapped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            if isWidthForm(scalar) {
                mapped.append(contentsOf: String(scalar).precomposedStringWithCompatibilityMapping.unicodeScalars)
            } else {
                mapped.append(scalar)
            }
        }
        return String(mapped).lowercased().precomposedStringWithCanonicalMapping
    }

    /// The code points whose decomposition is `<wide>` or `<narrow>` in UnicodeData.txt: the
    /// ideographic space, and the Halfwidth and Fullwidth Forms block's forms. Their
    /// compatibility decomposition is a single other character, which is what width mapping
    /// gives.
    public static func isWidthForm(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3000, 0xFF01...0xFF60, 0xFFE0...0xFFE6: true                                    // <wide>
        case 0xFF61...0xFFBE, 0xFFC2...0xFFC7, 0xFFCA...0xFFCF, 0xFFD2...0xFFD7, 0xFFDA...0xFFDC, 0xFFE8...0xFFEE: true  // <narrow>
        default: false
        }
    }

    /// Trimmed of white space and new lines, then NFC.
    public static func normalized(_ raw: String) -> String {
        raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
    }

    /// The limits every name and label shares (an empty text passes: some labels may be empty).
    public static func check(_ text: String) throws(Refusal) {
        guard text.unicodeScalars.count <= maximumLength, text.utf8.count <= maximumBytes else { throw .tooLong }
        guard !text.unicodeScalars.contains(where: isControl) else { throw .controlCharacter }
        guard !text.unicodeScalars.contains(where: isInvisible) else { throw .invisibleCharacter }
    }

    /// Unicode's Default_Ignorable_Code_Point: rendered as nothing.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isDefaultIgnorableCodePoint
    }

    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default:
            // Bidirectional embeddings, overrides and isolates reorder text on screen and let
            // one name pass for another.
            return (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
    }
}
