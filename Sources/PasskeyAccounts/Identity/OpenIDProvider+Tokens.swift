public import Foundation
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyJOSE
public import PasskeyJSON
public import PasskeyStorage

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
    static func sessionID(_ sessionHash: [UInt8]) -> String { PasskeySignIn.sessionID(sessionHash) }

    static func seconds(_ date: Date) -> JSONValue { .integer(JWTClaims.numericDate(date) ?? 0) }

    /// The token response (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
    func tokenResponse(
        _ grant: GrantRecord, client: ClientRecord, scopes: [String], refreshToken: [UInt8]?, at: Date, includeNonce: Bool
    ) async throws -> [String: JSONValue] {
        guard let user = try await store.user(handle: grant.userHandle) else {
            throw OAuthError.invalidGrant("the account no longer exists")
        }
        let algorithm = JWSAlgorithm(rawValue: client.idTokenAlgorithm) ?? .rs256
        let key = try await keys.signer(algorithm, now: at)
        let accessToken = try accessToken(grant, client: client, scopes: scopes, key: key, at: at)
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
        var response: [String: JSONValue] = [
            "access_token": .string(accessToken), "token_type": .string("Bearer"), "expires_in": .integer(Int64(configuration.accessTokenTTL)),
            "scope": .string(scopes.joined(separator: " ")),
        ]
        // An ID token answers an OpenID Connect request; the Messages for Business device may
        // ask by OAuth 2.0 alone (no `openid`), and gets none.
        if grant.scopes.contains("openid") {
            response["id_token"] = .string(
                try JWS.sign(header: ["typ": .string("JWT"), "kid": .string(key.record.keyID)], claims: idClaims, key: key.privateKey, algorithm: algorithm))
        }
        if let refreshToken { response["refresh_token"] = .string(Base64URL.encode(refreshToken)) }
        return response
    }

    /// OpenID Connect Core §3.1.3.6: the left half of the access token's SHA-256 (both
    /// algorithms here hash with SHA-256), base64url.
    static func leftHalfHash(_ token: String) -> String {
        Base64URL.encode(Array(Digest.sha256.hash(Array(token.utf8)).prefix(16)))
    }

    /// An RFC 9068 access token: `typ: at+jwt`; its `jti` starts with the grant's id, which
    /// userinfo looks up to learn whether the grant still stands.
    func accessToken(_ grant: GrantRecord, client: ClientRecord, scopes: [String], key: SigningKeys.Key, at: Date) throws -> String {
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(Self.subject(grant.userHandle)), "aud": .string(client.id),
            "client_id": .string(client.id), "iat": Self.seconds(at), "exp": Self.seconds(at.addingTimeInterval(configuration.accessTokenTTL)),
            "jti": .string(grant.id + "." + Base64URL.encode(SecureRandom.bytes(16))), "scope": .string(scopes.joined(separator: " ")),
            "auth_time": Self.seconds(grant.authTime), "amr": .array(grant.amr.map(JSONValue.string)),
            "sid": .string(Self.sessionID(grant.sessionHash)),
        ]
        if let acr = grant.acr { claims["acr"] = .string(acr) }
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

    // MARK: Userinfo

    /// `GET`/`POST /oauth/userinfo` (OpenID Connect Core §5.3): `sub` and the claims of the
    /// token's scopes. The token must be one of ours, unexpired, of a grant that stands, whose
    /// session (unless `offline_access`) is still open; anything else is `invalid_token`.
    public func userinfo(accessToken: String?) async throws -> [String: JSONValue] {
        guard let accessToken else { throw AccessTokenMissing() }
        let at = now()
        let (claims, grant) = try await checkAccessToken(accessToken, at: at)
        guard let user = try await store.user(handle: grant.userHandle) else { throw OAuthError.invalidToken("the account no longer exists") }
        let scopes = (claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init)
        var info = try await scopeClaims(user: user, grant: grant, scopes: scopes)
        info["sub"] = .string(Self.subject(user.handle))
        return info
    }

    /// An access token this provider issued, checked in full: its signature by a published key
    /// (`kid`), `typ: at+jwt`, `iss`, `exp`, and the grant its `jti` names (not revoked, the
    /// same client, the session alive unless offline). Returns its claims and the grant.
    func checkAccessToken(_ token: String, at: Date) async throws -> ([String: JSONValue], GrantRecord) {
        let claims: [String: JSONValue]
        do {
            let jws = try JWS(compact: token)
            guard jws.header["typ"]?.stringValue == "at+jwt" else { throw JOSEError(.headerRefused, "typ is not at+jwt") }
            let algorithm = try jws.checkAlgorithm(Self.tokenPolicy)
            guard let kid = jws.keyID,
                  let key = try await keys.key(id: kid, algorithm: algorithm, now: at), key.state != .withdrawn
            else { throw JOSEError(.badSignature, "the token names no key this server publishes") }
            if !signedTokens.signedHere(token) {
                try jws.verify(with: key.privateKey.publicKey, policy: Self.tokenPolicy)
            }
            claims = try jws.claims()
            try JWTClaims.checkIssuer(claims, expected: issuer)
            try JWTClaims.checkExpiry(claims, now: at, leeway: 0)
        } catch let error as JOSEError {
            throw OAuthError.invalidToken("the access token is not valid: \(error.reason)")
        }
        guard let jti = claims["jti"]?.stringValue, let dot = jti.firstIndex(of: "."),
              let grant = try await store.grant(id: String(jti[..<dot])), !grant.revoked,
              claims["client_id"]?.stringValue == grant.clientID
        else { throw OAuthError.invalidToken("the access token was revoked") }
        guard try await isStanding(grant, at: at) else {
            throw OAuthError.invalidToken("the session the access token came from has ended")
        }
        return (claims, grant)
    }

    // MARK: Discovery

    /// `GET /.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3), listing only
    /// what this server does.
    public func discovery() -> [String: JSONValue] {
        let base = issuer
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        return [
            "issuer": .string(base),
            "authorization_endpoint": .string(base + "/oauth/authorize"),
            "token_endpoint": .string(base + "/oauth/token"),
            "userinfo_endpoint": .string(base + "/oauth/userinfo"),
            "jwks_uri": .string(base + "/oauth/jwks"),
            "revocation_endpoint": .string(base + "/oauth/revoke"),
            "end_session_endpoint": .string(base + "/oauth/logout"),
            "introspection_endpoint": .string(base + "/oauth/introspect"),
            "pushed_authorization_request_endpoint": .string(base + "/oauth/par"),
            "device_authorization_endpoint": .string(base + "/oauth/device"),
            "response_types_supported": strings(["code"]),
            "response_modes_supported": strings(["query", "form_post"]),
            "grant_types_supported": strings(["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange", Self.deviceCodeGrant]),
            "subject_types_supported": strings(["public"]),
            "id_token_signing_alg_values_supported": strings(SigningKeys.algorithms.map(\.rawValue)),
            "token_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post", "none"]),
            "revocation_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post", "none"]),
            "introspection_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post"]),
            "code_challenge_methods_supported": strings(["S256"]),
            "scopes_supported": strings(["openid", "profile", "email", "groups", "offline_access", "passkey"]),
            "claims_supported": strings([
                "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "sid", "at_hash", "preferred_username", "name", "updated_at",
                "email", "email_verified", "groups", "passkey",
            ]),
            "acr_values_supported": strings(["phrh", "phr"]),
            "prompt_values_supported": strings(["none", "login", "consent", "select_account"]),
            "claims_parameter_supported": .bool(false),
            "request_parameter_supported": .bool(false),
            "request_uri_parameter_supported": .bool(false),
            "authorization_response_iss_parameter_supported": .bool(true),
            "backchannel_logout_supported": .bool(true),
            "backchannel_logout_session_supported": .bool(true),
        ]
    }

    // MARK: Revocation

    /// `POST /oauth/revoke` (RFC 7009): the client's own access or refresh token revokes its
    /// grant (the refresh family and every access token from it, §2.1). An unknown token, or
    /// another client's, answers the same success and changes nothing.
    public func revoke(_ parameters: [(name: String, value: String)], basic: (id: String, secret: String)?) async throws {
        let values = try Self.singleValues(parameters)
        let client = try await authenticateClient(values, basic: basic)
        guard let token = values["token"] else { throw OAuthError.invalidRequest("token is missing") }
        let at = now()
        var grant: GrantRecord?
        if let bytes = Base64URL.decodeStrict(token), bytes.count == 32 {
            switch try await store.grant(refreshHash: Digest.sha256.hash(bytes)) {
            case .current(let found)?, .retired(let found)?: grant = found
            case nil: break
            }
        } else if let checked = try? await checkAccessToken(token, at: at) {
            grant = checked.1
        }
        guard let grant, grant.clientID == client.id else { return }
        _ = try await store.revokeGrant(
            id: grant.id, event: passkeys.event(grant.userHandle, "oauth_token_revoked", at: at, ["client": client.id]))
    }
}
