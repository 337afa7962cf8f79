internal import Foundation
internal import PasskeyCrypto
internal import PasskeyJOSE
internal import PasskeyJSON

/// The providers' JWTs (the APNs provider token, ES256; Google's OAuth assertion, RS256), signed
/// by `PasskeyJOSE`; a failure is the provider's configuration error.
enum PushJWT {
    /// The latest NumericDate accepted: 9999-12-31T23:59:59Z.
    static let latestNumericDate = JWTClaims.latestNumericDate

    /// `header.claims.signature`, base64url without padding; the header gets `alg`. The key
    /// must fit the algorithm (P-256 for ES256, RSA of 2048 bits or more for RS256).
    static func sign(
        header: [String: JSONValue], claims: [String: JSONValue], key: PrivateKey, algorithm: JWSAlgorithm
    ) throws -> String {
        do {
            return try JWS.sign(header: header, claims: claims, key: key, algorithm: algorithm)
        } catch {
            throw PushProviderError("\(algorithm.rawValue) needs a fitting key: \(error.reason)")
        }
    }

    /// Whole seconds since 1970 for a JWT claim; throws for a clock outside 1970…9999.
    static func numericDate(_ date: Date) throws -> Int64 {
        guard let seconds = JWTClaims.numericDate(date) else {
            throw PushProviderError("the clock reads \(date), outside 1970…9999")
        }
        return seconds
    }
}
