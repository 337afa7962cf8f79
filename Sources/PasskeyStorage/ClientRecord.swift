public import Foundation

/// Who made a client, which decides whether its users are asked for their consent.
public enum ClientKind: String, Sendable, Equatable, CaseIterable {
    /// Registered by the operator (command line, clients file, admin API or page): first-party.
    case byOperator = "operator"
    /// Registered itself at the registration endpoint (RFC 7591): third-party.
    case registered
    /// Described by a client ID metadata document it publishes: third-party.
    case metadataDocument = "metadata_document"

    /// The kind a row holds; `.database` for anything the schema's `CHECK` would not let in.
    package static func stored(_ text: String) throws -> ClientKind {
        guard let kind = ClientKind(rawValue: text) else { throw StoreError.database("oauth_clients.kind holds \(text.prefix(32))") }
        return kind
    }
}

/// An application registered with the OpenID provider (docs/contracts/identity.md, "Issuer,
/// keys, clients", "Machine and agent clients"). A confidential client's secret is kept only as
/// its SHA-256.
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
    /// May ask the token endpoint for a token of its own (`client_credentials`, RFC 6749 §4.4).
    public var clientCredentials: Bool
    /// The resource servers (RFC 8707 `resource` values) its own tokens may be for.
    public var audiences: [String]
    /// The key set (RFC 7517, JSON text) it signs its `private_key_jwt` assertions with, when
    /// registered from a file; such a client has no secret.
    public var jwks: String?
    /// Where its key set is fetched, when registered by URL; such a client has no secret.
    public var jwksURI: String?
    /// `--require-dpop`: every token request must carry a DPoP proof (RFC 9449).
    public var requireDPoP: Bool
    public var kind: ClientKind
    /// An open registration not yet approved by an admin: its authorizations are refused.
    public var pending: Bool
    /// SHA-256 of the registration access token (RFC 7592) of a self-registered client.
    public var registrationTokenHash: [UInt8]?
    /// `--authorization-challenge`: a first-party native app that may sign its users in at
    /// `/oauth/authorize-challenge` with a passkey, without a browser.
    public var authorizationChallenge: Bool
    /// `--ciba poll|ping`: may ask for a user's approval on their phone (`/oauth/bc-authorize`).
    public var cibaMode: String?
    /// `--notification-endpoint`: where a ping client is told that its request was answered.
    public var notificationEndpoint: String?
    public var createdAt: Date

    /// Not the operator's: its users are asked for their consent.
    public var isThirdParty: Bool { kind != .byOperator }

    /// Authenticates with signed assertions (`private_key_jwt`, RFC 7523) instead of a secret.
    public var usesKeys: Bool { jwks != nil || jwksURI != nil }

    /// What the engines store in `secret_hash`. The first schema ties a missing secret to a
    /// public client (`CHECK`), which SQLite cannot change without rebuilding the table its
    /// grants refer to; a confidential client with keys and no secret stores 32 zero bytes
    /// instead, a SHA-256 no secret has, and reads back as no secret (`fromStorage`).
    public var storedSecretHash: [UInt8]? { secretHash ?? (usesKeys && !isPublic ? Self.keysOnlySecretHash : nil) }

    static let keysOnlySecretHash = [UInt8](repeating: 0, count: 32)

    /// The record as read from a row: the keys-only marker is no secret.
    public func fromStorage() -> ClientRecord {
        guard usesKeys, secretHash == Self.keysOnlySecretHash else { return self }
        var record = self
        record.secretHash = nil
        return record
    }

    public init(
        id: String, name: String?, isPublic: Bool, secretHash: [UInt8]?, redirectURIs: [String], postLogoutRedirectURIs: [String],
        backchannelLogoutURI: String?, scopes: [String], idTokenAlgorithm: String, introspection: Bool, tokenExchange: Bool,
        allowedGroups: [String], requiredACR: String?, deviceFlow: Bool, requirePAR: Bool, refresh: Bool,
        messagesForBusiness: Bool = false, fromClientsFile: Bool = false, clientCredentials: Bool = false, audiences: [String] = [],
        jwks: String? = nil, jwksURI: String? = nil, requireDPoP: Bool = false, kind: ClientKind = .byOperator, pending: Bool = false,
        registrationTokenHash: [UInt8]? = nil, authorizationChallenge: Bool = false, cibaMode: String? = nil,
        notificationEndpoint: String? = nil, createdAt: Date
    ) {
        self.authorizationChallenge = authorizationChallenge
        self.cibaMode = cibaMode
        self.notificationEndpoint = notificationEndpoint
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
        self.clientCredentials = clientCredentials
        self.audiences = audiences
        self.jwks = jwks
        self.jwksURI = jwksURI
        self.requireDPoP = requireDPoP
        self.kind = kind
        self.pending = pending
        self.registrationTokenHash = registrationTokenHash
        self.createdAt = createdAt
    }
}
