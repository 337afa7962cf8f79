internal import PasskeyJSON
public import Foundation
public import PasskeyApple
public import PasskeyStorage
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyTelemetry
public import Logging

/// Sign in with Apple (docs/contracts/siwa.md) on the passkey accounts, free of HTTP: nonces, identity tokens,
/// linking, Apple's notifications and the developer key's code exchange and revocation.
public final class AppleSignIn: Sendable {
    let context: UseCaseContext
    let sessions: Sessions
    let store: any AppleStore & AccountStore & SessionStore & ServerStateStore
    let verifier: IdentityTokenVerifier
    public let keys: AppleKeyCache
    /// The developer's `.p8` key, when configured.
    let developerKey: PrivateKey?
    /// Apple's key set, token and revoke endpoints.
    let endpoints: any AppleEndpoints
    var configuration: ServerConfiguration { context.configuration }
    var logger: Logger { context.logger }

    /// The name the key set is kept under in the store, for a cold start.
    static let keysDocument = "apple-jwks"

    public init(
        context: UseCaseContext, sessions: Sessions, store: any AppleStore & AccountStore & SessionStore & ServerStateStore, endpoints: any AppleEndpoints
    ) throws {
        self.context = context
        self.sessions = sessions
        self.store = store
        self.endpoints = endpoints
        let configuration = context.configuration
        var apple = AppleConfiguration(clientIDs: configuration.appleClientIDs)
        apple.issuer = configuration.appleIssuer
        apple.tokenMaxAge = configuration.appleTokenMaxAge
        apple.clockSkew = configuration.appleClockSkew
        let url = configuration.appleJWKSURL
        let metrics = context.metrics
        let logger = context.logger
        keys = AppleKeyCache(
            fetch: { try await endpoints.fetchKeys(url: url) },
            load: {
                guard let document = try? await store.cachedDocument(named: Self.keysDocument) else { return nil }
                return (document.body, document.fetchedAt, TimeInterval(document.maxAge))
            },
            save: { body, fetchedAt, maxAge in
                do {
                    try await store.saveCachedDocument(
                        CachedDocument(name: Self.keysDocument, body: body, fetchedAt: fetchedAt, maxAge: Int(maxAge.rounded())))
                } catch {
                    logger.warning("cannot keep Apple's keys in the database", metadata: ["error": "\(error)"])
                }
            },
            onRefresh: { result in
                metrics.appleKeysRefreshed(result)
                if result != "ok" { logger.warning("fetching Apple's keys failed", metadata: ["url": "\(url)"]) }
            },
            now: context.now)
        verifier = IdentityTokenVerifier(configuration: apple, keys: keys)
        if let path = configuration.applePrivateKeyPath {
            guard let pem = FileManager.default.contents(atPath: path) else {
                throw ServerStartupError(message: "--apple-private-key \(path) cannot be read")
            }
            do {
                developerKey = try PrivateKey(pem: String(decoding: pem, as: UTF8.self))
            } catch {
                throw ServerStartupError(message: "--apple-private-key \(path) is not a PEM private key: \(error)")
            }
        } else {
            developerKey = nil
        }
    }

    // MARK: Nonces and state

    /// `GET /siwa/initialize`: a single-use nonce (32 random bytes), a browser binding (32
    /// random bytes, which the HTTP layer puts in a short-lived cookie), the web flow's `state`
    /// (an HMAC under the server secret of the nonce and the binding's hash, so the callback
    /// needs no second lookup) and Apple's authorize URL for the web flow.
    ///
    /// Signed in, the state also names the account, so that the web flow's callback (a
    /// cross-site POST from Apple, which carries no session cookie) links the Apple ID to it.
    /// The binding ties the state to the browser that asked for it: an Apple URL sent to
    /// someone else (to link their Apple ID to the sender's account, or to sign them into it)
    /// comes back without the cookie and is refused.
    public func initialize(redirectURI: String, session: SignedInUser?) async throws -> (AppleInitializeResponse, binding: [UInt8]) {
        // Signed in, this starts linking an Apple ID: a sensitive action (step-up).
        if let session { try await sessions.requireRecentAuthentication(session) }
        let nonce = SecureRandom.bytes(32)
        let binding = SecureRandom.bytes(32)
        try await store.insertAppleNonce(nonce, expiresAt: context.now().addingTimeInterval(configuration.challengeTTL))
        let nonceText = Base64URL.encode(nonce)
        let state = Self.state(for: nonce, binding: binding, linking: session?.user.handle, secret: context.serverSecret)
        let clientID = configuration.appleClientIDs.first ?? ""
        var components = URLComponents(string: configuration.appleAuthorizeURL)
        var query = components?.queryItems ?? []
        query += [
            URLQueryItem(name: "response_type", value: "code id_token"),
            URLQueryItem(name: "response_mode", value: "form_post"),
            URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURI),
            URLQueryItem(name: "scope", value: "name email"),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "nonce", value: nonceText),
        ]
        components?.queryItems = query
        // `+` stays literal in URLComponents' query; Apple reads the query as form data.
        let encoded = components?.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components?.percentEncodedQuery = encoded
        return (AppleInitializeResponse(nonce: nonceText, state: state, clientId: clientID, authorizeUrl: components?.string ?? ""), binding)
    }

    /// `MAC` or `MAC.HANDLE`: HMAC-SHA-256 under the server secret of the nonce, SHA-256 of the
    /// browser binding, and the handle of the account to link (base64url). Every part but the
    /// handle has a fixed length, so the input is unambiguous.
    static func state(for nonce: [UInt8], binding: [UInt8], linking handle: [UInt8]?, secret: [UInt8]) -> String {
        let input = Array("siwa-state".utf8) + nonce + Digest.sha256.hash(binding) + (handle ?? [])
        let mac = Base64URL.encode(HMAC.sha256(key: secret, data: input))
        return handle.map { mac + "." + Base64URL.encode($0) } ?? mac
    }

    /// The account a web-flow state links to (nil: none), once the state is checked against the
    /// token's nonce and the browser binding the callback's cookie carries.
    static func checkState(_ state: String, nonce: [UInt8], binding: [UInt8]?, secret: [UInt8]) throws -> [UInt8]? {
        guard let binding, binding.count == 32 else {
            throw APIError(.nonceMismatch("This sign-in was not started in this browser."))
        }
        let parts = state.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var handle: [UInt8]?
        if parts.count == 2 {
            guard let decoded = Base64URL.decodeStrict(String(parts[1])), decoded.count == 32 else {
                throw APIError(.nonceMismatch("The state is malformed."))
            }
            handle = decoded
        }
        guard constantTimeEquals(Array(Self.state(for: nonce, binding: binding, linking: handle, secret: secret).utf8), Array(state.utf8)) else {
            throw APIError(.nonceMismatch("The state does not belong to the token's nonce."))
        }
        return handle
    }

    // MARK: Sign-in

    /// What a finalize or callback brings besides the token.
    public struct SignInRequest: Sendable {
        public var identityToken: String
        /// The nonce as `initialize` gave it (base64url); the token's claim must match it.
        public var nonce: String?
        public var authorizationCode: String?
        /// Only on the first authorization: the user's name and email as Apple shared them.
        public var firstName: String?
        public var lastName: String?
        public var email: String?
        /// Web flow: the authorize request's redirect_uri, for the code exchange.
        public var redirectURI: String?

        public init(identityToken: String, nonce: String? = nil, authorizationCode: String? = nil) {
            self.identityToken = identityToken
            self.nonce = nonce
            self.authorizationCode = authorizationCode
        }
    }

    /// `POST /siwa/finalize`: verifies the token, then signs in the account linked to the Apple
    /// ID, links it to `session`'s account, or creates an account; counted as `siwa`.
    public func finalize(_ request: SignInRequest, session: SignedInUser?) async throws -> AppleSignInResult {
        try await context.counted("siwa") { try await self.signIn(request, session: session, state: nil) }
    }

    /// `POST /siwa/callback`: the same, with the web flow's `state` checked against the token's
    /// nonce and the browser binding from the callback's cookie (the nonce is then required and
    /// spent).
    public func callback(_ request: SignInRequest, state: String, binding: [UInt8]?, session: SignedInUser?) async throws -> AppleSignInResult {
        try await context.counted("siwa") { try await self.signIn(request, session: session, state: (state, binding)) }
    }

    private func signIn(
        _ request: SignInRequest, session requestSession: SignedInUser?, state: (value: String, binding: [UInt8]?)?
    ) async throws -> AppleSignInResult {
        let now = context.now()
        // The web flow is OpenID Connect's `code id_token`: its token must hash the code beside it.
        let claims = try await verifiedClaims(request, now: now, webFlow: state != nil)
        let (nonce, linking) = try Self.nonceToSpend(request: request, claims: claims, state: state, secret: context.serverSecret)
        let spent = SpentToken(hash: Digest.sha256.hash(Array(request.identityToken.utf8)), expiresAt: claims.expiresAt)
        var session = requestSession
        if let linking {
            guard let user = try await store.user(handle: linking) else {
                throw APIError(.nonceMismatch("The account this sign-in was to link is gone."))
            }
            // A new link waits for the account's owner to confirm it on the page.
            if let nonce, try await store.appleLink(issuer: claims.issuer, subject: claims.subject) == nil {
                let pending = try PendingAppleLink(
                    claims: claims, userHandle: linking, token: spent, nonce: nonce, request: request,
                    expiresAt: now.addingTimeInterval(configuration.challengeTTL))
                return AppleSignInResult(
                    userName: user.name, session: "", created: false, linked: false, link: Self.link(claims, userHandle: linking, at: now),
                    pendingLink: pending.sealed(secret: context.serverSecret))
            }
            session = SignedInUser(user: user, tokenHash: [])
        }

        // A concurrent request may link the same Apple ID first: then sign in to that account.
        for _ in 0..<2 {
            let existing = try await store.appleLink(issuer: claims.issuer, subject: claims.subject)
            let outcome: AppleSignInOutcome
            let result: AppleSignInResult
            if let existing {
                if try await sessions.isDisabled(existing.userHandle) { throw APIError.accountDisabled }
                let (token, record) = sessions.newSession(userHandle: existing.userHandle, credentialID: nil, via: "apple")
                outcome = try await store.completeAppleSignIn(
                    token: spent, nonce: nonce, now: now, newUser: nil, newLink: nil, session: record,
                    events: [signInEvent(existing.userHandle, claims, at: now)])
                result = AppleSignInResult(userName: "", session: token, created: false, linked: false, link: existing)
            } else if let session {
                if let requestSession { try await sessions.requireRecentAuthentication(requestSession) }
                let link = Self.link(claims, userHandle: session.user.handle, at: now)
                let (token, record) = sessions.newSession(userHandle: session.user.handle, credentialID: nil, via: "apple")
                outcome = try await store.completeAppleSignIn(
                    token: spent, nonce: nonce, now: now, newUser: nil, newLink: link, session: record,
                    events: [
                        context.event(session.user.handle, "apple_linked", at: now, ["sub": claims.subject]),
                        signInEvent(session.user.handle, claims, at: now),
                    ])
                result = AppleSignInResult(userName: "", session: token, created: false, linked: true, link: link)
            } else {
                try context.checkRegistrationOpen()
                let user = try await newAccount(claims, request: request, at: now)
                let link = Self.link(claims, userHandle: user.handle, at: now)
                let (token, record) = sessions.newSession(userHandle: user.handle, credentialID: nil, via: "apple")
                outcome = try await store.completeAppleSignIn(
                    token: spent, nonce: nonce, now: now, newUser: user, newLink: link, session: record,
                    events: [
                        context.event(user.handle, "apple_linked", at: now, ["sub": claims.subject]),
                        signInEvent(user.handle, claims, at: now, ["new_account": "true"]),
                    ])
                result = AppleSignInResult(userName: "", session: token, created: true, linked: false, link: link)
            }
            switch outcome {
            case .signedIn(let userName):
                var done = result
                done.userName = userName
                if let code = request.authorizationCode {
                    await exchange(code: code, audience: claims.audience, issuer: claims.issuer, subject: claims.subject, redirectURI: request.redirectURI)
                }
                return done
            case .tokenSpent:
                throw APIError.tokenReplayed
            case .nonceGone:
                throw APIError(.nonceMismatch("The nonce was not issued here, is spent or has expired."))
            case .accountLinked:
                throw APIError(code: "apple_already_linked", message: "This account is linked to another Apple ID; unlink it first.")
            case .appleIDLinked, .userExists:
                continue
            }
        }
        throw APIError(code: "conflict", message: "Another request changed this account at the same time; try again.")
    }

    /// The `sign_in` event of a sign-in with Apple: the method, and Apple's `auth_time` (when
    /// the user last authenticated to Apple, which can be long before this sign-in) when the
    /// token has one. It is recorded, not trusted: the session's own `auth_time` stays empty,
    /// so a session Apple opened never counts as a fresh passkey ceremony for step-up.
    func signInEvent(_ userHandle: [UInt8], _ claims: IdentityClaims, at now: Date, _ extra: [String: String] = [:]) -> AuditEvent {
        var details = ["method": "apple"].merging(extra) { $1 }
        if let authTime = claims.authTime { details["apple_auth_time"] = PasskeySignIn.timestamp(authTime) }
        return context.event(userHandle, "sign_in", at: now, details)
    }

    private func verifiedClaims(_ request: SignInRequest, now: Date, webFlow: Bool) async throws -> IdentityClaims {
        do {
            let claims = try await verifier.verify(
                request.identityToken, now: now, expectedNonce: request.nonce, authorizationCode: request.authorizationCode,
                requireCodeHash: webFlow)
            try Self.checkStorable(claims)
            return claims
        } catch {
            logger.info("siwa refused", metadata: ["code": "\(error.code)", "reason": "\(LogText.escaped(error.message))"])
            throw APIError(error)
        }
    }

    /// The nonce the store spends: the request's (when it names one), or, in the web flow, the
    /// token's claim after `state` matched it. A token that carries a nonce is refused when the
    /// request names none: leaving the nonce out must not turn a stolen token into a replayable one.
    ///
    /// Returns the nonce, and the account the web flow's state links to.
    static func nonceToSpend(
        request: SignInRequest, claims: IdentityClaims, state: (value: String, binding: [UInt8]?)?, secret: [UInt8]
    ) throws -> (nonce: [UInt8]?, linking: [UInt8]?) {
        if let state {
            guard let claim = claims.nonce, let nonce = Base64URL.decodeStrict(claim), nonce.count == 32 else {
                throw APIError(.nonceMismatch("The web flow's token must carry the nonce of /siwa/initialize."))
            }
            return (nonce, try checkState(state.value, nonce: nonce, binding: state.binding, secret: secret))
        }
        guard let raw = request.nonce else {
            if claims.nonce != nil {
                throw APIError(.nonceMismatch("The token carries a nonce: send it in nonce."))
            }
            return (nil, nil)
        }
        guard let nonce = Base64URL.decodeStrict(raw), nonce.count == 32 else {
            throw APIError(.nonceMismatch("The nonce was not issued here."))
        }
        return (nonce, nil)
    }

    /// Apple's values are stored as text: no control characters (PostgreSQL cannot hold NUL),
    /// bounded lengths.
    static func checkStorable(_ claims: IdentityClaims) throws(SIWAError) {
        func clean(_ text: String, _ limit: Int) -> Bool {
            text.utf8.count <= limit && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }
        guard clean(claims.subject, 255), clean(claims.issuer, 255), claims.email.map({ clean($0, 320) }) ?? true else {
            throw .invalidToken("sub, iss or email holds control characters or is too long.")
        }
    }

    static func link(_ claims: IdentityClaims, userHandle: [UInt8], at now: Date) -> AppleLinkRecord {
        AppleLinkRecord(
            issuer: claims.issuer, subject: claims.subject, userHandle: userHandle, email: claims.email,
            emailVerified: claims.emailVerified, isPrivateEmail: claims.isPrivateEmail, createdAt: now)
    }

    /// A new account's user name: the email of the signed token when it has one and the name is
    /// free, else `apple-` and 12 hex digits of SHA-256(sub). Never the `user` JSON the client
    /// posts beside the token (unsigned, anyone can write any address there): it only gives the
    /// display name. Never linked by email: the email only names.
    func newAccount(_ claims: IdentityClaims, request: SignInRequest, at now: Date) async throws -> UserRecord {
        let digest = Digest.sha256.hash(Array(claims.subject.utf8)).map { String(format: "%02x", $0) }.joined()
        var name = try UserName("apple-" + digest.prefix(12))
        if let email = claims.email, let byEmail = try? UserName(email),
           try await store.user(nameKey: byEmail.key) == nil {
            name = byEmail
        }
        let given = [request.firstName, request.lastName].compactMap { $0?.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        let displayName = (try? UserName.displayName(given.isEmpty ? nil : given, default: name)) ?? name.value
        return UserRecord.newAccount(name, displayName: displayName, createdAt: now)
    }

    // MARK: Linking

    /// `DELETE /siwa/link`: unlinks the account's Apple ID unless it is the last way in, and
    /// revokes the refresh token at Apple when one is held.
    public func unlink(_ session: SignedInUser) async throws {
        try await sessions.requireRecentAuthentication(session)
        let event = context.event(session.user.handle, "apple_unlinked", at: context.now(), ["reason": "user"])
        switch try await store.unlinkApple(userHandle: session.user.handle, requireOtherMethod: true, event: event) {
        case .notLinked:
            throw APIError(code: "not_linked", message: "No Apple ID is linked to this account.")
        case .lastSignInMethod:
            throw APIError(
                code: "last_sign_in_method",
                message: "The Apple ID is this account's only way to sign in: add a passkey first.")
        case .unlinked(let link):
            if let refreshToken = link.refreshToken { await revoke(refreshToken) }
        }
    }

}

/// A finished Sign in with Apple.
public struct AppleSignInResult: Sendable {
    public var userName: String
    public let session: String
    public let created: Bool
    public let linked: Bool
    let link: AppleLinkRecord
    /// Web flow, linking to a signed-in account: nothing is linked or opened yet; this sealed
    /// pending link goes into the `siwa_link` cookie until the owner confirms it on the page.
    public var pendingLink: String? = nil

    public var body: AppleFinalizeResponse {
        AppleFinalizeResponse(userName: userName, session: session, created: created, linked: linked)
    }
}
