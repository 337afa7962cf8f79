internal import Foundation
internal import PasskeyCrypto
internal import PasskeyJSON
internal import PasskeyStorage

/// The introspection endpoint (RFC 7662) for native apps' backends: access tokens, refresh tokens and
/// the JSON endpoints' session tokens (docs/contracts/identity.md, "Revocation, introspection, logout").
extension OpenIDProvider {
    // MARK: Introspection

    /// `POST /oauth/introspect`, for clients registered with `--introspection`: what the token
    /// is, or exactly `{"active": false}` for anything that does not stand (unknown, expired,
    /// revoked, its session ended) and for another client's refresh token.
    public func introspect(_ parameters: [(name: String, value: String)], basic: (id: String, secret: String)?) async throws -> IntrospectionAnswer {
        let values = try Self.singleValues(parameters)
        let client = try await authenticateClient(values, basic: basic)
        guard client.introspection else { throw OAuthError("unauthorized_client", "this client is not registered for introspection") }
        guard let token = values["token"] else { throw OAuthError.invalidRequest("token is missing") }
        let hint = values["token_type_hint"]
        let at = now()
        if token.contains(".") {
            guard hint == nil || hint == "access_token", let (claims, holder) = try? await checkToken(token, at: at) else { return .inactive }
            switch holder {
            case .client:
                return Self.accessTokenAnswer(claims, username: nil)
            case .user(let grant):
                guard let user = try await store.user(handle: grant.userHandle) else { return .inactive }
                return Self.accessTokenAnswer(claims, username: user.name)
            }
        }
        guard let bytes = Base64URL.decodeStrict(token), bytes.count == 32 else { return .inactive }
        let hash = Digest.sha256.hash(bytes)
        var refreshGrant: GrantRecord?
        if hint != "session", case .current(let grant)? = try await store.grant(refreshHash: hash) { refreshGrant = grant }
        // A refresh token is its client's alone (RFC 7662 §4): another client learns nothing of
        // it, not even that it stands.
        if let grant = refreshGrant, !isOwnRefreshToken(grant, of: client) { return .inactive }
        if let grant = refreshGrant, !grant.revoked, let expiry = grant.refreshExpiresAt, expiry > at,
           try await isStanding(grant, at: at),
           let user = try await store.user(handle: grant.userHandle)
        {
            return refreshTokenAnswer(grant, user: user, expiry: expiry)
        }
        if hint == nil || hint == "session", let session = try await store.session(tokenHash: hash, now: at), !session.isRecovery,
           let user = try await store.user(handle: session.userHandle)
        {
            let credential = try await session.credentialID.asyncMap { try await store.credential(id: $0) } ?? nil
            return IntrospectionAnswer(
                active: true, sub: Self.subject(user.handle), username: user.name, tokenType: "session", exp: Self.numericDate(session.expiresAt),
                iat: Self.numericDate(session.createdAt), authTime: Self.numericDate(session.createdAt),
                amr: Self.amr(session, credential: credential), acr: Self.acr(credential), sid: Self.sessionID(session.tokenHash))
        }
        return .inactive
    }

    /// A standing access token: the claims it carries that RFC 7662 §2.2 names (and `auth_time`,
    /// `amr`, `acr`, `sid`), with the account's name (none for a client's own token).
    static func accessTokenAnswer(_ claims: [String: JSONValue], username: String?) -> IntrospectionAnswer {
        func time(_ name: String) -> Int64? {
            guard case .integer(let seconds)? = claims[name] else { return nil }
            return seconds
        }
        return IntrospectionAnswer(
            active: true, sub: claims["sub"]?.stringValue, username: username, clientID: claims["client_id"]?.stringValue,
            scope: claims["scope"]?.stringValue, tokenType: "access_token", exp: time("exp"), iat: time("iat"), authTime: time("auth_time"),
            amr: claims["amr"]?.arrayValue?.compactMap(\.stringValue), acr: claims["acr"]?.stringValue, sid: claims["sid"]?.stringValue,
            aud: Audience(claims["aud"]), iss: claims["iss"]?.stringValue, jti: claims["jti"]?.stringValue,
            cnf: claims["cnf"]?.objectValue?["jkt"]?.stringValue.map(Confirmation.init(jkt:)))
    }

    /// A standing refresh token: the grant it renews.
    func refreshTokenAnswer(_ grant: GrantRecord, user: UserRecord, expiry: Date) -> IntrospectionAnswer {
        IntrospectionAnswer(
            active: true, sub: Self.subject(user.handle), username: user.name, clientID: grant.clientID, scope: grant.scopes.joined(separator: " "),
            tokenType: "refresh_token", exp: Self.numericDate(expiry), iat: Self.numericDate(grant.createdAt),
            authTime: Self.numericDate(grant.authTime), amr: grant.amr, acr: grant.acr, sid: Self.sessionID(grant.sessionHash), iss: issuer)
    }
}
