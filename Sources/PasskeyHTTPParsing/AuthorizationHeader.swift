internal import Foundation

/// The `Authorization` header's schemes this server reads. The scheme name is
/// case-insensitive (RFC 9110 §11.1); anything malformed is nil, never an error of its own.
public enum AuthorizationHeader {
    /// `Bearer TOKEN` (RFC 6750 §2.1): the token, trimmed; nil for another scheme or no token.
    public static func bearer(_ value: String) -> String? {
        guard let (scheme, rest) = split(value), scheme == "bearer" else { return nil }
        return String(Substring(OptionalWhitespace.trimmed(rest.utf8)))
    }

    /// `DPoP TOKEN` (RFC 9449 §7.1): a DPoP-bound access token, trimmed; nil for another scheme.
    public static func dpop(_ value: String) -> String? {
        guard let (scheme, rest) = split(value), scheme == "dpop" else { return nil }
        return String(Substring(OptionalWhitespace.trimmed(rest.utf8)))
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
