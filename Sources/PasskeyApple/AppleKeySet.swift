public import PasskeyJOSE
internal import PasskeyCrypto

/// Apple's key set, as Apple publishes it at `https://appleid.apple.com/auth/keys`, read with
/// the one JWK reader of the server (`PasskeyJOSE`): at most 64 KiB of strict JSON and 32
/// entries; entries that are not usable public signing keys (a small modulus, an exponent other
/// than 65537, a ROCA modulus, a private member) are skipped; the first of two entries with one
/// `kid` is kept. Which of the kept keys may check an identity token is decided where the token
/// is verified (`IdentityTokenVerifier.usableKey`): RSA for RS256 only.
public enum AppleKeySet {
    /// Anything that is not such a set is `invalid_token`.
    public static func parse(_ json: [UInt8]) throws(SIWAError) -> JWKSet {
        do {
            return try JWKSet(json: json)
        } catch {
            throw .invalidToken("the JWKS is refused: \(error.reason)")
        }
    }

    /// The kept keys that can check Apple's tokens: RSA keys with a `kid`.
    public static func tokenKeys(of set: JWKSet) -> [JWK] {
        set.keys.filter { $0.keyID?.isEmpty == false && $0.publicKey.rsaComponents != nil }
    }
}
