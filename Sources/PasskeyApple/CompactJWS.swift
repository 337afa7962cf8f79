public import PasskeyJSON
public import PasskeyCore

/// A JWS in compact serialization (RFC 7515 §7.1) split and decoded; nothing is verified here.
///
/// Parsing refuses, with `invalid_token`: more than `maximumSize` bytes, anything but three
/// parts separated by `.`, a part that is not base64url without padding in its one canonical
/// spelling, and a header or payload that is not a strict JSON object (`StrictJSON`).
public struct CompactJWS: Sendable {
    /// Identity tokens are about 1 KiB; anything above 8 KiB is not one.
    public static let maximumSize = 8192

    /// The JOSE header's members (RFC 7515 §4), as sent.
    public let header: [String: JSONValue]
    /// The decoded payload: the JWT claims set's JSON bytes.
    public let payload: [UInt8]
    /// The payload parsed as a JSON object.
    public let claims: [String: JSONValue]
    /// The JWS Signing Input: ASCII(BASE64URL(header) ‖ '.' ‖ BASE64URL(payload)), exactly as sent.
    public let signingInput: [UInt8]
    /// The decoded JWS Signature.
    public let signature: [UInt8]

    /// Header parameters that would let the token choose its own key or add rules this
    /// verifier does not know (RFC 7515 §4.1.2–§4.1.11); an identity token never carries them.
    public static let refusedHeaderParameters = ["jku", "x5u", "jwk", "crit"]

    public init(_ token: String) throws(SIWAError) {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maximumSize else {
            throw .invalidToken("the token is \(bytes.count) bytes, more than \(Self.maximumSize)")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .invalidToken("the token is not a compact JWS (\(parts.count) parts, not 3)")
        }
        let headerBytes = try Self.base64URL(parts[0], "header")
        payload = try Self.base64URL(parts[1], "payload")
        signature = try Self.base64URL(parts[2], "signature")
        signingInput = Array(parts[0]) + [UInt8(ascii: ".")] + Array(parts[1])
        guard let header = JSONValue.strictObject(headerBytes) else {
            throw .invalidToken("the JWS header is not a strict JSON object")
        }
        guard let claims = JSONValue.strictObject(payload) else {
            throw .invalidToken("the JWS payload is not a strict JSON object")
        }
        self.header = header
        self.claims = claims
    }

    /// The header's `alg` when it is a string.
    public var algorithm: String? { header["alg"]?.stringValue }

    /// The header's `kid` when it is a string.
    public var keyID: String? { header["kid"]?.stringValue }

    /// Which of `refusedHeaderParameters` the header carries (with any value, even null).
    public var refusedParametersPresent: [String] {
        Self.refusedHeaderParameters.filter { header[$0] != nil }
    }

    /// Base64url without padding, in its one canonical spelling (re-encoding gives it back), so
    /// a token has exactly one signing input for its bytes.
    private static func base64URL(_ part: ArraySlice<UInt8>, _ name: String) throws(SIWAError) -> [UInt8] {
        let text = String(decoding: part, as: UTF8.self)
        guard let bytes = Base64URL.decodeStrict(text), Base64URL.encode(bytes) == text else {
            throw .invalidToken("the JWS \(name) is not base64url")
        }
        return bytes
    }
}
