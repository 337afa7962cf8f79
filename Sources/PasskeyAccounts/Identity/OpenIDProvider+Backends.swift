public import Foundation
internal import PasskeyCrypto
internal import PasskeyJOSE
public import PasskeyJSON
public import PasskeyStorage

/// For the backends of native apps (docs/contracts/identity.md, "Token endpoint" and "Revocation,
/// introspection, logout"; seed 002): introspection (RFC 7662) of access tokens, refresh tokens
/// and the JSON endpoints' session tokens, and token exchange (RFC 8693) of a session token for
/// a token the backend can check offline against the key set.
extension OpenIDProvider {
    static let tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    static let idTokenType = "urn:ietf:params:oauth:token-type:id_token"

    // MARK: Introspection

    /// `POST /oauth/introspect`, for clients registered with `--introspection`: what the token
    /// is, or exactly `{"active": false}` for anything that does not stand (unknown, expired,
    /// revoked, its session ended) and for another client's refresh token.
    public func introspect(_ parameters: [(name: String, value: String)], basic: (id: String, secret: String)?) async throws -> [String: JSONValue] {
        let values = try Self.singleValues(parameters)
        let client = try await authenticateClient(values, basic: basic)
        guard client.introspection else { throw OAuthError("unauthorized_client", "this client is not registered for introspection") }
        guard let token = values["token"] else { throw OAuthError.invalidRequest("token is missing") }
        let hint = values["token_type_hint"]
        let inactive: [String: JSONValue] = ["active": .bool(false)]
        let at = now()
        if token.contains(".") {
            guard hint == nil || hint == "access_token", let (claims, grant) = try? await checkAccessToken(token, at: at),
                  let user = try await store.user(handle: grant.userHandle)
            else { return inactive }
            var answer = claims.filter { ["sub", "client_id", "scope", "exp", "iat", "auth_time", "amr", "acr", "sid", "aud", "iss", "jti"].contains($0.key) }
            answer["active"] = .bool(true)
            answer["username"] = .string(user.name)
            answer["token_type"] = .string("access_token")
            return answer
        }
        guard let bytes = Base64URL.decodeStrict(token), bytes.count == 32 else { return inactive }
        let hash = Digest.sha256.hash(bytes)
        var refreshGrant: GrantRecord?
        if hint != "session", case .current(let grant)? = try await store.grant(refreshHash: hash) { refreshGrant = grant }
        // A refresh token is its client's alone (RFC 7662 §4): another client learns nothing of
        // it, not even that it stands.
        if let grant = refreshGrant, !isOwnRefreshToken(grant, of: client) { return inactive }
        if let grant = refreshGrant, !grant.revoked, let expiry = grant.refreshExpiresAt, expiry > at,
           try await isStanding(grant, at: at),
           let user = try await store.user(handle: grant.userHandle)
        {
            var answer = grantClaims(grant, user: user)
            answer["client_id"] = .string(grant.clientID)
            answer["scope"] = .string(grant.scopes.joined(separator: " "))
            answer["exp"] = Self.seconds(expiry)
            answer["token_type"] = .string("refresh_token")
            return answer
        }
        if hint == nil || hint == "session", let session = try await store.session(tokenHash: hash, now: at), !session.isRecovery,
           let user = try await store.user(handle: session.userHandle)
        {
            let credential = try await session.credentialID.asyncMap { try await store.credential(id: $0) } ?? nil
            var answer: [String: JSONValue] = [
                "active": .bool(true), "sub": .string(Self.subject(user.handle)), "username": .string(user.name),
                "exp": Self.seconds(session.expiresAt), "iat": Self.seconds(session.createdAt), "auth_time": Self.seconds(session.createdAt),
                "amr": .array(Self.amr(session, credential: credential).map(JSONValue.string)), "sid": .string(Self.sessionID(session.tokenHash)),
                "token_type": .string("session"),
            ]
            if let acr = Self.acr(credential) { answer["acr"] = .string(acr) }
            return answer
        }
        return inactive
    }

    /// Whether `grant`'s refresh token may be introspected by `client`: only by the client it was
    /// issued to.
    func isOwnRefreshToken(_ grant: GrantRecord, of client: ClientRecord) -> Bool {
        grant.clientID == client.id
    }

    /// A grant without `offline_access` stands while its session does.
    func isStanding(_ grant: GrantRecord, at: Date) async throws -> Bool {
        if grant.offline { return true }
        return try await store.session(tokenHash: grant.sessionHash, now: at) != nil
    }

    func grantClaims(_ grant: GrantRecord, user: UserRecord) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "active": .bool(true), "sub": .string(Self.subject(user.handle)), "username": .string(user.name),
            "iat": Self.seconds(grant.createdAt), "auth_time": Self.seconds(grant.authTime),
            "amr": .array(grant.amr.map(JSONValue.string)), "sid": .string(Self.sessionID(grant.sessionHash)), "iss": .string(issuer),
        ]
        if let acr = grant.acr { claims["acr"] = .string(acr) }
        return claims
    }

    static func singleValues(_ parameters: [(name: String, value: String)]) throws(OAuthError) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in parameters where values.updateValue(value, forKey: name) != nil {
            throw OAuthError.invalidRequest("\(name.prefix(32)) is given more than once")
        }
        return values
    }

    // MARK: Token exchange

    /// RFC 8693 for clients registered with `--token-exchange`: a session token of the JSON
    /// endpoints for an access token (default) or an ID token whose `aud` is the exchanging
    /// client, bound to that session (it ends with it), under the client's own policy.
    func exchange(_ values: [String: String], client: ClientRecord) async throws -> [String: JSONValue] {
        guard client.tokenExchange else { throw OAuthError("unauthorized_client", "this client is not registered for token exchange") }
        guard let subjectToken = values["subject_token"] else { throw OAuthError.invalidRequest("subject_token is missing") }
        guard values["subject_token_type"] == Self.accessTokenType else {
            throw OAuthError.invalidRequest("subject_token_type must be \(Self.accessTokenType) (a session token of the JSON endpoints)")
        }
        if values["actor_token"] != nil || values["resource"] != nil || values["audience"] != nil {
            throw OAuthError("invalid_target", "actor_token, resource and audience are not supported: the token is for the exchanging client")
        }
        let requested = values["requested_token_type"] ?? Self.accessTokenType
        guard requested == Self.accessTokenType || requested == Self.idTokenType else {
            throw OAuthError.invalidRequest("requested_token_type must be the access_token or id_token type")
        }
        var scopes = client.scopes
        if let asked = values["scope"] {
            scopes = asked.split(separator: " ").map(String.init)
            if let outside = scopes.first(where: { !client.scopes.contains($0) }) {
                throw OAuthError("invalid_scope", "\(outside.prefix(32)) is not a scope this client may ask for")
            }
        }
        if requested == Self.idTokenType, !scopes.contains("openid") { throw OAuthError("invalid_scope", "an ID token needs the openid scope") }
        let at = now()
        guard let bytes = Base64URL.decodeStrict(subjectToken), bytes.count == 32,
              let session = try await store.session(tokenHash: Digest.sha256.hash(bytes), now: at), !session.isRecovery,
              let user = try await store.user(handle: session.userHandle)
        else { throw OAuthError.invalidGrant("subject_token is not a live session of this server") }
        let credential = try await session.credentialID.asyncMap { try await store.credential(id: $0) } ?? nil
        try await checkPolicy(client, userHandle: user.handle, acr: Self.acr(credential))
        let grant = GrantRecord(
            id: Base64URL.encode(SecureRandom.bytes(16)), clientID: client.id, userHandle: user.handle, sessionHash: session.tokenHash,
            offline: false, scopes: scopes, nonce: nil, authTime: session.createdAt, amr: Self.amr(session, credential: credential),
            acr: Self.acr(credential), credentialID: credential?.id, codeHash: Digest.sha256.hash(SecureRandom.bytes(32)), codeChallenge: "",
            redirectURI: "", codeExpiresAt: at, codeSpent: true, createdAt: at,
            expiresAt: at.addingTimeInterval(max(configuration.accessTokenTTL, configuration.idTokenTTL)))
        try await store.insertGrant(
            grant, event: passkeys.event(user.handle, "oauth_token_issued", at: at, ["client": client.id, "grant": "token_exchange"]))
        let tokens = try await tokenResponse(grant, client: client, scopes: scopes, refreshToken: nil, at: at, includeNonce: false)
        if requested == Self.idTokenType {
            return [
                "access_token": tokens["id_token"] ?? .null, "issued_token_type": .string(Self.idTokenType), "token_type": .string("N_A"),
                "expires_in": .integer(Int64(configuration.idTokenTTL)), "scope": .string(scopes.joined(separator: " ")),
            ]
        }
        return [
            "access_token": tokens["access_token"] ?? .null, "issued_token_type": .string(Self.accessTokenType), "token_type": .string("Bearer"),
            "expires_in": .integer(Int64(configuration.accessTokenTTL)), "scope": .string(scopes.joined(separator: " ")),
        ]
    }

    /// Per-application policy (docs/contracts/identity.md, "Issuer, keys, clients"): `--allowed-group` and
    /// `--require-acr`, checked at token exchange and refresh as at authorization.
    func checkPolicy(_ client: ClientRecord, userHandle: [UInt8], acr: String?) async throws {
        if case .refused(_, let description)? = try await checkAllowedGroups(client, userHandle: userHandle) {
            throw OAuthError.invalidGrant(description)
        }
        if let required = client.requiredACR, !Self.satisfies(acr, required: required) {
            throw OAuthError.invalidGrant("this application needs a session of class \(required)")
        }
    }
}
