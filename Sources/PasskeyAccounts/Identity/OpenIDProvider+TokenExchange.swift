internal import Foundation
internal import PasskeyCrypto
internal import PasskeyJSON
internal import PasskeyStorage

/// Token exchange (RFC 8693) at the token endpoint: a session token of the JSON endpoints for a token
/// a native app's backend can check offline against the key set (docs/contracts/identity.md, "Token endpoint").
extension OpenIDProvider {
    // MARK: Token exchange

    /// RFC 8693 for clients registered with `--token-exchange`: a session token of the JSON
    /// endpoints for an access token (default) or an ID token whose `aud` is the exchanging
    /// client, bound to that session (it ends with it), under the client's own policy.
    func exchange(_ values: [String: String], client: ClientRecord, jkt: String?) async throws -> TokenAnswer {
        guard client.tokenExchange else { throw OAuthError("unauthorized_client", "this client is not registered for token exchange") }
        guard let subjectToken = values["subject_token"] else { throw OAuthError.invalidRequest("subject_token is missing") }
        guard values["subject_token_type"] == Self.accessTokenType else {
            throw OAuthError.invalidRequest("subject_token_type must be \(Self.accessTokenType) (a session token of the JSON endpoints)")
        }
        if values["actor_token"] != nil || values["audience"] != nil {
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
            grant, event: context.event(user.handle, "oauth_token_issued", at: at, ["client": client.id, "grant": "token_exchange"]))
        let tokens = try await tokenResponse(grant, client: client, scopes: scopes, refreshToken: nil, at: at, includeNonce: false, jkt: jkt)
        if requested == Self.idTokenType {
            guard let idToken = tokens.idToken else { throw OAuthError("invalid_scope", "an ID token needs the openid scope") }
            return TokenAnswer(
                accessToken: idToken, tokenType: "N_A", expiresIn: Int(configuration.idTokenTTL), scope: scopes.joined(separator: " "),
                issuedTokenType: Self.idTokenType)
        }
        return TokenAnswer(
            accessToken: tokens.accessToken, tokenType: tokens.tokenType, expiresIn: Int(configuration.accessTokenTTL), scope: scopes.joined(separator: " "),
            issuedTokenType: Self.accessTokenType)
    }
}
