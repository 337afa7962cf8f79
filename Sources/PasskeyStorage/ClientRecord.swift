public import Foundation

/// An application registered with the OpenID provider by the operator (docs/contracts/identity.md, "Issuer,
/// keys, clients"). A confidential client's secret is kept only as its SHA-256.
public struct ClientRecord: Sendable, Equatable {
    public var id: String
    public var name: String?
    /// A single-page or native app: no secret, PKCE only.
    public var isPublic: Bool
    /// SHA-256 of the secret; nil for a public client.
    public var secretHash: [UInt8]?
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    public var backchannelLogoutURI: String?
    public var scopes: [String]
    /// `RS256` or `ES256`.
    public var idTokenAlgorithm: String
    public var introspection: Bool
    public var tokenExchange: Bool
    /// Only members of these groups may sign in to it; empty for everyone.
    public var allowedGroups: [String]
    /// `phr` or `phrh`: the least authentication class every sign-in to it needs.
    public var requiredACR: String?
    public var deviceFlow: Bool
    public var requirePAR: Bool
    /// Refresh tokens for a public client (a confidential one always gets them).
    public var refresh: Bool
    /// The Messages for Business client (docs/contracts/mfb.md): registered from `--mfb-client-id` at start-up,
    /// not by an operator. Apple's devices send no PKCE challenge and no nonce, so its requests
    /// carry the request's `responseEncryptionKey` and `userHandle` instead, which the key audit
    /// checks before any code is issued; it never gets refresh tokens (its secret travels in
    /// the legacy message).
    public var messagesForBusiness: Bool
    /// Declared in `--clients-file`: each start makes it match the file, and removes it once the
    /// file no longer has it. The command line, the admin API and the page make the others.
    public var fromClientsFile: Bool
    public var createdAt: Date

    public init(
        id: String, name: String?, isPublic: Bool, secretHash: [UInt8]?, redirectURIs: [String], postLogoutRedirectURIs: [String],
        backchannelLogoutURI: String?, scopes: [String], idTokenAlgorithm: String, introspection: Bool, tokenExchange: Bool,
        allowedGroups: [String], requiredACR: String?, deviceFlow: Bool, requirePAR: Bool, refresh: Bool,
        messagesForBusiness: Bool = false, fromClientsFile: Bool = false, createdAt: Date
    ) {
        self.id = id
        self.name = name
        self.isPublic = isPublic
        self.secretHash = secretHash
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.backchannelLogoutURI = backchannelLogoutURI
        self.scopes = scopes
        self.idTokenAlgorithm = idTokenAlgorithm
        self.introspection = introspection
        self.tokenExchange = tokenExchange
        self.allowedGroups = allowedGroups
        self.requiredACR = requiredACR
        self.deviceFlow = deviceFlow
        self.requirePAR = requirePAR
        self.refresh = refresh
        self.messagesForBusiness = messagesForBusiness
        self.fromClientsFile = fromClientsFile
        self.createdAt = createdAt
    }
}
