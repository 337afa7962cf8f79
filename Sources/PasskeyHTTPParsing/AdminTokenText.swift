internal import PasskeyJSON

/// An admin token as a client sends it (docs/contracts/accounts.md, "Administration"): `pka_` and 32 bytes in
/// base64url (43 characters). The prefix makes a leaked token recognisable, and a session token
/// (bare base64url) is never read as one.
public enum AdminTokenText {
    public static let prefix = "pka_"
    /// The only length a token has.
    public static let length = 4 + 43

    /// The token's 32 secret bytes; nil for text that is not a token.
    public static func secret(_ text: String) -> [UInt8]? {
        guard text.utf8.count == length, text.hasPrefix(prefix),
              let bytes = Base64URL.decodeStrict(String(text.dropFirst(prefix.count))), bytes.count == 32
        else { return nil }
        return bytes
    }

    /// The text of a token with these 32 bytes.
    public static func text(_ secret: [UInt8]) -> String { prefix + Base64URL.encode(secret) }
}
