public import Foundation
internal import PasskeyStorage
internal import PasskeyCrypto

/// The contract's user names: trimmed, 1–64 characters, no control characters; unique
/// case-insensitively through `key`.
///
/// "Characters" are counted as Unicode scalars, not grapheme clusters (one cluster can carry
/// thousands of combining marks), and the UTF-8 form is capped at `maximumBytes`. Default-ignorable
/// code points (zero-width space and joiners, soft hyphen, variation selectors, …) are refused:
/// they are invisible, so `alice` and `al\u{200B}ice` would be two accounts that look the same.
public struct UserName: Sendable, Equatable {
    public let value: String
    /// The case-folded, NFC-normalised form that makes `Alice` and `alice` one account.
    public let key: String

    public static let maximumLength = 64
    public static let maximumBytes = 256

    public init(_ raw: String) throws(APIError) {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard !trimmed.isEmpty else { throw .invalidRequest("user_name must not be empty.") }
        try Self.checkLabel(trimmed, field: "user_name")
        value = trimmed
        key = trimmed.lowercased()
    }

    /// A display name: trimmed, up to 64 characters, no control characters; defaults to the name.
    public static func displayName(_ raw: String?, default name: UserName) throws(APIError) -> String {
        guard let raw else { return name.value }
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        if trimmed.isEmpty { return name.value }
        try checkLabel(trimmed, field: "display_name")
        return trimmed
    }

    /// The limits every name and label shares: at most 64 Unicode scalars and 256 UTF-8 bytes,
    /// no control, bidirectional-override or default-ignorable characters.
    static func checkLabel(_ text: String, field: String) throws(APIError) {
        guard text.unicodeScalars.count <= maximumLength, text.utf8.count <= maximumBytes else {
            throw .invalidRequest("\(field) must be at most \(maximumLength) characters (and \(maximumBytes) bytes of UTF-8).")
        }
        guard !text.unicodeScalars.contains(where: isControl) else {
            throw .invalidRequest("\(field) must not contain control characters.")
        }
        guard !text.unicodeScalars.contains(where: isInvisible) else {
            throw .invalidRequest("\(field) must not contain invisible (default-ignorable) characters.")
        }
    }

    /// Unicode's Default_Ignorable_Code_Point: rendered as nothing.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isDefaultIgnorableCodePoint
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default:
            // Bidirectional embeddings, overrides and isolates reorder text on screen and let
            // one name pass for another.
            return (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
    }
}

extension UserRecord {
    /// A new account named `name`: its handle (WebAuthn's `user.id`) is 32 random bytes, never
    /// derived from the name.
    static func newAccount(_ name: UserName, displayName: String, createdAt: Date) -> UserRecord {
        UserRecord(handle: SecureRandom.bytes(32), name: name.value, nameKey: name.key, displayName: displayName, createdAt: createdAt)
    }
}
