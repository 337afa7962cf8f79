public import Foundation
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyHTTPParsing
internal import PasskeyJSON
public import PasskeyStorage

/// The OpenID provider (docs/contracts/identity.md): a file per endpoint beside this one
/// (+Authorization, +PushedRequests, +TokenEndpoint, +TokenIssuance, +Userinfo, +Discovery,
/// +Revocation, +Introspection, +TokenExchange, +DeviceFlow, +Logout, +Applications; what
/// several share in +Grants; the endpoints' typed answers in IdentityAnswers). It signs users in
/// with the passkey service's sessions and keeps every request, code and grant in the store, so
/// that an authorization started on one instance finishes on any other.
public final class OpenIDProvider: Sendable {
    /// A code lives 60 s (docs/contracts/identity.md): long enough for a back-channel exchange, short enough
    /// that a leaked one is stale.
    public static let codeTTL: TimeInterval = 60
    /// A request held while its user signs in: 10 minutes.
    public static let heldTTL: TimeInterval = 600

    let context: UseCaseContext
    let sessions: Sessions
    let store: any OpenIDStore & ClientRegistrationStore & ConsentStore & AccountStore & SessionStore & GroupStore & AppleStore & ServerStateStore
        & BackchannelStore
    let keys: SigningKeys
    /// The push authenticator, CIBA's authentication device; nil: no CIBA.
    let push: PushSignIn?
    /// Where ping clients are told their request was answered; nil sends nothing.
    let backchannelNotifications: (any BackchannelNotificationDelivery)?
    /// Where logout tokens are posted; nil sends none (a provider without the network).
    let backChannel: (any BackChannelLogoutDelivery)?
    /// The waits before each retry of a logout token that was not delivered.
    let logoutRetryDelays: [TimeInterval]
    /// Token endpoint requests per client id (`--rate-limit-client`).
    let clientLimiter: RateLimiter
    /// The access tokens this process signed lately: one that comes back unchanged is not
    /// verified a second time (everything else about it still is).
    let signedTokens = SignedTokens()
    /// The clients' `private_key_jwt` keys, fetched ones kept.
    let keySets: ClientKeySets
    /// The clients known by their metadata documents, fetched ones remembered as fresh.
    let metadataDocuments: ClientMetadataDocuments
    /// DPoP proofs' keys, read once per key.
    let proofKeys = JWKCache(capacity: 4096)
    /// Messages for Business (docs/contracts/mfb.md), when on: its client's requests pass its key audit before
    /// a code is issued, and the codes and access tokens they get are bound to its requests.
    let messagesForBusiness: MfBSignIn?
    var configuration: ServerConfiguration { context.configuration }

    /// Starts listening to the passkey service's ended sessions (for back-channel logout).
    public init(
        context: UseCaseContext, sessions: Sessions,
        store: any OpenIDStore & ClientRegistrationStore & ConsentStore & AccountStore & SessionStore & GroupStore & AppleStore & ServerStateStore
            & BackchannelStore,
        keys: SigningKeys, backChannel: (any BackChannelLogoutDelivery)? = nil,
        messagesForBusiness: MfBSignIn? = nil, documents: (any OutboundDocuments)? = nil, push: PushSignIn? = nil,
        backchannelNotifications: (any BackchannelNotificationDelivery)? = nil
    ) {
        self.push = push
        self.backchannelNotifications = backchannelNotifications
        self.context = context
        self.sessions = sessions
        self.store = store
        self.messagesForBusiness = messagesForBusiness
        self.keys = keys
        self.backChannel = backChannel
        self.logoutRetryDelays = context.configuration.logoutRetryDelays
        self.clientLimiter = RateLimiter(perMinute: context.configuration.rateLimitPerClient)
        let hosts = context.configuration.clientMetadataHosts, fetchLimit = context.configuration.clientDocumentTimeout
        self.keySets = ClientKeySets(documents: documents, policy: hosts, timeout: fetchLimit, logger: context.logger)
        self.metadataDocuments = ClientMetadataDocuments(documents: documents, policy: hosts, timeout: fetchLimit, logger: context.logger)
        sessions.onSessionsEnded { [weak self] ended in
            guard let self else { return }
            Task { await self.sessionsEnded(ended) }
        }
        push?.onApprovalAnswered { [weak self] pushID in
            guard let self else { return }
            Task { await self.notifyBackchannel(pushID: pushID) }
        }
    }

    /// `--issuer`, or the first origin (once the port is known when none was configured).
    public var issuer: String { configuration.issuer ?? context.rp.pageOrigin }

    func now() -> Date { context.now() }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
