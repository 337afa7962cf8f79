internal import Foundation

/// The `Authorization` header's two schemes this server reads. The scheme name is
/// case-insensitive (RFC 9110 §11.1); anything malformed is nil, never an error of its own.
public enum AuthorizationHeader {
    /// `Bearer TOKEN` (RFC 6750 §2.1): the token, trimmed; nil for another scheme or no token.
    public static func bearer(_ value: String) -> String? {
        guard let (scheme, rest) = split(value), scheme == "bearer" else { return nil }
        return String(trimmingWhitespace(rest))
    }

    /// `text` without the spaces and tabs around it (RFC 9110's optional whitespace), read as
    /// bytes: Foundation's `trimmingCharacters` went through `NSString` and took 8 % of a
    /// userinfo request's CPU.
    static func trimmingWhitespace(_ text: Substring) -> Substring {
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { bytes.formIndex(after: &start) }
        while start < end {
            let last = bytes.index(before: end)
            guard bytes[last] == UInt8(ascii: " ") || bytes[last] == UInt8(ascii: "\t") else { break }
            end = last
        }
        return Substring(bytes[start..<end])
    }

    /// HTTP Basic client credentials (RFC 6749 §2.3.1: each part form-encoded before base64).
    public static func basic(_ value: String) -> (id: String, secret: String)? {
        guard let (scheme, rest) = split(value), scheme == "basic",
              let data = Data(base64Encoded: String(rest)),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":"),
              let id = FormURLEncoded.decode(text[..<colon]),
              let secret = FormURLEncoded.decode(text[text.index(after: colon)...])
        else { return nil }
        return (id, secret)
    }

    private static func split(_ value: String) -> (scheme: String, rest: Substring)? {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        return (parts[0].lowercased(), parts[1])
    }
}
