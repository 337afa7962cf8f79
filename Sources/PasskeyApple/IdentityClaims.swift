public import Foundation
public import PasskeyJOSE

/// The claims of an accepted identity token that the server uses.
public struct IdentityClaims: Sendable, Equatable {
    /// `iss`: the configured issuer.
    public let issuer: String
    /// `sub`: Apple's stable user identifier for this team.
    public let subject: String
    /// The configured client ID that `aud` named.
    public let audience: String
    public let expiresAt: Date
    public let issuedAt: Date
    public let nonce: String?
    public let email: String?
    /// `email_verified`: a boolean or the string `"true"`/`"false"`; absent is false.
    public let emailVerified: Bool
    /// `is_private_email` (a relay address): same reading as `emailVerified`.
    public let isPrivateEmail: Bool
    /// `auth_time`: when the user last authenticated to Apple, when the token says.
    public let authTime: Date?

    public init(
        issuer: String, subject: String, audience: String, expiresAt: Date, issuedAt: Date,
        nonce: String?, email: String?, emailVerified: Bool, isPrivateEmail: Bool, authTime: Date? = nil
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.nonce = nonce
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.authTime = authTime
    }
}

/// One step of a verification, for `siwa verify --explain`: every check reports, passed or not.
public struct VerificationStep: Sendable {
    /// The check, as the contract's table names it ("header", "signature", "audience", …).
    public let name: String
    public let passed: Bool
    /// What was found, or why it was refused.
    public let detail: String

    public init(name: String, passed: Bool, detail: String) {
        self.name = name
        self.passed = passed
        self.detail = detail
    }
}

/// Where the verifier gets Apple's keys.
public protocol AppleKeySource: Sendable {
    /// The key named `id`. Throws `invalid_token` when no key has that id (after whatever
    /// re-fetch policy the source has), `apple_keys_unavailable` when there are no keys at all.
    func key(id: String) async throws(SIWAError) -> JWK
}

/// A fixed key set, for the offline verifier (`siwa verify --jwks FILE`) and tests: never
/// fetches, an unknown kid is `invalid_token`.
public struct StaticAppleKeys: AppleKeySource {
    public let set: JWKSet

    public init(_ set: JWKSet) {
        self.set = set
    }

    public func key(id: String) async throws(SIWAError) -> JWK {
        guard let key = set.key(id: id) else {
            throw .invalidToken("no key of the JWKS has kid \(id)")
        }
        return key
    }
}
