internal import Foundation
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyJSON
internal import PasskeyStorage

/// The revocation endpoint (RFC 7009; docs/contracts/identity.md, "Revocation, introspection, logout").
extension OpenIDProvider {
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
        } else if let (_, holder) = try? await checkToken(token, at: at) {
            switch holder {
            case .user(let found):
                grant = found
            case .client(let owner):
                // RFC 7009 §2.2.1: nothing stands behind a client's own token to revoke; it
                // ends at its expiry (`--access-token-ttl`) or with the client.
                guard owner.id == client.id else { return }
                throw OAuthError("unsupported_token_type", "a client's own access token is not revoked: it ends at its expiry or when the client is removed")
            }
        }
        guard let grant, grant.clientID == client.id else { return }
        _ = try await store.revokeGrant(
            id: grant.id, event: context.event(grant.userHandle, "oauth_token_revoked", at: at, ["client": client.id]))
    }
}
