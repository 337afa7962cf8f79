internal import Foundation
internal import PasskeyCrypto
public import PasskeyJSON
internal import PasskeyStorage

/// The introspection endpoint (RFC 7662) for native apps' backends: access tokens, refresh tokens and
/// the JSON endpoints' session tokens (docs/contracts/identity.md, "Revocation, introspection, logout").
extension OpenIDProvider {
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
}
