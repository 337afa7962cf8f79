internal import Foundation
internal import Logging
internal import PasskeyCrypto
internal import PasskeyJOSE
internal import PasskeyJSON
internal import PasskeyStorage

/// The token endpoint (docs/contracts/identity.md, "Token endpoint"; RFC 6749 §3.2, §4.1.3, §6; RFC 7636 §4.6).
extension OpenIDProvider {
    /// `POST /oauth/token`: `parameters` is the form body in order (repeats kept), `query` the
    /// URI's (read only for the Messages for Business client), `basic` the
    /// `Authorization: Basic` credentials when sent. Answers the token response.
    public func token(
        _ parameters: [(name: String, value: String)], query: [(name: String, value: String)] = [],
        basic: (id: String, secret: String)?, dpop: DPoPRequest? = nil
    ) async throws -> TokenAnswer {
        // RFC 8707 §2: `resource` may be repeated; every other parameter is given once.
        let resources = parameters.filter { $0.name == "resource" }.map(\.value)
        var values = try Self.singleValues(parameters.filter { $0.name != "resource" })
        if !query.isEmpty { values = try await withDeviceQuery(values, query: query, basic: basic) }
        let client = try await authenticateClient(values, basic: basic)
        if !resources.isEmpty, values["grant_type"] != "client_credentials" {
            throw OAuthError("invalid_target", "resource is taken only with client_credentials: a user's token is for the client that asked")
        }
        guard let grantType = values["grant_type"] else { throw OAuthError.invalidRequest("grant_type is missing") }
        let jkt = try await checkDPoPProof(dpop, path: "/oauth/token", accessToken: nil, at: now())
        if jkt == nil, client.requireDPoP {
            throw OAuthError("invalid_dpop_proof", "this client sends a DPoP proof with every token request (RFC 9449)")
        }
        switch grantType {
        case "client_credentials":
            return try await clientCredentials(values, resources: resources, client: client, jkt: jkt)
        case "authorization_code":
            return try await redeemCode(values, client: client, jkt: jkt)
        case "refresh_token":
            return try await refresh(values, client: client, jkt: jkt)
        case Self.tokenExchangeGrant:
            return try await exchange(values, client: client, jkt: jkt)
        case Self.deviceCodeGrant:
            return try await redeemDeviceCode(values, client: client, jkt: jkt)
        case Self.cibaGrant:
            return try await redeemBackchannel(values, client: client, jkt: jkt)
        case let other:
            throw OAuthError("unsupported_grant_type", "grant_type \(other.prefix(64)) is not supported")
        }
    }

    /// Seed 000: a Messages for Business device before iOS 15 puts the token request's
    /// parameters in the URI. They are read for that client only (every other client's are the
    /// form body's, RFC 6749 §3.2, and its URI's query is left alone); a parameter in both
    /// places with two values is refused.
    func withDeviceQuery(
        _ values: [String: String], query: [(name: String, value: String)], basic: (id: String, secret: String)?
    ) async throws -> [String: String] {
        let extra = try Self.singleValues(query)
        guard let id = basic?.id ?? values["client_id"] ?? extra["client_id"], id.utf8.count <= ClientRegistry.maximumIDLength,
              try await store.client(id: id)?.messagesForBusiness == true
        else { return values }
        var merged = values
        for (name, value) in extra {
            if let other = merged[name], other != value {
                throw OAuthError.invalidRequest("\(name.prefix(32)) is given twice, in the URI and in the body, with two values")
            }
            merged[name] = value
        }
        return merged
    }

    // MARK: Client authentication

    /// RFC 6749 §2.3: a confidential client authenticates by exactly one of
    /// `client_secret_basic`, `client_secret_post` and (with keys) `private_key_jwt`; a public
    /// client sends only `client_id`. Every failure is `invalid_client` (401), the same for an
    /// unknown client and a wrong secret; a client with keys has no secret to give.
    func authenticateClient(_ values: [String: String], basic: (id: String, secret: String)?) async throws -> ClientRecord {
        if Self.hasAssertion(values) { return try await authenticateByAssertion(values, basic: basic) }
        let postSecret = values["client_secret"]
        if basic != nil, postSecret != nil {
            throw OAuthError.invalidRequest("use one client authentication method, not both Basic and client_secret")
        }
        let clientID: String
        let secret: String?
        if let basic {
            if let posted = values["client_id"], posted != basic.id {
                throw OAuthError.invalidRequest("client_id differs from the Basic credentials")
            }
            (clientID, secret) = (basic.id, basic.secret)
        } else {
            guard let posted = values["client_id"] else {
                throw OAuthError.invalidClient("the client did not authenticate (Basic, client_secret_post, or client_id for a public client)")
            }
            (clientID, secret) = (posted, postSecret)
        }
        // Per client id, whoever claims it: a guessed secret costs the guesser the client's budget.
        if let retryAfter = clientLimiter.take("client:" + clientID.prefix(ClientRegistry.maximumIDLength), now: now()) {
            throw APIError.rateLimited(retryAfter: retryAfter)
        }
        let refusal = OAuthError.invalidClient("client authentication failed")
        guard clientID.utf8.count <= ClientRegistry.maximumURILength, let client = try await authenticatingClient(clientID) else { throw refusal }
        if client.isPublic {
            guard secret == nil else { throw refusal }
        } else {
            guard let secret, ClientRegistry.secretMatches(secret, client: client) else { throw refusal }
        }
        try Self.checkNotPending(client)
        return client
    }

    /// An open registration an admin has not approved yet gets nothing from any endpoint.
    static func checkNotPending(_ client: ClientRecord) throws(OAuthError) {
        guard !client.pending else { throw OAuthError.invalidClient("this client is waiting for an administrator's approval") }
    }

    /// Refresh tokens go to confidential clients, and to public ones registered with `--refresh`;
    /// never to the Messages for Business client, whose secret the legacy message hands to
    /// every customer's device.
    static func getsRefreshTokens(_ client: ClientRecord) -> Bool {
        !client.messagesForBusiness && (!client.isPublic || client.refresh)
    }

    // MARK: authorization_code

    func redeemCode(_ values: [String: String], client: ClientRecord, jkt: String?) async throws -> TokenAnswer {
        guard let code = values["code"] else { throw OAuthError.invalidRequest("code is missing") }
        let verifier = values["code_verifier"]
        guard verifier != nil || client.messagesForBusiness else {
            throw OAuthError.invalidRequest("code_verifier is missing (PKCE is required)")
        }
        guard let bytes = Base64URL.decodeStrict(code), bytes.count == 32, let grant = try await store.grant(codeHash: Digest.sha256.hash(bytes)),
              grant.clientID == client.id
        else { throw OAuthError.invalidGrant("the code is not one this server issued to this client") }
        let at = now()
        if grant.codeSpent {
            try await revokeForReuse(grant, type: "oauth_code_reuse", at: at)
            throw OAuthError.invalidGrant("the code was already used; every token issued with it is revoked")
        }
        guard !grant.revoked else { throw OAuthError.invalidGrant("the code was revoked") }
        guard grant.codeExpiresAt > at else { throw OAuthError.invalidGrant("the code has expired") }
        try Self.checkRedirectURI(values["redirect_uri"], grant: grant, client: client)
        try Self.checkCodeVerifier(verifier, grant: grant, client: client)
        try Self.checkCodeBinding(grant, jkt: jkt)
        try await checkSessionAlive(grant, at: at)
        let refresh = try await spendStart(grant, client: client, grantType: "authorization_code", reuse: "oauth_code_reuse", jkt: jkt, at: at)
        let response = try await tokenResponse(
            grant, client: client, scopes: grant.scopes, refreshToken: refresh, at: at, includeNonce: true, jkt: jkt)
        if client.messagesForBusiness, let mfb = messagesForBusiness {
            try await mfb.bindAccessToken(response.accessToken, code: code, clientID: client.id, redirectURI: grant.redirectURI, at: at)
        }
        return response
    }

    /// RFC 6749 §4.1.3: the redirect URI the authorization request gave (implied for a client
    /// with one, as the request may leave it out); none for a code from the authorization
    /// challenge, whose request had none.
    static func checkRedirectURI(_ given: String?, grant: GrantRecord, client: ClientRecord) throws(OAuthError) {
        if grant.redirectURI.isEmpty {
            guard given == nil else { throw OAuthError.invalidGrant("this code was issued without a redirect_uri; send none") }
            return
        }
        guard let redirectURI = given ?? AuthorizationRequest.impliedRedirectURI(client) else {
            throw OAuthError.invalidRequest("redirect_uri is missing")
        }
        guard redirectURI == grant.redirectURI else { throw OAuthError.invalidGrant("redirect_uri is not the one the authorization request gave") }
    }

    /// RFC 7636 §4.6 for a code issued with a challenge; a code issued without one (only the
    /// Messages for Business client's) takes no verifier.
    static func checkCodeVerifier(_ verifier: String?, grant: GrantRecord, client: ClientRecord) throws(OAuthError) {
        guard !grant.codeChallenge.isEmpty else {
            guard client.messagesForBusiness, verifier == nil else {
                throw OAuthError.invalidGrant("the code was issued without a code_challenge")
            }
            return
        }
        guard let verifier else { throw OAuthError.invalidRequest("code_verifier is missing (PKCE is required)") }
        try checkVerifier(verifier, challenge: grant.codeChallenge)
    }

    /// Spends the start of a grant (its code, or a device's approval) once, with the refresh
    /// token the client gets (nil for none), bound to the DPoP key `jkt` for a public client
    /// (RFC 9449 §5). Spent already, by this or another request: a reuse, which revokes the
    /// grant (`reuse` is the event) and is `invalid_grant`.
    func spendStart(
        _ grant: GrantRecord, client: ClientRecord, grantType: String, reuse: String, jkt: String?, at: Date
    ) async throws -> [UInt8]? {
        let refresh = Self.getsRefreshTokens(client) ? SecureRandom.bytes(32) : nil
        let refreshExpiresAt = refresh.map { _ in at.addingTimeInterval(configuration.refreshTokenTTL) }
        let expiresAt = max(refreshExpiresAt ?? at, at.addingTimeInterval(max(configuration.accessTokenTTL, configuration.idTokenTTL)))
        let spent = try await store.spendCode(
            grantID: grant.id, now: at, refreshHash: refresh.map(Digest.sha256.hash), refreshExpiresAt: refreshExpiresAt,
            expiresAt: expiresAt, dpopJKT: client.isPublic && refresh != nil ? jkt : nil,
            event: context.event(grant.userHandle, "oauth_token_issued", at: at, ["client": client.id, "grant": grantType]))
        guard spent else {
            try await revokeForReuse(grant, type: reuse, at: at)
            throw OAuthError.invalidGrant("the \(grantType == "device_code" ? "device code" : "code") was already used; every token issued with it is revoked")
        }
        return refresh
    }

    /// RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) equals the challenge, compared in
    /// constant time; the verifier is 43 to 128 unreserved characters (§4.1).
    static func checkVerifier(_ verifier: String, challenge: String) throws(OAuthError) {
        guard (43...128).contains(verifier.utf8.count), ClientRegistry.isUnreserved(verifier) else {
            throw OAuthError.invalidRequest("code_verifier must be 43 to 128 unreserved characters")
        }
        let computed = Base64URL.encode(Digest.sha256.hash(Array(verifier.utf8)))
        guard constantTimeEquals(Array(computed.utf8), Array(challenge.utf8)) else {
            throw OAuthError.invalidGrant("code_verifier does not match the code_challenge")
        }
    }

    /// A grant without `offline_access` lives only as long as the session it came from.
    func checkSessionAlive(_ grant: GrantRecord, at: Date) async throws {
        guard try await isStanding(grant, at: at) else {
            throw OAuthError.invalidGrant("the session this grant came from has ended")
        }
    }

    func revokeForReuse(_ grant: GrantRecord, type: String, at: Date) async throws {
        _ = try await store.revokeGrant(id: grant.id, event: context.event(grant.userHandle, type, at: at, ["client": grant.clientID]))
        context.logger.warning("\(type): grant revoked", metadata: ["client": "\(grant.clientID)"])
    }

    // MARK: refresh_token

    /// RFC 6749 §6 with rotation (RFC 9700 §4.14.2): every use gives a new refresh token and
    /// retires the old; a retired one presented again revokes the whole grant.
    func refresh(_ values: [String: String], client: ClientRecord, jkt: String?) async throws -> TokenAnswer {
        guard Self.getsRefreshTokens(client) else {
            throw OAuthError("unauthorized_client", "this client is not registered for refresh tokens")
        }
        guard let token = values["refresh_token"] else { throw OAuthError.invalidRequest("refresh_token is missing") }
        guard let bytes = Base64URL.decodeStrict(token), bytes.count == 32 else {
            throw OAuthError.invalidGrant("the refresh token is not one this server issued")
        }
        let hash = Digest.sha256.hash(bytes)
        let at = now()
        let grant: GrantRecord
        switch try await store.grant(refreshHash: hash) {
        case nil:
            throw OAuthError.invalidGrant("the refresh token is not one this server issued")
        case .retired(let retired)?:
            guard retired.clientID == client.id else { throw OAuthError.invalidGrant("the refresh token is not one this server issued to this client") }
            try await revokeForReuse(retired, type: "oauth_refresh_reuse", at: at)
            throw OAuthError.invalidGrant("the refresh token was already used; its whole family is revoked")
        case .current(let current)?:
            grant = current
        }
        guard grant.clientID == client.id else { throw OAuthError.invalidGrant("the refresh token is not one this server issued to this client") }
        guard !grant.revoked else { throw OAuthError.invalidGrant("the refresh token was revoked") }
        guard let expiry = grant.refreshExpiresAt, expiry > at else { throw OAuthError.invalidGrant("the refresh token has expired") }
        try await checkSessionAlive(grant, at: at)
        try await checkPolicy(client, userHandle: grant.userHandle, acr: grant.acr)
        try Self.checkRefreshBinding(grant, jkt: jkt)
        var scopes = grant.scopes
        if let asked = values["scope"] {
            let narrowed = asked.split(separator: " ").map(String.init)
            guard let outside = narrowed.first(where: { !grant.scopes.contains($0) }) else {
                scopes = grant.scopes.filter(narrowed.contains)
                return try await rotate(grant, old: hash, client: client, scopes: scopes, jkt: jkt, at: at)
            }
            throw OAuthError("invalid_scope", "\(outside.prefix(32)) was not granted")
        }
        return try await rotate(grant, old: hash, client: client, scopes: scopes, jkt: jkt, at: at)
    }

    /// RFC 9449 §10: a code asked for with `dpop_jkt` is redeemed only with a proof by that key.
    static func checkCodeBinding(_ grant: GrantRecord, jkt: String?) throws(OAuthError) {
        guard let bound = grant.dpopJKT else { return }
        guard jkt == bound else { throw OAuthError("invalid_dpop_proof", "this code was asked for with dpop_jkt: redeem it with a proof by that key") }
    }

    /// RFC 9449 §5: a public client's refresh token bound to a DPoP key is used only with a
    /// proof by that key.
    static func checkRefreshBinding(_ grant: GrantRecord, jkt: String?) throws(OAuthError) {
        guard let bound = grant.dpopJKT else { return }
        guard let jkt else { throw OAuthError("invalid_dpop_proof", "this refresh token is bound to a DPoP key: send a proof by it") }
        guard jkt == bound else { throw OAuthError("invalid_dpop_proof", "this refresh token is bound to another DPoP key") }
    }

    func rotate(
        _ grant: GrantRecord, old: [UInt8], client: ClientRecord, scopes: [String], jkt: String?, at: Date
    ) async throws -> TokenAnswer {
        let new = SecureRandom.bytes(32)
        let refreshExpiresAt = at.addingTimeInterval(configuration.refreshTokenTTL)
        let rotated = try await store.rotateRefreshToken(
            grantID: grant.id, old: old, new: Digest.sha256.hash(new), refreshExpiresAt: refreshExpiresAt,
            expiresAt: max(refreshExpiresAt, at.addingTimeInterval(max(configuration.accessTokenTTL, configuration.idTokenTTL))),
            event: context.event(grant.userHandle, "oauth_token_issued", at: at, ["client": client.id, "grant": "refresh_token"]))
        guard rotated else {
            // Rotated by a concurrent request meanwhile: this copy is a retired token now.
            try await revokeForReuse(grant, type: "oauth_refresh_reuse", at: at)
            throw OAuthError.invalidGrant("the refresh token was already used; its whole family is revoked")
        }
        return try await tokenResponse(grant, client: client, scopes: scopes, refreshToken: new, at: at, includeNonce: true, jkt: jkt)
    }
}
