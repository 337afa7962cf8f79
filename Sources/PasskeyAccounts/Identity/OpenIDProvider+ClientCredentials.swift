internal import Foundation
internal import PasskeyCrypto
internal import PasskeyJOSE
internal import PasskeyJSON
internal import PasskeyStorage

/// `client_credentials` (RFC 6749 §4.4) with resource indicators (RFC 8707): a service's or an
/// agent's token of its own, with no user (docs/contracts/identity.md, "Machine and agent clients").
extension OpenIDProvider {
    /// A client's own access token's `jti` starts with this; a user's starts with its grant's id
    /// (22 base64url characters, never a dot), so the two cannot be taken for each other.
    static let clientTokenMark = "client."

    /// The token answer: an RFC 9068 access token whose `sub` is the client, for the API scopes
    /// asked (all within the client's; by default all of them) and the resources asked (each
    /// one of the client's `--audience` values; by default the issuer). No ID token, no
    /// refresh token. One audit event per token.
    func clientCredentials(_ values: [String: String], resources: [String], client: ClientRecord, jkt: String?) async throws -> TokenAnswer {
        guard client.clientCredentials, !client.isPublic else {
            throw OAuthError("unauthorized_client", "this client is not registered for client_credentials")
        }
        let scopes = try Self.checkClientScopes(values["scope"], client: client)
        let audience = try checkResources(resources, client: client)
        let at = now()
        let key = try await keys.signer(JWSAlgorithm(rawValue: client.idTokenAlgorithm) ?? .rs256, now: at)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(client.id), "aud": audience.json, "client_id": .string(client.id),
            "iat": Self.seconds(at), "exp": Self.seconds(at.addingTimeInterval(configuration.accessTokenTTL)),
            "jti": .string(Self.clientTokenMark + Base64URL.encode(SecureRandom.bytes(16))), "scope": .string(scopes.joined(separator: " ")),
        ]
        if let jkt { claims["cnf"] = .object(["jkt": .string(jkt)]) }
        let token = try JWS.sign(
            header: ["typ": .string("at+jwt"), "kid": .string(key.record.keyID)], claims: claims, key: key.privateKey, algorithm: key.algorithm)
        var details = ["client": client.id, "grant": "client_credentials"]
        if !scopes.isEmpty { details["scope"] = scopes.joined(separator: " ") }
        try await store.insertEvent(context.event([], "oauth_token_issued", at: at, details))
        signedTokens.remember(token)
        return TokenAnswer(accessToken: token, tokenType: jkt == nil ? "Bearer" : "DPoP", expiresIn: Int(configuration.accessTokenTTL), scope: scopes.joined(separator: " "))
    }

    /// `scope` for a client's own token: API scopes only (a user scope asks for a user there is
    /// none of), each among the client's; absent, every API scope the client has.
    static func checkClientScopes(_ text: String?, client: ClientRecord) throws(OAuthError) -> [String] {
        guard let text else { return client.scopes.filter(ClientRegistry.isAPIScope) }
        var seen = Set<String>()
        let asked = text.split(separator: " ").map(String.init).filter { seen.insert($0).inserted }
        if let user = asked.first(where: { !ClientRegistry.isAPIScope($0) }) {
            throw OAuthError("invalid_scope", "\(user.prefix(32)) asks for a user; a client's own token has none")
        }
        if let outside = asked.first(where: { !client.scopes.contains($0) }) {
            throw OAuthError("invalid_scope", "\(outside.prefix(32)) is not a scope this client may ask for")
        }
        return asked
    }

    /// RFC 8707 §2: each `resource` an absolute URI without a fragment, and one of the client's
    /// audiences (`invalid_target` otherwise). The token's `aud`: the resources, or the issuer.
    func checkResources(_ resources: [String], client: ClientRecord) throws(OAuthError) -> Audience {
        guard !resources.isEmpty else { return .one(issuer) }
        var seen = Set<String>()
        let unique = resources.filter { seen.insert($0).inserted }
        for resource in unique {
            guard ClientRegistry.isResourceURI(resource) else {
                throw OAuthError("invalid_target", "resource \(resource.prefix(64)) is not an absolute URI without a fragment")
            }
            guard client.audiences.contains(resource) else {
                throw OAuthError("invalid_target", "resource \(resource.prefix(64)) is not an audience of this client")
            }
        }
        return unique.count == 1 ? .one(unique[0]) : .many(unique)
    }

    /// A client's own access token that still stands: the client still registered and still
    /// allowed `client_credentials`. (Removing the client ends its tokens at once.)
    func checkClientToken(_ claims: [String: JSONValue]) async throws -> ClientRecord {
        guard let id = claims["client_id"]?.stringValue, claims["sub"]?.stringValue == id,
              let client = try await store.client(id: id), client.clientCredentials
        else { throw OAuthError.invalidToken("the access token's client is no longer registered for it") }
        return client
    }
}
