internal import PasskeyCrypto
public import Foundation
internal import PasskeyCore
internal import PasskeyJOSE
internal import PasskeyJSON
internal import PasskeyStorage

/// The userinfo endpoint (OpenID Connect Core §5.3; docs/contracts/identity.md, "Tokens and claims").
extension OpenIDProvider {
    // MARK: Userinfo

    /// How the request presented its access token: `Authorization: Bearer` (RFC 6750) or
    /// `Authorization: DPoP` with a proof (RFC 9449 §7).
    public enum TokenScheme: Sendable {
        case bearer
        case dpop
    }

    /// `GET`/`POST /oauth/userinfo` (OpenID Connect Core §5.3): `sub` and the claims of the
    /// token's scopes. The token must be one of ours, unexpired, of a grant that stands, whose
    /// session (unless `offline_access`) is still open; anything else is `invalid_token`. A
    /// DPoP-bound token comes with the `DPoP` scheme and a proof by its key.
    public func userinfo(accessToken: String?, scheme: TokenScheme = .bearer, dpop: DPoPRequest? = nil) async throws -> UserinfoAnswer {
        guard let accessToken else { throw AccessTokenMissing() }
        let at = now()
        let (claims, grant) = try await checkAccessToken(accessToken, at: at)
        try await checkPresentation(claims, token: accessToken, scheme: scheme, dpop: dpop, path: "/oauth/userinfo", at: at)
        guard let user = try await store.user(handle: grant.userHandle) else { throw OAuthError.invalidToken("the account no longer exists") }
        let scopes = (claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init)
        return UserinfoAnswer(sub: Self.subject(user.handle), claims: try await scopeClaims(user: user, grant: grant, scopes: scopes))
    }

    /// RFC 9449 §7.1: a token bound to a key (`cnf.jkt`) is presented with the `DPoP` scheme and a
    /// proof by that key naming it (`ath`); an unbound token with `Bearer`. Anything else is
    /// `invalid_token`, or the proof's own refusal.
    func checkPresentation(
        _ claims: [String: JSONValue], token: String, scheme: TokenScheme, dpop: DPoPRequest?, path: String, at: Date
    ) async throws {
        let bound = claims["cnf"]?.objectValue?["jkt"]?.stringValue
        switch (scheme, bound) {
        case (.bearer, nil):
            return
        case (.bearer, .some):
            throw OAuthError.invalidToken("the access token is bound to a DPoP key: present it with the DPoP scheme and a proof")
        case (.dpop, nil):
            throw OAuthError.invalidToken("the access token is not DPoP-bound: present it as Bearer")
        case (.dpop, let jkt?):
            guard let proven = try await checkDPoPProof(dpop, path: path, accessToken: token, at: at) else {
                throw OAuthError("invalid_dpop_proof", "a DPoP-bound token needs a DPoP proof")
            }
            guard proven == jkt else { throw OAuthError("invalid_dpop_proof", "the DPoP proof is signed by another key than the token's") }
        }
    }

    /// Whom an access token speaks for: a user's grant, or a client itself (`client_credentials`).
    enum TokenHolder {
        case user(GrantRecord)
        case client(ClientRecord)
    }

    /// `checkToken` for a user's token: a client's own token names no user (`invalid_token`).
    func checkAccessToken(_ token: String, at: Date) async throws -> ([String: JSONValue], GrantRecord) {
        let (claims, holder) = try await checkToken(token, at: at)
        guard case .user(let grant) = holder else { throw OAuthError.invalidToken("a client's own token names no user") }
        return (claims, grant)
    }

    /// An access token this provider issued, checked in full: its signature by a published key
    /// (`kid`), `typ: at+jwt`, `iss`, `exp`, and then, for a user's token, the grant its `jti`
    /// names (not revoked, the same client, the session alive unless offline), for a client's
    /// own token, the client (still registered for it). Returns its claims and whom it holds.
    func checkToken(_ token: String, at: Date) async throws -> ([String: JSONValue], TokenHolder) {
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
        if let jti = claims["jti"]?.stringValue, jti.hasPrefix(Self.clientTokenMark) {
            return (claims, .client(try await checkClientToken(claims)))
        }
        guard let jti = claims["jti"]?.stringValue, let dot = jti.firstIndex(of: "."),
              let grant = try await store.grant(id: String(jti[..<dot])), !grant.revoked,
              claims["client_id"]?.stringValue == grant.clientID
        else { throw OAuthError.invalidToken("the access token was revoked") }
        guard try await isStanding(grant, at: at) else {
            throw OAuthError.invalidToken("the session the access token came from has ended")
        }
        return (claims, .user(grant))
    }
}
