public import PasskeyJSON
public import Foundation
public import PasskeyCrypto
public import PasskeyCore
public import PasskeyJOSE

/// Verifies Sign in with Apple identity tokens: the checks of docs/contracts/siwa.md's table, in its order,
/// each one function named after what it checks, each refusal with the contract's code.
///
/// What is deliberately never done: taking the algorithm from the token beyond refusing all but
/// RS256 (so no `none`, and no HS256 with the RSA key as an HMAC secret, CVE-2022-29217), taking
/// a key from the token (`jku`, `x5u`, `jwk`), or using any key but the one `kid` names (no
/// fall-back to the first key of the set).
public struct IdentityTokenVerifier: Sendable {
    public let configuration: AppleConfiguration
    public let keys: any AppleKeySource

    /// The one JWS algorithm Apple signs identity tokens with.
    public static let algorithm = "RS256"

    /// `sub` is Apple's opaque user identifier (about 44 characters); a longer one is not Apple's.
    public static let maximumSubjectLength = 255

    /// Latest `exp`/`iat` accepted as a number at all: 9999-12-31T23:59:59Z. Larger values (and
    /// negative ones) are `invalid_token`, so no date arithmetic ever meets an absurd number.
    public static let latestNumericDate: Double = JWTClaims.latestNumericDate

    public init(configuration: AppleConfiguration, keys: any AppleKeySource) {
        self.configuration = configuration
        self.keys = keys
    }

    /// Runs every check of docs/contracts/siwa.md's table in order, except spending the nonce (the server's
    /// job): compact form, header, key, signature, issuer, audience, times, subject, nonce, and
    /// the profile claims. With `expectedNonce`, the `nonce` claim must equal it, its lowercase
    /// hex SHA-256 or its base64url SHA-256; a missing claim is `nonce_mismatch` too. With
    /// `authorizationCode`, a `c_hash` claim must hash it (`checkCodeHash`), and with
    /// `requireCodeHash` (the web flow's `code id_token`) the claim must be there.
    /// `explain` hears every step, passed or failed.
    public func verify(
        _ token: String, now: Date, expectedNonce: String?, authorizationCode: String? = nil, requireCodeHash: Bool = false,
        explain: (@Sendable (VerificationStep) -> Void)? = nil
    ) async throws(SIWAError) -> IdentityClaims {
        let steps = StepReporter(explain: explain)
        let (jws, issuer, audience) = try await verifySignedToken(token, steps: steps)
        let claims = jws.claims
        let times = try steps.run("times", Self.describe) { () throws(SIWAError) in
            try Self.checkTimes(claims, now: now, configuration: configuration)
        }
        let subject = try steps.run("subject", { (subject: String) in "sub \(subject)" }) { () throws(SIWAError) in
            try Self.checkSubject(claims)
        }
        try steps.run("nonce", { expectedNonce == nil ? "no nonce expected" : "nonce matches" }) { () throws(SIWAError) in
            try Self.checkNonce(claims, expected: expectedNonce)
        }
        try steps.run("code hash", { authorizationCode == nil ? "no authorization code" : "c_hash matches the code" }) { () throws(SIWAError) in
            try Self.checkCodeHash(claims, code: authorizationCode, required: requireCodeHash)
        }
        let profile = try steps.run("claims", { (profile: Profile) in profile.email.map { "email \($0)" } ?? "no email" }) {
            () throws(SIWAError) in try Self.readProfile(claims)
        }
        return IdentityClaims(
            issuer: issuer, subject: subject, audience: audience, expiresAt: times.expiresAt, issuedAt: times.issuedAt,
            nonce: profile.nonce, email: profile.email, emailVerified: profile.emailVerified, isPrivateEmail: profile.isPrivateEmail,
            authTime: profile.authTime)
    }

    /// OpenID Connect Core 3.3.2.11: `c_hash` is the base64url of the left half of the SHA-256
    /// of the authorization code (the hash of RS256). It binds the code that came beside the
    /// token to it, so a code swapped into the web flow's callback is refused before it is
    /// exchanged. Without a code there is nothing to check; a claim that is not a string, or
    /// does not match, is `c_hash_mismatch`, and so is a missing claim when `required`.
    public static func checkCodeHash(_ claims: [String: JSONValue], code: String?, required: Bool) throws(SIWAError) {
        guard let code else { return }
        guard let value = claims["c_hash"] else {
            if required { throw .codeHashMismatch("The token has no c_hash for the authorization code that came with it.") }
            return
        }
        guard let claim = value.stringValue else { throw .codeHashMismatch("c_hash is \(value.kind), not a string") }
        let expected = Base64URL.encode(Array(Digest.sha256.hash(Array(code.utf8)).prefix(16)))
        guard constantTimeEquals(Array(claim.utf8), Array(expected.utf8)) else {
            throw .codeHashMismatch("c_hash does not match the authorization code.")
        }
    }

    /// The checks an identity token and a server-to-server notification share: compact form,
    /// header, key, signature, issuer and audience. Returns the token with its signature
    /// verified, its issuer and the client ID its audience names.
    func verifySignedToken(
        _ token: String, steps: StepReporter
    ) async throws(SIWAError) -> (jws: CompactJWS, issuer: String, audience: String) {
        let jws = try steps.run("compact form", { (jws: CompactJWS) in "\(jws.signingInput.count + 1)-byte signing input" }) {
            () throws(SIWAError) in try Self.checkCompactForm(token)
        }
        let kid = try steps.run("header", { (kid: String) in "alg \(Self.algorithm), kid \(kid)" }) { () throws(SIWAError) in
            try Self.checkHeader(jws)
        }
        let key = try await steps.runAsync("key", { (key: PublicKey) in "key \(kid), \(key.kind)" }) { () async throws(SIWAError) in
            try await Self.checkKey(kid: kid, in: keys)
        }
        try steps.run("signature", { "RS256 signature verifies" }) { () throws(SIWAError) in
            try Self.checkSignature(jws, key: key)
        }
        let issuer = try steps.run("issuer", { (issuer: String) in "iss \(issuer)" }) { () throws(SIWAError) in
            try Self.checkIssuer(jws.claims, expected: configuration.issuer)
        }
        let audience = try steps.run("audience", { (audience: String) in "aud \(audience)" }) { () throws(SIWAError) in
            try Self.checkAudience(jws.claims, clientIDs: configuration.clientIDs)
        }
        return (jws, issuer, audience)
    }

    // MARK: Checks

    /// Row 1: a compact JWS of three base64url parts whose header and claims are JSON objects,
    /// at most 8 KiB (`CompactJWS`).
    public static func checkCompactForm(_ token: String) throws(SIWAError) -> CompactJWS {
        try CompactJWS(token)
    }

    /// Row 2: `alg` is exactly `RS256`; none of `jku`, `x5u`, `jwk`, `crit`; `kid` a non-empty
    /// string (`PasskeyJOSE` with `CompactJWS.policy`). Returns the kid.
    public static func checkHeader(_ jws: CompactJWS) throws(SIWAError) -> String {
        do {
            _ = try jws.jws.checkAlgorithm(CompactJWS.policy)
        } catch {
            throw .invalidToken("only \(algorithm) is accepted: \(error.reason)")
        }
        let refused = jws.refusedParametersPresent
        guard refused.isEmpty else {
            throw .invalidToken("the JWS header carries \(refused.joined(separator: ", ")), which is refused")
        }
        guard let kid = jws.keyID, !kid.isEmpty else {
            throw .invalidToken("the JWS header has no kid")
        }
        return kid
    }

    /// Rows 3–4 (key half): `kid` names a key of the source (which re-fetches on an unknown kid
    /// as its policy says), and that key is usable (`usableKey`). Only the named key is ever used.
    public static func checkKey(kid: String, in source: any AppleKeySource) async throws(SIWAError) -> PublicKey {
        try usableKey(try await source.key(id: kid), kid: kid)
    }

    /// The key may check an identity token: it is the key named `kid`, an RSA key (a modulus of
    /// at least 2048 bits without the ROCA fingerprint and `e` 65537, as the JWK reader admits
    /// them), and its `alg`, `use` and `key_ops`, when present, allow RS256 signatures.
    public static func usableKey(_ jwk: JWK, kid: String) throws(SIWAError) -> PublicKey {
        guard jwk.keyID == kid else {
            throw .invalidToken("the key source answered kid \(jwk.keyID ?? "none") for kid \(kid)")
        }
        guard jwk.publicKey.rsaComponents != nil else {
            throw .invalidToken("key \(kid) is not an RSA key")
        }
        do {
            try jwk.checkUsable(for: .rs256)
        } catch {
            throw .invalidToken("key \(kid) is not for RS256: \(error.reason)")
        }
        return jwk.publicKey
    }

    /// Row 4 (signature half): the RS256 (RSASSA-PKCS1-v1_5, SHA-256) signature over the signing
    /// input verifies under the key, with OpenSSL (`PasskeyJOSE`).
    public static func checkSignature(_ jws: CompactJWS, key: PublicKey) throws(SIWAError) {
        do {
            try jws.jws.checkSignature(key, algorithm: .rs256)
        } catch {
            throw .invalidToken("the RS256 signature does not verify")
        }
    }

    /// Row 5: `iss` equals the configured issuer exactly (no trailing-slash or case leniency).
    public static func checkIssuer(_ claims: [String: JSONValue], expected: String) throws(SIWAError) -> String {
        guard let issuer = claims["iss"]?.stringValue else {
            throw .issuerMismatch("the token has no iss string")
        }
        guard issuer == expected else {
            throw .issuerMismatch("iss is \(issuer), expected \(expected)")
        }
        return issuer
    }

    /// Row 6: `aud` names a configured client ID. Apple sends one string; an array of strings
    /// (RFC 7519 §4.1.3) is accepted when any element is a configured client ID, and the first
    /// such element is the audience. Anything else, an empty array included, is
    /// `audience_mismatch`. Returns the matched client ID.
    public static func checkAudience(_ claims: [String: JSONValue], clientIDs: [String]) throws(SIWAError) -> String {
        do {
            return try JWTClaims.checkAudience(claims, accepted: clientIDs)
        } catch {
            throw .audienceMismatch(error.reason)
        }
    }

    /// Row 7: `exp` present and after now − skew; `iat` present, not after now + skew and not
    /// before now − `tokenMaxAge` (whatever `exp` says). Absent or out of time is
    /// `token_expired`; present but not a number in 0…`latestNumericDate` is `invalid_token`.
    public static func checkTimes(
        _ claims: [String: JSONValue], now: Date, configuration: AppleConfiguration
    ) throws(SIWAError) -> (expiresAt: Date, issuedAt: Date) {
        guard let expiresAt = try numericDate(claims, "exp") else {
            throw .tokenExpired("the token has no exp")
        }
        guard expiresAt > now.addingTimeInterval(-configuration.clockSkew) else {
            throw .tokenExpired("the token expired at \(expiresAt)")
        }
        let issuedAt = try checkIssuedAt(claims, now: now, clockSkew: configuration.clockSkew)
        guard issuedAt >= now.addingTimeInterval(-configuration.tokenMaxAge) else {
            throw .tokenExpired("the token was issued at \(issuedAt), more than \(configuration.tokenMaxAge) s ago")
        }
        return (expiresAt, issuedAt)
    }

    /// `iat` present and not after now + skew (shared by tokens and notifications).
    static func checkIssuedAt(_ claims: [String: JSONValue], now: Date, clockSkew: TimeInterval) throws(SIWAError) -> Date {
        guard let issuedAt = try numericDate(claims, "iat") else {
            throw .tokenExpired("the token has no iat")
        }
        guard issuedAt <= now.addingTimeInterval(clockSkew) else {
            throw .tokenExpired("the token was issued at \(issuedAt), in the future")
        }
        return issuedAt
    }

    /// A NumericDate claim (RFC 7519 §2): nil when absent; `invalid_token` when it is not a
    /// finite number in 0…`latestNumericDate`. Only compared as a double, never converted to
    /// an integer, so no value can trap.
    static func numericDate(_ claims: [String: JSONValue], _ name: String) throws(SIWAError) -> Date? {
        do {
            return try JWTClaims.numericDate(claims, name)
        } catch {
            throw .invalidToken(error.reason)
        }
    }

    /// Row 8: `sub` a non-empty string of at most `maximumSubjectLength` bytes.
    public static func checkSubject(_ claims: [String: JSONValue]) throws(SIWAError) -> String {
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            throw .invalidToken("the token has no sub string")
        }
        guard subject.utf8.count <= maximumSubjectLength else {
            throw .invalidToken("sub is longer than \(maximumSubjectLength) bytes")
        }
        return subject
    }

    /// Row 9 (the claim half; issuing and spending the nonce are the server's): with an expected
    /// nonce, the `nonce` claim is present and equals it, its hex SHA-256 or its base64url
    /// SHA-256 (`nonceMatches`). Without one, the claim is not looked at here.
    public static func checkNonce(_ claims: [String: JSONValue], expected: String?) throws(SIWAError) {
        guard let expected else { return }
        guard let claim = claims["nonce"]?.stringValue else {
            throw .nonceMismatch("the token has no nonce but the request names one")
        }
        guard nonceMatches(claim: claim, raw: expected) else {
            throw .nonceMismatch("the token's nonce is not the request's nonce or its SHA-256")
        }
    }

    /// Whether `claim` is `raw`, the lowercase hex of SHA-256(`raw`) (what iOS apps commonly
    /// set, as Firebase does) or its base64url. All three are compared in constant time, every
    /// time. An empty `raw` matches nothing.
    public static func nonceMatches(claim: String, raw: String) -> Bool {
        guard !raw.isEmpty else { return false }
        let claimBytes = Array(claim.utf8), rawBytes = Array(raw.utf8)
        let digest = Digest.sha256.hash(rawBytes)
        let hex = digest.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 0x0F)]] }
        let base64 = Array(Base64URL.encode(digest).utf8)
        let matches = [
            constantTimeEquals(claimBytes, rawBytes), constantTimeEquals(claimBytes, hex), constantTimeEquals(claimBytes, base64),
        ]
        return matches.contains(true)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    // MARK: Profile claims

    /// The optional claims the server keeps.
    struct Profile {
        let nonce: String?
        let email: String?
        let emailVerified: Bool
        let isPrivateEmail: Bool
        let authTime: Date?
    }

    /// `nonce` and `email` absent or strings; `email_verified` and `is_private_email` read by
    /// `flag`. Anything else is `invalid_token`.
    static func readProfile(_ claims: [String: JSONValue]) throws(SIWAError) -> Profile {
        Profile(
            nonce: try optionalString(claims, "nonce"), email: try optionalString(claims, "email"),
            emailVerified: try flag(claims, "email_verified"), isPrivateEmail: try flag(claims, "is_private_email"),
            authTime: try numericDate(claims, "auth_time"))
    }

    static func optionalString(_ claims: [String: JSONValue], _ name: String) throws(SIWAError) -> String? {
        guard let value = claims[name] else { return nil }
        guard let string = value.stringValue else {
            throw .invalidToken("\(name) is \(value.kind), not a string")
        }
        return string
    }

    /// A boolean claim as Apple writes them: a JSON boolean, or the string `"true"` or
    /// `"false"`; absent is false; anything else (`"yes"`, `1`, `"TRUE"`) is `invalid_token`.
    static func flag(_ claims: [String: JSONValue], _ name: String) throws(SIWAError) -> Bool {
        switch claims[name] {
        case nil: return false
        case .bool(let value)?: return value
        case .string("true")?: return true
        case .string("false")?: return false
        case let other?: throw .invalidToken("\(name) is \(other.kind) that is neither true nor false")
        }
    }

    static func describe(_ times: (expiresAt: Date, issuedAt: Date)) -> String {
        "exp \(times.expiresAt), iat \(times.issuedAt)"
    }
}

/// Runs the named steps of a verification and tells `explain` how each went.
struct StepReporter {
    let explain: (@Sendable (VerificationStep) -> Void)?

    func run<T>(_ name: String, _ detail: (T) -> String, _ body: () throws(SIWAError) -> T) throws(SIWAError) -> T {
        do {
            let value = try body()
            explain?(VerificationStep(name: name, passed: true, detail: detail(value)))
            return value
        } catch {
            explain?(VerificationStep(name: name, passed: false, detail: error.description))
            throw error
        }
    }

    func run(_ name: String, _ detail: () -> String, _ body: () throws(SIWAError) -> Void) throws(SIWAError) {
        try run(name, { (_: Void) in detail() }, body)
    }

    func runAsync<T>(
        _ name: String, _ detail: (T) -> String, _ body: () async throws(SIWAError) -> T
    ) async throws(SIWAError) -> T {
        do {
            let value = try await body()
            explain?(VerificationStep(name: name, passed: true, detail: detail(value)))
            return value
        } catch {
            explain?(VerificationStep(name: name, passed: false, detail: error.description))
            throw error
        }
    }
}
