public import Foundation
internal import PasskeyStorage
internal import PasskeyCrypto
internal import PasskeyHTTPParsing

/// The contract's user names (and group names, which follow the same rules): `NameText`'s
/// rules (trimmed, NFC, 1–64 scalars and 256 bytes, nothing invisible or reordering), its
/// refusals told as the contract's `invalid_request` for the field named.
public struct UserName: Sendable, Equatable {
    public let value: String
    /// The case-folded, NFC-normalised form that makes `Alice` and `alice` one account.
    public let key: String

    /// The rule that makes keys, counted: 1 was lower case only; 2 is RFC 8265's
    /// UsernameCaseMapped mappings. A store whose keys an older rule made is moved at start.
    public static let keyRule = 2

    /// The key of a name, as `key` is made.
    public static func key(of name: String) -> String { NameText.keyOf(name) }

    public static let maximumLength = NameText.maximumLength
    public static let maximumBytes = NameText.maximumBytes

    public init(_ raw: String) throws(APIError) {
        let name: NameText
        do { name = try NameText(raw) } catch { throw Self.refusal(error, field: "user_name") }
        value = name.value
        key = name.key
    }

    /// A group's name: a name as above, without a comma (`Remote-Groups` and the forward-auth
    /// rules separate groups with commas, so `staff,admins` would read as two groups).
    public static func group(_ raw: String, field: String = "the group name") throws(APIError) -> UserName {
        let name: NameText
        do { name = try NameText(raw) } catch { throw Self.refusal(error, field: field) }
        guard !name.value.contains(",") else {
            throw .invalidRequest("\(field) must not contain a comma: groups are listed separated by commas.")
        }
        return UserName(name)
    }

    private init(_ name: NameText) {
        value = name.value
        key = name.key
    }

    /// A display name: trimmed, up to 64 characters, no control characters; defaults to the name.
    public static func displayName(_ raw: String?, default name: UserName) throws(APIError) -> String {
        guard let raw else { return name.value }
        let trimmed = NameText.normalized(raw)
        if trimmed.isEmpty { return name.value }
        try checkLabel(trimmed, field: "display_name")
        return trimmed
    }

    /// The limits every name and label shares: at most 64 Unicode scalars and 256 UTF-8 bytes,
    /// no control, bidirectional-override or default-ignorable characters.
    static func checkLabel(_ text: String, field: String) throws(APIError) {
        do { try NameText.check(text) } catch { throw refusal(error, field: field) }
    }

    static func refusal(_ refusal: NameText.Refusal, field: String) -> APIError {
        switch refusal {
        case .empty: .invalidRequest("\(field) must not be empty.")
        case .tooLong: .invalidRequest("\(field) must be at most \(maximumLength) characters (and \(maximumBytes) bytes of UTF-8).")
        case .controlCharacter: .invalidRequest("\(field) must not contain control characters.")
        case .invisibleCharacter: .invalidRequest("\(field) must not contain invisible (default-ignorable) characters.")
        }
    }

    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool { NameText.isInvisible(scalar) }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool { NameText.isControl(scalar) }
}

extension UserRecord {
    /// A new account named `name`: its handle (WebAuthn's `user.id`) is 32 random bytes, never
    /// derived from the name.
    static func newAccount(_ name: UserName, displayName: String, createdAt: Date) -> UserRecord {
        UserRecord(handle: SecureRandom.bytes(32), name: name.value, nameKey: name.key, displayName: displayName, createdAt: createdAt)
    }
}
