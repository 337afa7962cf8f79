public import Foundation
internal import PasskeyCrypto
internal import PasskeyHTTPParsing
internal import PasskeyJSON
public import PasskeyStorage

/// What the first-party flow asks of the passkey ceremonies: the options of a sign-in, the
/// challenge an assertion answers, and the very finalize `/authentication_finalize` runs.
public protocol PasskeyAssertions: Sendable {
    func beginAuthentication(_ request: CeremonyOptionsRequest) async throws -> RequestOptionsResponse
    func finishAuthentication(body: [UInt8]) async throws -> (CeremonyResult, token: String)
    /// The challenge an AuthenticationResponseJSON's clientDataJSON names; nil when it names
    /// none this server could have issued, or cannot be read.
    func assertionChallenge(_ body: [UInt8]) -> [UInt8]?
}

/// The first-party authorization challenge (docs/contracts/identity.md, "Native apps without a
/// browser"; draft-ietf-oauth-first-party-apps): a native app registered with
/// `--authorization-challenge` signs its user in with a passkey at
/// `/oauth/authorize-challenge` and gets an authorization code, without a web view. The first
/// call answers `insufficient_authorization` with an `auth_session` and the passkey request
/// options; the second brings the assertion, verified as `/authentication_finalize` verifies
/// it, and gets the code. An `auth_session` is used once: it dies with its first answer, good
/// or bad, or after 10 minutes.
public struct AuthorizationChallenge: Sendable {
    /// An `auth_session` lives 10 minutes.
    public static let sessionTTL: TimeInterval = 600

    let context: UseCaseContext
    let openID: OpenIDProvider
    let passkeys: any PasskeyAssertions
    let sessions: Sessions
    let store: any OpenIDStore & SessionStore & RecoveryStore

    public init(
        context: UseCaseContext, openID: OpenIDProvider, passkeys: any PasskeyAssertions, sessions: Sessions,
        store: any OpenIDStore & SessionStore & RecoveryStore
    ) {
        self.context = context
        self.openID = openID
        self.passkeys = passkeys
        self.sessions = sessions
        self.store = store
    }

    /// An `auth_session` is kept under a hash of its own kind: neither a held request's handle
    /// nor a pushed request's `request_uri` can be used as one, nor the reverse.
    static func sessionHash(_ handle: [UInt8]) -> [UInt8] { Digest.sha256.hash(Array("auth_session:".utf8) + handle) }

    /// `POST /oauth/authorize-challenge`.
    public func challenge(_ parameters: [(name: String, value: String)]) async throws -> AuthorizationChallengeAnswer {
        let values = try OpenIDProvider.singleValues(parameters)
        let client = try await checkClient(values["client_id"])
        if let authSession = values["auth_session"] { return try await finish(authSession, values, client: client) }
        if values["passkey_response"] != nil { throw OAuthError.invalidRequest("passkey_response comes with the auth_session it answers") }
        return try await start(values, client: client)
    }

    /// The client: unknown is `invalid_client` (401); one not registered with
    /// `--authorization-challenge` is `unauthorized_client`.
    func checkClient(_ id: String?) async throws -> ClientRecord {
        guard let id, !id.isEmpty, id.utf8.count <= ClientRegistry.maximumURILength, let client = try await store.client(id: id) else {
            throw OAuthError("invalid_client", "client_id is missing or no client has it")
        }
        guard client.authorizationChallenge, !client.pending else {
            throw OAuthError("unauthorized_client", "this client is not registered for the authorization challenge (--authorization-challenge)")
        }
        return client
    }

    /// The first call: the scopes and the PKCE challenge checked as the authorization endpoint
    /// checks them, a passkey ceremony begun (for `login_hint`'s passkeys, or any discoverable
    /// one), and its options with a new `auth_session`.
    func start(_ values: [String: String], client: ClientRecord) async throws -> AuthorizationChallengeAnswer {
        let scopes = try AuthorizationRequest.asOAuthError { refuse throws(AuthorizationRequest.Refusal) in
            try AuthorizationRequest.checkScopes(values["scope"], client: client, refuse: refuse)
        }
        let codeChallenge = try AuthorizationRequest.asOAuthError { refuse throws(AuthorizationRequest.Refusal) in
            try AuthorizationRequest.checkCodeChallenge(values["code_challenge"], method: values["code_challenge_method"] ?? "S256", refuse: refuse)
        }
        let loginHint = values["login_hint"].flatMap { $0.isEmpty ? nil : $0 }
        if let loginHint, loginHint.utf8.count > AuthorizationRequest.maximumLoginHintLength {
            throw OAuthError.invalidRequest("login_hint is at most \(AuthorizationRequest.maximumLoginHintLength) bytes")
        }
        let options: RequestOptionsResponse
        do {
            options = try await passkeys.beginAuthentication(CeremonyOptionsRequest(userName: loginHint))
        } catch let refusal as APIError {
            throw OAuthError.invalidRequest("\(refusal.code): \(refusal.message)")
        }
        let handle = SecureRandom.bytes(32)
        let at = context.now()
        var kept = [("scope", scopes.joined(separator: " ")), ("code_challenge", codeChallenge), ("challenge", options.publicKey.challenge)]
        if let loginHint { kept.append(("login_hint", loginHint)) }
        try await store.insertHeldAuthorization(HeldAuthorizationRecord(
            handleHash: Self.sessionHash(handle), clientID: client.id, parameters: FormURLEncoded.encode(kept), createdAt: at,
            expiresAt: at.addingTimeInterval(Self.sessionTTL)))
        return .insufficient(authSession: Base64URL.encode(handle), passkey: options.publicKey)
    }

    /// The second call: the `auth_session` spent first (a second try with it is
    /// `invalid_session`, whatever came of the first), the assertion checked to answer its
    /// challenge (one made for another `auth_session` changes nothing), then finished as
    /// `/authentication_finalize` finishes it; the account's policy for the client; the code.
    func finish(_ authSession: String, _ values: [String: String], client: ClientRecord) async throws -> AuthorizationChallengeAnswer {
        guard let handle = Base64URL.decodeStrict(authSession), handle.count == 32,
              let held = try await store.heldAuthorization(handleHash: Self.sessionHash(handle), now: context.now()), held.clientID == client.id,
              try await store.deleteHeldAuthorization(handleHash: Self.sessionHash(handle)),
              let kept = try? FormURLEncoded.pairs(held.parameters)
        else { throw OAuthError("invalid_session", "auth_session is unknown, already used, or older than 10 minutes") }
        let request = Dictionary(kept.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        let scopes = (request["scope"] ?? "").split(separator: " ").map(String.init)
        for name in ["scope", "code_challenge"] where values[name] != nil && values[name] != request[name] {
            throw OAuthError.invalidRequest("\(name) is not the one the auth_session was started with")
        }
        guard let response = values["passkey_response"] else {
            throw OAuthError.invalidRequest("passkey_response (the AuthenticationResponseJSON) is required with auth_session")
        }
        let body = Array(response.utf8)
        guard let challenge = passkeys.assertionChallenge(body), Base64URL.encode(challenge) == request["challenge"] else {
            throw OAuthError.invalidRequest("unknown_challenge: the assertion does not answer this auth_session's challenge")
        }
        let token: String
        do {
            token = try await passkeys.finishAuthentication(body: body).token
        } catch let refusal as APIError where refusal.code == APIError.accountDisabled.code {
            return try await redirectToWeb(client, scopes: scopes, codeChallenge: request["code_challenge"] ?? "", loginHint: request["login_hint"],
                                           why: "this account cannot sign in here; the browser shows why")
        } catch let refusal as APIError {
            throw OAuthError.invalidRequest("\(refusal.code): \(refusal.message)")
        }
        guard let signedIn = try await sessions.signedInUser(token: token), let session = signedIn.session else {
            throw OAuthError.invalidRequest("the session this sign-in opened is gone")
        }
        if let refusal = try await policyRefusal(client, signedIn: signedIn, session: session, scopes: scopes, request: request) {
            // The session was opened for this code only: nobody holds its token.
            try await store.deleteSession(tokenHash: signedIn.tokenHash)
            return try refusal.get()
        }
        let code = SecureRandom.bytes(32)
        try await openID.insertCodeGrant(
            code, clientID: client.id, signedIn: signedIn, session: session, scopes: scopes, nonce: nil,
            codeChallenge: request["code_challenge"] ?? "", redirectURI: "", dpopJKT: nil, at: context.now())
        return .code(Base64URL.encode(code))
    }

    /// The account against the client, as the authorization endpoint checks it: outside its
    /// `--allowed-group`s is `access_denied`; short of its `--require-acr`, or with a recovery
    /// waiting, the browser flow (`redirect_to_web`), which can show why and ask more.
    func policyRefusal(
        _ client: ClientRecord, signedIn: SignedInUser, session: SessionRecord, scopes: [String], request: [String: String]
    ) async throws -> Result<AuthorizationChallengeAnswer, OAuthError>? {
        if case .refused(let error, let description)? = try await openID.checkAllowedGroups(client, userHandle: signedIn.user.handle) {
            return .failure(OAuthError(error, description))
        }
        var why: String?
        if let required = client.requiredACR, case .some = try await openID.checkClass(session, required: required, userHandle: signedIn.user.handle) {
            why = "this application needs a passkey of class \(required); sign in in the browser"
        } else if !(try await store.waitingRecoveries(userHandle: signedIn.user.handle)).isEmpty {
            why = "a recovery of this account is waiting; sign in in the browser"
        }
        guard let why else { return nil }
        return .success(try await redirectToWeb(
            client, scopes: scopes, codeChallenge: request["code_challenge"] ?? "", loginHint: request["login_hint"], why: why))
    }

    /// `redirect_to_web`: the same request pushed for the browser flow (a `request_uri` the
    /// authorization endpoint takes as one from `/oauth/par`, for 60 s), with the client's first
    /// redirect URI and a new `state` and `nonce`, which the answer carries for the app to check.
    func redirectToWeb(
        _ client: ClientRecord, scopes: [String], codeChallenge: String, loginHint: String?, why: String
    ) async throws -> AuthorizationChallengeAnswer {
        guard let redirectURI = client.redirectURIs.first else { throw OAuthError("unauthorized_client", "this client has no redirect URI for the browser") }
        let state = Base64URL.encode(SecureRandom.bytes(16)), nonce = Base64URL.encode(SecureRandom.bytes(16))
        var parameters = [
            ("client_id", client.id), ("response_type", "code"), ("redirect_uri", redirectURI), ("scope", scopes.joined(separator: " ")),
            ("code_challenge", codeChallenge), ("code_challenge_method", "S256"), ("state", state), ("nonce", nonce),
        ]
        if let loginHint { parameters.append(("login_hint", loginHint)) }
        let handle = SecureRandom.bytes(32)
        let at = context.now()
        try await store.insertHeldAuthorization(HeldAuthorizationRecord(
            handleHash: OpenIDProvider.pushedHash(handle), clientID: client.id, parameters: FormURLEncoded.encode(parameters), createdAt: at,
            expiresAt: at.addingTimeInterval(OpenIDProvider.pushedTTL)))
        return .redirectToWeb(
            requestURI: OpenIDProvider.requestURIPrefix + Base64URL.encode(handle), expiresIn: Int(OpenIDProvider.pushedTTL),
            state: state, nonce: nonce, description: why)
    }

}
