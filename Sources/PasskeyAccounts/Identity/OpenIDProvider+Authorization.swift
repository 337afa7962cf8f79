internal import Foundation
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyHTTPParsing
internal import PasskeyJSON
internal import PasskeyStorage

/// The authorization endpoint (docs/contracts/identity.md, "Authorization endpoint"; OpenID
/// Connect Core §3.1.2; RFC 6749 §4.1; RFC 9207).
///
/// The flow, step by step:
///
/// | Step | What happens | Function | File |
/// |---|---|---|---|
/// | 1 | `GET`/`POST /oauth/authorize`: the parameters read; a pushed request's `request_uri` taken instead | `authorize(_:session:)`, `authorizePushed` | here, +PushedRequests |
/// | 2 | The request checked: client, redirect URI, response type, scopes, PKCE, state, nonce, prompt, max_age, acr_values | `AuthorizationRequest.check` | AuthorizationRequest.swift |
/// | 3 | A refusal before the redirect URI is trusted is shown; after, it goes back to the client | `answer(_:)`, `errorResponse` | here |
/// | 4 | Does the browser's session fit (signed in, fresh enough, strong enough, in an allowed group)? | `fit`, `checkClass`, `checkAllowedGroups` | here |
/// | 5 | No: the request is held and the browser sent to sign in; the page resumes it | `signInLocation`, `resume(handle:session:)`, `heldRequest` | here |
/// | 6 | Yes: a code is issued, bound to the session, the PKCE challenge and the redirect URI | `issueCode` | here |
/// | 7 | The client redeems the code at the token endpoint | `token`, `redeemCode`, `checkCodeVerifier` | +TokenEndpoint |
/// | 8 | The tokens: ID token, access token, refresh token | `tokenResponse`, `accessToken` | +TokenIssuance |
extension OpenIDProvider {
    // MARK: Authorization endpoint

    /// What the authorization endpoint answers.
    public enum AuthorizationOutcome: Sendable, Equatable {
        /// A 400 page: the client or its redirect URI is unknown, so nothing may go back to it.
        case shown(error: String, description: String)
        /// The answer goes back to the client (302, or a self-posting form for `form_post`).
        case respond(AuthorizationResponse)
        /// The user must sign in first: 302 to the page, which continues the held request; or
        /// a third-party client needs the user's consent: 302 to the consent page.
        case signIn(location: String)
        /// The consent page of a held request (`GET /oauth/consent`).
        case consent(ConsentPrompt)
    }

    /// An authorization response (RFC 6749 §4.1.2, RFC 9207): where it goes and what it says.
    public struct AuthorizationResponse: Sendable, Equatable {
        public let redirectURI: String
        public let formPost: Bool
        public let parameters: [Parameter]

        public struct Parameter: Sendable, Equatable {
            public let name: String
            public let value: String

            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        /// The redirect URI with the parameters appended to its query.
        public var location: String { FormURLEncoded.appending(parameters.map { ($0.name, $0.value) }, to: redirectURI) }
    }

    /// `GET` or `POST /oauth/authorize`: checks the request, then answers with a code when the
    /// session fits it, or keeps it and sends the user to sign in. With `request_uri`, the
    /// parameters are the ones the client pushed to `/oauth/par` (spent by this use).
    public func authorize(_ parameters: [(name: String, value: String)], session: SignedInUser?) async throws -> AuthorizationOutcome {
        if parameters.contains(where: { $0.name == Self.pushedMarker }) {
            return .shown(error: "invalid_request", description: "\(Self.pushedMarker) is not a parameter of an authorization request")
        }
        if let requestURI = parameters.last(where: { $0.name == "request_uri" })?.value {
            return try await authorizePushed(requestURI: requestURI, parameters: parameters, session: session)
        }
        return try await authorize(checking: parameters, pushed: false, session: session)
    }

    func authorize(checking parameters: [(name: String, value: String)], pushed: Bool, session: SignedInUser?) async throws -> AuthorizationOutcome {
        let request: AuthorizationRequest
        do {
            request = try await AuthorizationRequest.check(parameters, pushed: pushed, lookup: { try await self.authorizationClient($0) })
        } catch let refusal as AuthorizationRequest.Refusal {
            return answer(refusal)
        }
        switch try await fit(request, session: session, heldSince: nil) {
        case .fits(let signedIn, let record):
            guard try await needsConsent(request, userHandle: signedIn.user.handle) else {
                return try await issueCode(request, signedIn: signedIn, session: record)
            }
            if request.prompt == Prompt.none {
                return .respond(errorResponse(request, "consent_required", "the user has not allowed this application what it asks"))
            }
            return .signIn(location: consentLocation(try await hold(parameters, pushed: pushed, clientID: request.client.id)))
        case .refused(let error, let description):
            return .respond(errorResponse(request, error, description))
        case .needsSignIn:
            if request.prompt == Prompt.none {
                return .respond(errorResponse(request, "login_required", "the user is not signed in with a session that fits this request"))
            }
            return .signIn(location: signInLocation(try await hold(parameters, pushed: pushed, clientID: request.client.id)))
        }
    }

    /// Keeps a request while its user signs in or consents; the handle that names it.
    func hold(_ parameters: [(name: String, value: String)], pushed: Bool, clientID: String) async throws -> String {
        let handle = SecureRandom.bytes(32)
        let at = now()
        let kept = pushed ? parameters + [(Self.pushedMarker, "1")] : parameters
        try await store.insertHeldAuthorization(
            HeldAuthorizationRecord(
                handleHash: Digest.sha256.hash(handle), clientID: clientID, parameters: FormURLEncoded.encode(kept),
                createdAt: at, expiresAt: at.addingTimeInterval(Self.heldTTL)))
        return Base64URL.encode(handle)
    }

    /// `GET /oauth/authorize/resume?authorization=…`: the held request, answered as the
    /// authorization endpoint would now; with a session that still does not fit, the page again.
    public func resume(handle: String, session: SignedInUser?) async throws -> AuthorizationOutcome {
        let held: FittingHeld
        switch try await fittingHeld(handle, session: session) {
        case .fits(let fitting): held = fitting
        case .answered(let outcome): return outcome
        }
        if try await needsConsent(held.request, userHandle: held.signedIn.user.handle) { return .signIn(location: consentLocation(handle)) }
        guard try await spend(held) else { return Self.alreadyFinished }
        return try await issueCode(held.request, signedIn: held.signedIn, session: held.session)
    }

    /// A held request, checked again, with the session that fits it.
    struct FittingHeld {
        let request: AuthorizationRequest
        let handleHash: [UInt8]
        let signedIn: SignedInUser
        let session: SessionRecord
    }

    enum HeldStep {
        case fits(FittingHeld)
        /// Expired, spent, unreadable or refused (a refused one is spent), or the session does
        /// not fit: the answer.
        case answered(AuthorizationOutcome)
    }

    /// The held request a handle names, checked again as the authorization endpoint checks it,
    /// and whether the session fits it: without one that fits, the sign-in page again; one the
    /// session can never satisfy is spent and refused at the redirect URI.
    func fittingHeld(_ handle: String, session: SignedInUser?) async throws -> HeldStep {
        guard let handleHash = Self.handleHash(handle), let held = try await store.heldAuthorization(handleHash: handleHash, now: now()) else {
            return .answered(.shown(error: "invalid_request", description: "this sign-in request has expired or was already finished; start again from the application"))
        }
        let parameters: [(name: String, value: String)]
        do { parameters = try FormURLEncoded.pairs(held.parameters) } catch {
            return .answered(.shown(error: "invalid_request", description: "this sign-in request cannot be read; start again from the application"))
        }
        let pushed = parameters.contains { $0.name == Self.pushedMarker }
        let request: AuthorizationRequest
        do {
            request = try await AuthorizationRequest.check(
                parameters.filter { $0.name != Self.pushedMarker }, pushed: pushed, lookup: { try await self.authorizationClient($0) })
        } catch let refusal as AuthorizationRequest.Refusal {
            _ = try await store.deleteHeldAuthorization(handleHash: handleHash)
            return .answered(answer(refusal))
        }
        switch try await fit(request, session: session, heldSince: held.createdAt) {
        case .fits(let signedIn, let record):
            return .fits(FittingHeld(request: request, handleHash: handleHash, signedIn: signedIn, session: record))
        case .refused(let error, let description):
            _ = try await store.deleteHeldAuthorization(handleHash: handleHash)
            return .answered(.respond(errorResponse(request, error, description)))
        case .needsSignIn:
            return .answered(.signIn(location: signInLocation(handle)))
        }
    }

    /// Spends a held request before it is answered: of two tabs (or two instances) answering
    /// at once, one does; false for the other.
    func spend(_ held: FittingHeld) async throws -> Bool {
        try await store.deleteHeldAuthorization(handleHash: held.handleHash)
    }

    static let alreadyFinished = AuthorizationOutcome.shown(error: "invalid_request", description: "this sign-in request was already finished")

    /// What the page shows while it continues a held request: the client's name and the
    /// `login_hint`; nil for a handle that is not live.
    public func heldRequest(handle: String) async throws -> HeldRequestAnswer? {
        guard let handleHash = Self.handleHash(handle), let held = try await store.heldAuthorization(handleHash: handleHash, now: now()),
              let client = try await store.client(id: held.clientID),
              let parameters = try? FormURLEncoded.pairs(held.parameters)
        else { return nil }
        let hint = parameters.last { $0.name == "login_hint" }?.value
        let prompt = parameters.last { $0.name == "prompt" }?.value ?? ""
        let fresh = prompt.split(separator: " ").contains("login") || parameters.contains { $0.name == "max_age" } || parameters.contains { $0.name == "acr_values" } || client.requiredACR != nil
        return HeldRequestAnswer(
            clientName: client.name ?? client.id,
            loginHint: hint.flatMap { $0.isEmpty ? nil : String($0.prefix(AuthorizationRequest.maximumLoginHintLength)) }, reauthenticate: fresh)
    }

    typealias Prompt = AuthorizationRequest.Prompt

    /// Marks, in a held request, parameters that were pushed (so that its resumption knows);
    /// refused when a client sends it.
    static let pushedMarker = "pushed_authorization_request"

    func signInLocation(_ handle: String) -> String {
        context.rp.pageOrigin + "/?authorization=" + handle
    }

    static func handleHash(_ handle: String) -> [UInt8]? {
        guard let bytes = Base64URL.decodeStrict(handle), bytes.count == 32 else { return nil }
        return Digest.sha256.hash(bytes)
    }

    func answer(_ refusal: AuthorizationRequest.Refusal) -> AuthorizationOutcome {
        switch refusal {
        case .shown(let error, let description):
            return .shown(error: error, description: description)
        case .redirected(let error, let description, let redirectURI, let state, let responseMode):
            var parameters = [AuthorizationResponse.Parameter(name: "error", value: error),
                              AuthorizationResponse.Parameter(name: "error_description", value: description)]
            if let state { parameters.append(.init(name: "state", value: state)) }
            parameters.append(.init(name: "iss", value: issuer))
            return .respond(AuthorizationResponse(redirectURI: redirectURI, formPost: responseMode == .formPost, parameters: parameters))
        }
    }

    func errorResponse(_ request: AuthorizationRequest, _ error: String, _ description: String) -> AuthorizationResponse {
        AuthorizationResponse(
            redirectURI: request.redirectURI, formPost: request.responseMode == .formPost,
            parameters: [.init(name: "error", value: error), .init(name: "error_description", value: description),
                         .init(name: "state", value: request.state), .init(name: "iss", value: issuer)])
    }

    // MARK: Does the session fit?

    enum Fit {
        case fits(SignedInUser, SessionRecord)
        case needsSignIn
        case refused(error: String, description: String)
    }

    /// docs/contracts/identity.md's conditions, in order: a session; a user the client admits (its
    /// `--allowed-group`s); one fresh enough for `prompt=login` and `max_age` (a session
    /// opened after a held request was made is fresh for it); one of the class the request
    /// and the client need, or, when no passkey of the user could ever give that class,
    /// `unmet_authentication_requirements`.
    func fit(_ request: AuthorizationRequest, session: SignedInUser?, heldSince: Date?) async throws -> Fit {
        guard let session, let record = session.session else { return .needsSignIn }
        if let refusal = try await checkAllowedGroups(request.client, userHandle: session.user.handle) { return refusal }
        let openedDuringRequest = heldSince.map { record.createdAt >= $0 } ?? false
        if request.prompt == .login, !openedDuringRequest { return .needsSignIn }
        if let maxAge = request.maxAge, !openedDuringRequest, now().timeIntervalSince(record.createdAt) > TimeInterval(maxAge) {
            return .needsSignIn
        }
        if let required = request.requiredACR, let unfit = try await checkClass(record, required: required, userHandle: session.user.handle) {
            return unfit
        }
        return .fits(session, record)
    }

    /// A session of the class `required` (`phr`, `phrh`): nil when it is one; else a new
    /// ceremony, or `unmet_authentication_requirements` when no passkey of the user could
    /// ever give that class.
    func checkClass(_ record: SessionRecord, required: String, userHandle: [UInt8]) async throws -> Fit? {
        let credential = try await record.credentialID.asyncMap { try await store.credential(id: $0) } ?? nil
        if Self.satisfies(Self.acr(credential), required: required) { return nil }
        let passkeys = try await store.credentials(userHandle: userHandle)
        guard passkeys.contains(where: { Self.satisfies(Self.acr($0), required: required) }) else {
            return .refused(
                error: "unmet_authentication_requirements",
                description: required == "phrh"
                    ? "this application needs a device-bound passkey with a trusted attestation, and this account has none"
                    : "this application needs a passkey, and this account has none")
        }
        return .needsSignIn
    }

    /// `--allowed-group`: the user must belong to one of them (compared as group names are,
    /// without case).
    func checkAllowedGroups(_ client: ClientRecord, userHandle: [UInt8]) async throws -> Fit? {
        guard !client.allowedGroups.isEmpty else { return nil }
        let allowed = Set(client.allowedGroups.compactMap { try? UserName($0).key })
        let groups = try await store.groups(userHandle: userHandle)
        guard groups.contains(where: { allowed.contains($0.key) }) else {
            return .refused(error: "access_denied", description: "this account may not sign in to this application")
        }
        return nil
    }

    /// `acr` for a session opened by `credential`: `phrh` for a device-bound passkey (BE=0)
    /// whose attestation was trusted, `phr` for any other passkey, nil without one.
    static func acr(_ credential: CredentialRecord?) -> String? {
        guard let credential else { return nil }
        return !credential.backupEligible && credential.attestationTrusted ? "phrh" : "phr"
    }

    static func satisfies(_ acr: String?, required: String) -> Bool {
        switch required {
        case "phrh": return acr == "phrh"
        case "phr": return acr == "phr" || acr == "phrh"
        default: return false
        }
    }

    /// RFC 8176 `amr` for a session: a passkey is `hwk` (device-bound) or `swk` (synced) with
    /// `user`, plus `mfa` when the user was verified; push sign-in is `swk` `user`, plus `mfa`
    /// with number matching; Sign in with Apple and Messages for Business are `fed`.
    static func amr(_ session: SessionRecord, credential: CredentialRecord?) -> [String] {
        let verified = session.userVerified == true
        if let credential {
            return [credential.backupEligible ? "swk" : "hwk", "user"] + (verified ? ["mfa"] : [])
        }
        if session.via?.hasPrefix("push:") == true { return ["swk", "user"] + (verified ? ["mfa"] : []) }
        return ["fed"]
    }

    // MARK: Codes

    /// A code (≥ 128 random bits; only its hash stored) on a new grant bound to the client, the
    /// redirect URI, the PKCE challenge, the nonce, the session and the scopes. For the
    /// Messages for Business client, the key audit first: a key that is no pending request's
    /// gets no code (a 400 page, never a redirect), and a code is bound to the request it passed.
    func issueCode(_ request: AuthorizationRequest, signedIn: SignedInUser, session: SessionRecord) async throws -> AuthorizationOutcome {
        let code = SecureRandom.bytes(32)
        let at = now()
        if let parameters = request.messagesForBusiness {
            guard let mfb = messagesForBusiness else {
                return .shown(error: "invalid_request", description: "Messages for Business is not on at this server")
            }
            do {
                try await mfb.bindCode(
                    Base64URL.encode(code), parameters: parameters, userHandle: signedIn.user.handle, clientID: request.client.id,
                    redirectURI: request.redirectURI, expiresAt: at.addingTimeInterval(Self.codeTTL))
            } catch let refusal as APIError {
                return .shown(error: refusal.code, description: refusal.message)
            }
        }
        try await insertCodeGrant(
            code, clientID: request.client.id, signedIn: signedIn, session: session, scopes: request.scopes, nonce: request.nonce,
            codeChallenge: request.codeChallenge, redirectURI: request.redirectURI, dpopJKT: request.dpopJKT, at: at)
        return .respond(
            AuthorizationResponse(
                redirectURI: request.redirectURI, formPost: request.responseMode == .formPost,
                parameters: [.init(name: "code", value: Base64URL.encode(code)), .init(name: "state", value: request.state),
                             .init(name: "iss", value: issuer)]))
    }

    /// A new grant for `signedIn`'s session whose code is `code` (only its hash stored), bound
    /// to the client, the redirect URI ("" for a code from the authorization challenge, which
    /// had none), the PKCE challenge, the nonce and the scopes, with the session's `amr` and `acr`.
    func insertCodeGrant(
        _ code: [UInt8], clientID: String, signedIn: SignedInUser, session: SessionRecord, scopes: [String], nonce: String?,
        codeChallenge: String, redirectURI: String, dpopJKT: String?, at: Date
    ) async throws {
        let credential = try await session.credentialID.asyncMap { try await store.credential(id: $0) } ?? nil
        let grant = GrantRecord(
            id: Base64URL.encode(SecureRandom.bytes(16)), clientID: clientID, userHandle: signedIn.user.handle,
            sessionHash: signedIn.tokenHash, offline: scopes.contains("offline_access"), scopes: scopes,
            nonce: nonce, authTime: session.createdAt, amr: Self.amr(session, credential: credential), acr: Self.acr(credential),
            credentialID: credential?.id, codeHash: Digest.sha256.hash(code), codeChallenge: codeChallenge,
            redirectURI: redirectURI, codeExpiresAt: at.addingTimeInterval(Self.codeTTL), createdAt: at,
            expiresAt: at.addingTimeInterval(Self.codeTTL), dpopJKT: dpopJKT)
        try await store.insertGrant(grant, event: context.event(signedIn.user.handle, "oauth_code_issued", at: at, ["client": clientID]))
    }
}
