public import Foundation
internal import PasskeyCore
internal import PasskeyStorage

/// The consent page for third-party clients (docs/contracts/identity.md, "Authorization
/// endpoint"): a client that registered itself, or one of a metadata document, gets a code only
/// once its user allowed it the scopes it asks, remembered per client and scope set.
///
/// | Step | What happens | Function |
/// |---|---|---|
/// | 1 | A fitting session, a third-party client, no consent covering the scopes (or `prompt=consent`): the request is held, the browser sent to the consent page; `prompt=none` is `consent_required` | `needsConsent`, `authorize`, `resume` |
/// | 2 | `GET /oauth/consent?authorization=…`: the client's name, its host and the scopes, as text | `consentPage` |
/// | 3 | `POST /oauth/consent` (same origin): `allow` keeps the consent and answers a code; `deny` is `access_denied` | `decideConsent` |
/// | 4 | The account's applications list the consent; withdrawing it revokes the client's tokens | `applications`, `signOut(application:)` |
extension OpenIDProvider {
    /// What the consent page shows, every value as text (never markup, never a fetched logo).
    public struct ConsentPrompt: Sendable, Equatable {
        /// The held request's handle, posted back with the decision.
        public let handle: String
        public let clientName: String
        /// The host of the redirect URI (or of the metadata document's URL), where codes go.
        public let clientHost: String
        /// The scopes asked, each with what it gives.
        public let scopes: [Scope]

        public struct Scope: Sendable, Equatable {
            public let name: String
            public let meaning: String
        }
    }

    /// What each user scope gives the application, as the consent page says it.
    static let scopeMeanings: [String: String] = [
        "openid": "know who you are on this server (an identifier for your account)",
        "profile": "see your user name and display name",
        "email": "see your email address",
        "groups": "see the groups you belong to",
        "offline_access": "keep access while you are signed out",
        "passkey": "see which kind of passkey you signed in with",
    ]

    /// Whether the request must ask its user first: a third-party client, and `prompt=consent`
    /// or no consent that covers the scopes asked.
    func needsConsent(_ request: AuthorizationRequest, userHandle: [UInt8]) async throws -> Bool {
        guard request.client.isThirdParty else { return false }
        if request.asksConsent { return true }
        guard let consent = try await store.consent(userHandle: userHandle, clientID: request.client.id) else { return true }
        return !Set(request.scopes).isSubset(of: Set(consent.scopes))
    }

    func consentLocation(_ handle: String) -> String {
        context.rp.pageOrigin + "/oauth/consent?authorization=" + handle
    }

    /// `GET /oauth/consent?authorization=…`: the page for a held request whose session fits it;
    /// without a fitting session, the sign-in page first.
    public func consentPage(handle: String, session: SignedInUser?) async throws -> AuthorizationOutcome {
        let request: AuthorizationRequest
        switch try await fittingHeld(handle, session: session) {
        case .fits(let held): request = held.request
        case .answered(let outcome): return outcome
        }
        let scopes = request.scopes.map { ConsentPrompt.Scope(name: $0, meaning: Self.scopeMeanings[$0] ?? $0) }
        return .consent(ConsentPrompt(handle: handle, clientName: request.client.name ?? request.client.id, clientHost: Self.host(of: request), scopes: scopes))
    }

    /// `POST /oauth/consent`: `allow` keeps the consent (with the scopes allowed before) and
    /// answers the request with a code; `deny` answers it with `access_denied`. Either spends
    /// the held request.
    public func decideConsent(handle: String, decision: String, session: SignedInUser?) async throws -> AuthorizationOutcome {
        guard decision == "allow" || decision == "deny" else {
            return .shown(error: "invalid_request", description: "decision must be allow or deny")
        }
        let held: FittingHeld
        switch try await fittingHeld(handle, session: session) {
        case .fits(let fitting): held = fitting
        case .answered(let outcome): return outcome
        }
        guard try await spend(held) else { return Self.alreadyFinished }
        let request = held.request
        let at = now()
        let user = held.signedIn.user.handle
        guard decision == "allow" else {
            try await store.insertEvent(context.event(user, "consent_denied", at: at, ["client": request.client.id]))
            return .respond(errorResponse(request, "access_denied", "the user did not allow this application"))
        }
        var scopes = try await store.consent(userHandle: user, clientID: request.client.id)?.scopes ?? []
        for scope in request.scopes where !scopes.contains(scope) { scopes.append(scope) }
        let consent = ConsentRecord(userHandle: user, clientID: request.client.id, scopes: scopes, grantedAt: at)
        let event = context.event(user, "consent_given", at: at, ["client": request.client.id, "scope": request.scopes.joined(separator: " ")])
        guard try await store.saveConsent(consent, event: event) else {
            return .shown(error: "invalid_request", description: "this application or this account is gone")
        }
        return try await issueCode(request, signedIn: held.signedIn, session: held.session)
    }

    /// Where the client's codes go, as the page names it: the host of its metadata document's
    /// URL, or of the request's redirect URI (a private-use scheme names the app).
    static func host(of request: AuthorizationRequest) -> String {
        if request.client.kind == .metadataDocument, let host = URLComponents(string: request.client.id)?.host { return host }
        let components = URLComponents(string: request.redirectURI)
        if let host = components?.host, !host.isEmpty { return host }
        return components?.scheme ?? request.redirectURI
    }
}
