public import PasskeyJSON
public import PasskeyJOSE
public import PasskeyCore

/// A Sign in with Apple token: a compact JWS read by `PasskeyJOSE` whose payload is a JWT
/// claims set. Nothing is verified here; every refusal is `invalid_token`.
///
/// Parsing refuses: more than `maximumSize` bytes, anything but three parts separated by `.`,
/// a part that is not base64url without padding in its one canonical spelling, and a header or
/// payload that is not a strict JSON object (`StrictJSON`).
public struct CompactJWS: Sendable {
    /// Identity tokens are about 1 KiB; anything above 8 KiB is not one.
    public static let maximumSize = 8192

    /// The token as JOSE reads it.
    public let jws: JWS
    /// The payload parsed as a JSON object.
    public let claims: [String: JSONValue]

    /// The JOSE header's members (RFC 7515 §4), as sent.
    public var header: [String: JSONValue] { jws.header }
    /// The decoded payload: the JWT claims set's JSON bytes.
    public var payload: [UInt8] { jws.payload }
    /// The JWS Signing Input, exactly as sent.
    public var signingInput: [UInt8] { jws.signingInput }
    /// The decoded JWS Signature.
    public var signature: [UInt8] { jws.signature }

    /// Header parameters that would let the token choose its own key or add rules this
    /// verifier does not know (RFC 7515 §4.1.2–§4.1.11); an Apple token never carries them.
    public static let refusedHeaderParameters = ["jku", "x5u", "jwk", "crit"]

    /// What Apple signs with: RS256 only, no extension understood, no key named by the token.
    public static let policy = JWSPolicy(algorithms: [.rs256])

    public init(_ token: String) throws(SIWAError) {
        do {
            jws = try JWS(compact: token, maximumSize: Self.maximumSize)
            claims = try jws.claims()
        } catch {
            throw .invalidToken(error.reason)
        }
    }

    /// The header's `alg` when it is a string.
    public var algorithm: String? { jws.algorithmName }

    /// The header's `kid` when it is a string.
    public var keyID: String? { jws.keyID }

    /// Which of `refusedHeaderParameters` the header carries (with any value, even null).
    public var refusedParametersPresent: [String] {
        Self.refusedHeaderParameters.filter { header[$0] != nil }
    }
}
