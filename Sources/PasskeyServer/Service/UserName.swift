public import Foundation

/// The contract's user names: trimmed, 1–64 characters, no control characters; unique
/// case-insensitively through `key`.
public struct UserName: Sendable, Equatable {
    public let value: String
    /// The case-folded, NFC-normalised form that makes `Alice` and `alice` one account.
    public let key: String

    public static let maximumLength = 64

    public init(_ raw: String) throws(APIError) {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard !trimmed.isEmpty else { throw .invalidRequest("user_name must not be empty.") }
        guard trimmed.count <= Self.maximumLength else {
            throw .invalidRequest("user_name must be at most \(Self.maximumLength) characters.")
        }
        guard !trimmed.unicodeScalars.contains(where: Self.isControl) else {
            throw .invalidRequest("user_name must not contain control characters.")
        }
        value = trimmed
        key = trimmed.lowercased()
    }

    /// A display name: trimmed, up to 64 characters, no control characters; defaults to the name.
    public static func displayName(_ raw: String?, default name: UserName) throws(APIError) -> String {
        guard let raw else { return name.value }
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        if trimmed.isEmpty { return name.value }
        guard trimmed.count <= maximumLength else {
            throw .invalidRequest("display_name must be at most \(maximumLength) characters.")
        }
        guard !trimmed.unicodeScalars.contains(where: isControl) else {
            throw .invalidRequest("display_name must not contain control characters.")
        }
        return trimmed
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
