internal import Foundation
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyJOSE
internal import PasskeyJSON
internal import PasskeyStorage

/// ID tokens, RFC 9068 access tokens, their claims, userinfo and discovery (docs/contracts/identity.md,
/// "Tokens and claims" and "Discovery and keys").
extension OpenIDProvider {
    /// The algorithms this provider signs with and accepts back (its own access tokens).
    static let tokenPolicy = JWSPolicy(algorithms: Set(SigningKeys.algorithms))

    /// `sub`: the user handle, base64url. Random at registration, never reused, unchanged by a
    /// rename, and not the user name; the same for every client (public subjects).
    static func subject(_ userHandle: [UInt8]) -> String { Base64URL.encode(userHandle) }

    /// `sid`: an opaque name for the session, derived from its token hash so nothing new is
    /// stored, and from which the session token cannot be recovered.
    static func sessionID(_ sessionHash: [UInt8]) -> String { Sessions.sessionID(sessionHash) }

    static func seconds(_ date: Date) -> JSONValue { .integer(numericDate(date)) }

    /// A NumericDate (RFC 7519 §2): whole seconds since the epoch.
    static func numericDate(_ date: Date) -> Int64 { JWTClaims.numericDate(date) ?? 0 }

    /// The token response (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
    /// With `jkt` (a DPoP proof's key, RFC 9449 §6), the access token is bound to that key and
    /// its type is `DPoP`.
    func tokenResponse(
        _ grant: GrantRecord, client: ClientRecord, scopes: [String], refreshToken: [UInt8]?, at: Date, includeNonce: Bool, jkt: String? = nil
    ) async throws -> TokenAnswer {
        guard let user = try await store.user(handle: grant.userHandle) else {
            throw OAuthError.invalidGrant("the account no longer exists")
        }
        let algorithm = JWSAlgorithm(rawValue: client.idTokenAlgorithm) ?? .rs256
        let key = try await keys.signer(algorithm, now: at)
        let accessToken = try accessToken(grant, client: client, scopes: scopes, key: key, jkt: jkt, at: at)
        var idClaims = try await scopeClaims(user: user, grant: grant, scopes: scopes)
        idClaims["iss"] = .string(issuer)
        idClaims["sub"] = .string(Self.subject(user.handle))
        idClaims["aud"] = .string(client.id)
        idClaims["iat"] = Self.seconds(at)
        idClaims["exp"] = Self.seconds(at.addingTimeInterval(configuration.idTokenTTL))
        idClaims["auth_time"] = Self.seconds(grant.authTime)
        idClaims["amr"] = .array(grant.amr.map(JSONValue.string))
        if let acr = grant.acr { idClaims["acr"] = .string(acr) }
        idClaims["sid"] = .string(Self.sessionID(grant.sessionHash))
        if includeNonce, let nonce = grant.nonce { idClaims["nonce"] = .string(nonce) }
        idClaims["at_hash"] = .string(Self.leftHalfHash(accessToken))
        var response = TokenAnswer(
            accessToken: accessToken, tokenType: jkt == nil ? "Bearer" : "DPoP", expiresIn: Int(configuration.accessTokenTTL),
            scope: scopes.joined(separator: " "))
        // An ID token answers an OpenID Connect request; the Messages for Business device may
        // ask by OAuth 2.0 alone (no `openid`), and gets none.
        if grant.scopes.contains("openid") {
            response.idToken = try JWS.sign(
                header: ["typ": .string("JWT"), "kid": .string(key.record.keyID)], claims: idClaims, key: key.privateKey, algorithm: algorithm)
        }
        response.refreshToken = refreshToken.map(Base64URL.encode)
        return response
    }

    /// OpenID Connect Core §3.1.3.6: the left half of the access token's SHA-256 (both
    /// algorithms here hash with SHA-256), base64url.
    static func leftHalfHash(_ token: String) -> String {
        Base64URL.encode(Array(Digest.sha256.hash(Array(token.utf8)).prefix(16)))
    }

    /// An RFC 9068 access token: `typ: at+jwt`; its `jti` starts with the grant's id, which
    /// userinfo looks up to learn whether the grant still stands.
    func accessToken(_ grant: GrantRecord, client: ClientRecord, scopes: [String], key: SigningKeys.Key, jkt: String?, at: Date) throws -> String {
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(Self.subject(grant.userHandle)), "aud": .string(client.id),
            "client_id": .string(client.id), "iat": Self.seconds(at), "exp": Self.seconds(at.addingTimeInterval(configuration.accessTokenTTL)),
            "jti": .string(grant.id + "." + Base64URL.encode(SecureRandom.bytes(16))), "scope": .string(scopes.joined(separator: " ")),
            "auth_time": Self.seconds(grant.authTime), "amr": .array(grant.amr.map(JSONValue.string)),
            "sid": .string(Self.sessionID(grant.sessionHash)),
        ]
        if let acr = grant.acr { claims["acr"] = .string(acr) }
        if let jkt { claims["cnf"] = .object(["jkt": .string(jkt)]) }
        let token = try JWS.sign(
            header: ["typ": .string("at+jwt"), "kid": .string(key.record.keyID)], claims: claims, key: key.privateKey, algorithm: key.algorithm)
        signedTokens.remember(token)
        return token
    }

    /// The claims each scope gives (docs/contracts/identity.md): `profile` → `preferred_username`, `name`;
    /// `email` → `email`, `email_verified` from a linked Apple ID that gave one; `groups` →
    /// `groups` (always, `[]` for none); `passkey` → what the client may want to know of the
    /// passkey that opened the session, or null when none did.
    func scopeClaims(user: UserRecord, grant: GrantRecord, scopes: [String]) async throws -> [String: JSONValue] {
        var claims: [String: JSONValue] = [:]
        if scopes.contains("profile") {
            claims["preferred_username"] = .string(user.name)
            claims["name"] = .string(user.displayName)
            claims["updated_at"] = Self.seconds(user.updatedAt ?? user.createdAt)
        }
        if scopes.contains("email"), let link = try await store.appleLink(userHandle: user.handle), let email = link.email {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(link.emailVerified)
        }
        if scopes.contains("groups") {
            claims["groups"] = .array(try await store.groups(userHandle: user.handle).map { .string($0.name) })
        }
        if scopes.contains("passkey") {
            let credential = try await grant.credentialID.asyncMap { try await store.credential(id: $0) } ?? nil
            claims["passkey"] = credential.map { c in
                .object([
                    "synced": .bool(c.backupState), "device_bound": .bool(!c.backupEligible), "attested": .bool(c.attestationTrusted),
                    "provider": c.authenticatorName.map(JSONValue.string) ?? .null, "aaguid": .string(UUIDString.format(c.aaguid)),
                ])
            } ?? .null
        }
        return claims
    }
}
