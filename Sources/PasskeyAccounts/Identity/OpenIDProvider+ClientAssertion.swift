internal import Foundation
internal import PasskeyCrypto
internal import PasskeyJOSE
internal import PasskeyJSON
internal import PasskeyStorage

/// `private_key_jwt` client authentication (RFC 7523 §2.2 and §3, RFC 7521 §4.2, OpenID Connect
/// Core §9; docs/contracts/identity.md, "Machine and agent clients"): a JWT the client signed with
/// one of its registered keys, naming itself and this server, short-lived and never seen before.
/// Every refusal is `invalid_client`, and nothing is written until the signature has verified.
extension OpenIDProvider {
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// What an assertion may be signed with.
    static let assertionAlgorithms = ["ES256", "RS256", "PS256", "EdDSA"]
    static let assertionPolicy = JWSPolicy(algorithms: Set(assertionAlgorithms.compactMap(JWSAlgorithm.init(rawValue:))))
    /// `exp` at most this far ahead.
    static let assertionLifetime: TimeInterval = 300
    /// Clock difference allowed between the client and this server.
    static let assertionLeeway: TimeInterval = 10
    static let maximumAssertionBytes = 8192
    static let maximumJTILength = 256

    /// Whether the request authenticates with an assertion (either parameter present).
    static func hasAssertion(_ values: [String: String]) -> Bool {
        values["client_assertion"] != nil || values["client_assertion_type"] != nil
    }

    /// The client the assertion authenticates, after every check below in order.
    func authenticateByAssertion(_ values: [String: String], basic: (id: String, secret: String)?) async throws -> ClientRecord {
        if basic != nil || values["client_secret"] != nil {
            throw OAuthError.invalidRequest("use one client authentication method, not a client assertion and a secret")
        }
        guard values["client_assertion_type"] == Self.assertionType, let assertion = values["client_assertion"] else {
            throw OAuthError.invalidRequest("client_assertion_type must be \(Self.assertionType), with a client_assertion")
        }
        let (jws, claims, clientID) = try Self.readAssertion(assertion, posted: values["client_id"])
        if let retryAfter = clientLimiter.take("client:" + clientID.prefix(ClientRegistry.maximumIDLength), now: now()) {
            throw APIError.rateLimited(retryAfter: retryAfter)
        }
        guard let client = try await authenticatingClient(clientID), client.usesKeys else {
            throw OAuthError.invalidClient("client authentication failed")
        }
        let at = now()
        let expiry = try await checkAssertion(jws, claims: claims, client: client, at: at)
        try await checkAssertionUnseen(claims, clientID: clientID, expiry: expiry, at: at)
        try Self.checkNotPending(client)
        return client
    }

    /// The assertion read as a JWS and its claims, and the client it names.
    static func readAssertion(_ assertion: String, posted: String?) throws(OAuthError) -> (JWS, [String: JSONValue], String) {
        do throws(JOSEError) {
            let jws = try JWS(compact: assertion, maximumSize: maximumAssertionBytes)
            let claims = try jws.claims()
            return (jws, claims, try checkAssertionNames(claims, posted: posted))
        } catch {
            throw OAuthError.invalidClient("the client assertion is not valid: \(error.reason)")
        }
    }

    /// The signature, the audience and the lifetime, in that order. Returns `exp`.
    func checkAssertion(_ jws: JWS, claims: [String: JSONValue], client: ClientRecord, at: Date) async throws -> Date {
        do {
            try await checkAssertionSignature(jws, client: client, at: at)
            try checkAssertionAudience(claims)
            return try Self.checkAssertionLifetime(claims, now: at)
        } catch let error as JOSEError {
            throw OAuthError.invalidClient("the client assertion is not valid: \(error.reason)")
        } catch let error as ClientKeySets.Unavailable {
            throw OAuthError.invalidClient("the client's keys are not available: \(error.description)")
        }
    }

    /// RFC 7523 §3 items 1 and 2: `iss` and `sub` are both the client's id (and the posted
    /// `client_id`, when there is one). Returns it.
    static func checkAssertionNames(_ claims: [String: JSONValue], posted: String?) throws(JOSEError) -> String {
        guard let issuer = try JWTClaims.string(claims, "iss", required: true, maximumLength: ClientRegistry.maximumURILength),
              let subject = try JWTClaims.string(claims, "sub", required: true, maximumLength: ClientRegistry.maximumURILength)
        else { throw JOSEError(.invalidClaim, "iss and sub are missing") }
        guard issuer == subject else { throw JOSEError(.invalidClaim, "iss and sub differ: both must be the client id") }
        if let posted, posted != issuer { throw JOSEError(.invalidClaim, "client_id differs from the assertion's iss") }
        return issuer
    }

    /// RFC 7515 §5.2 with the client's keys: an allowed algorithm, no key named in the header
    /// (`jku`, `jwk`, `x5u`), the key its `kid` names (or, without a `kid`, any of the client's
    /// keys that fits the algorithm), the signature.
    func checkAssertionSignature(_ jws: JWS, client: ClientRecord, at: Date) async throws {
        let algorithm = try jws.checkAlgorithm(Self.assertionPolicy)
        let set = try await keySets.keys(for: client, keyID: jws.keyID, now: at)
        let candidates: [JWK]
        if let keyID = jws.keyID {
            guard let key = set.key(id: keyID) else { throw JOSEError(.badSignature, "kid \(keyID.prefix(64)) is none of the client's keys") }
            candidates = [key]
        } else {
            candidates = set.keys.filter { algorithm.fits($0.publicKey.kind) }
        }
        var failure = JOSEError(.badSignature, "none of the client's keys fits \(algorithm.rawValue)")
        for key in candidates {
            do {
                try jws.verify(with: key, policy: Self.assertionPolicy)
                return
            } catch {
                failure = error
            }
        }
        throw failure
    }

    /// RFC 7523 §3 item 3: `aud` names this server, by its issuer or its token endpoint.
    func checkAssertionAudience(_ claims: [String: JSONValue]) throws(JOSEError) {
        try JWTClaims.checkAudience(claims, accepted: [issuer, issuer + "/oauth/token"])
    }

    /// RFC 7523 §3 items 4, 5 and 6: `exp` present, not passed, and at most five minutes ahead;
    /// `nbf` and `iat`, when present, not in the future. Returns `exp`.
    static func checkAssertionLifetime(_ claims: [String: JSONValue], now: Date) throws(JOSEError) -> Date {
        guard let expiry = try JWTClaims.checkExpiry(claims, now: now, leeway: assertionLeeway) else {
            throw JOSEError(.invalidClaim, "exp is missing")
        }
        try JWTClaims.checkLifetime(expiry, now: now, maximumLifetime: assertionLifetime, leeway: assertionLeeway)
        try JWTClaims.checkNotBefore(claims, now: now, leeway: assertionLeeway)
        try JWTClaims.checkIssuedAt(claims, now: now, leeway: assertionLeeway)
        return expiry
    }

    static func assertionID(_ claims: [String: JSONValue]) throws(OAuthError) -> String {
        do throws(JOSEError) {
            guard let jti = try JWTClaims.string(claims, "jti", required: true, maximumLength: maximumJTILength) else {
                throw JOSEError(.invalidClaim, "jti is missing")
            }
            return jti
        } catch {
            throw OAuthError.invalidClient("the client assertion is not valid: \(error.reason)")
        }
    }

    /// RFC 7523 §3 item 7: a `jti` this client never used before, remembered until the
    /// assertion expires on every instance sharing the database.
    func checkAssertionUnseen(_ claims: [String: JSONValue], clientID: String, expiry: Date, at: Date) async throws {
        let jti = try Self.assertionID(claims)
        let key = Digest.sha256.hash(Array("client_assertion\u{0}\(clientID)\u{0}\(jti)".utf8))
        guard try await store.spendOnce(keyHash: key, expiresAt: expiry.addingTimeInterval(Self.assertionLeeway), now: at) else {
            throw OAuthError.invalidClient("the client assertion was used before (its jti is spent)")
        }
    }
}
