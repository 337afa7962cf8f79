internal import PasskeyJSON
public import Foundation
public import PasskeyCrypto
internal import PasskeyJOSE
internal import PasskeyJSON

/// The developer's client secret for Apple's `/auth/token` and `/auth/revoke` endpoints: a JWT
/// signed ES256 with the team's `.p8` key (Apple, "Creating a client secret"). Header
/// `{"alg":"ES256","kid":keyID}`; claims `iss` team ID, `iat`, `exp` = `iat` + lifetime (Apple
/// allows at most 15777000 s, six months), `aud` `https://appleid.apple.com`, `sub` client ID.
public enum AppleClientSecret {
    /// Apple's limit on `exp` − `iat`.
    public static let maximumLifetime: TimeInterval = 15_777_000
    public static let audience = "https://appleid.apple.com"

    /// Why a secret cannot be made: a configuration problem, reported at start-up.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The signed secret. The key must be a P-256 key; `lifetime` in 1…`maximumLifetime`; `now`
    /// a date in 1970…9999. The signature is r ‖ s, 32 bytes each (RFC 7518 §3.4), converted
    /// from OpenSSL's DER.
    public static func make(
        teamID: String, keyID: String, clientID: String, privateKey: PrivateKey, now: Date, lifetime: TimeInterval = 3600
    ) throws -> String {
        guard privateKey.publicKey.kind == .ec(.p256) else {
            throw Failure(description: "the client secret key must be a P-256 key, not \(privateKey.publicKey.kind)")
        }
        guard lifetime.isFinite, lifetime >= 1, lifetime <= maximumLifetime else {
            throw Failure(description: "the client secret lifetime must be 1…\(Int(maximumLifetime)) s, not \(lifetime)")
        }
        guard let issuedAt = JWTClaims.numericDate(now) else {
            throw Failure(description: "the clock reads \(now), outside 1970…9999")
        }
        let claims: [String: JSONValue] = [
            "iss": .string(teamID), "iat": .integer(issuedAt), "exp": .integer(issuedAt + Int64(lifetime.rounded(.down))),
            "aud": .string(audience), "sub": .string(clientID),
        ]
        do {
            return try JWS.sign(header: ["kid": .string(keyID)], claims: claims, key: privateKey, algorithm: .es256)
        } catch {
            throw Failure(description: "the client secret cannot be signed: \(error.reason)")
        }
    }
}
