public import Foundation
public import PasskeyCore
public import PasskeyAssociation
public import PasskeyHTTPParsing

/// Everything `passkey-server serve` is configured with; defaults make a local demo.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var rpID = "localhost"
    public var rpName = "Passkey Server"
    /// Allowed origins; empty means `http://localhost:PORT`.
    public var origins: [String] = []
    /// An SQLite file path (one process), or a `postgres://` / `postgresql://` URL (any number
    /// of processes on one database).
    public var database = "./passkeys.sqlite"
    /// PostgreSQL only: the most connections each process opens.
    public var databasePoolSize = 10
    /// PostgreSQL only: the longest a database call may take, waiting for a connection
    /// included; past it the request gets 503 `unavailable`. Also each statement's timeout.
    public var databaseTimeout: TimeInterval = 5
    public var publicDirectory = "Public"
    /// The association file (`--aasa`); a missing one stops start-up. Nil: none is read, and the
    /// association is served only when app IDs are given (built from them) — a checkout's
    /// placeholder file is never served by accident.
    public var associationFile: String?
    public var iosAppIDs: [String] = []
    /// Android apps (`--android-app PACKAGE:FINGERPRINT`): listed in /.well-known/assetlinks.json,
    /// and their `android:apk-key-hash:` origins allowed in ceremonies.
    public var androidApps: [AndroidApp] = []
    /// Related origins (`--related-origin`, WebAuthn L3 §5.11): listed in /.well-known/webauthn
    /// and allowed in ceremonies.
    public var relatedOrigins: [String] = []
    public var userVerification: UserVerificationRequirement = .preferred
    /// Who may create accounts (`--registration`, docs/contracts/accounts.md): anyone, or no one (existing
    /// users still add passkeys).
    public var registration: RegistrationPolicy = .open
    /// How long a user-verified passkey ceremony in a session lets it do sensitive things
    /// (`--reauth-window`, docs/contracts/accounts.md "step-up"), in seconds.
    public var reauthWindow: TimeInterval = 300
    /// Whether users may make recovery codes (`--recovery-codes on|off`, docs/contracts/accounts.md).
    public var recoveryCodes: Bool = true
    /// Recovery attempts an hour, per name and per client address (`--rate-limit-recovery`).
    public var rateLimitRecovery: Int = 5
    /// How long a recovery started with a code waits for the owner's veto (`--recovery-delay`),
    /// in seconds; 0: it opens at once.
    public var recoveryDelay: TimeInterval = 0
    /// The group whose members may use the admin API and page (`--admin-group`).
    public var adminGroup: String = "admins"
    /// `residentKey` in the registration options, and the weakest a request may ask for
    /// (`--resident-key`).
    public var residentKey: ResidentKeyRequirement = .required
    /// `authenticatorSelection.authenticatorAttachment` in the registration options; nil: either
    /// (`--authenticator-attachment`).
    public var authenticatorAttachment: AuthenticatorAttachment?
    public var challengeTTL: TimeInterval = 300
    public var sessionTTL: TimeInterval = 7 * 24 * 3600
    public var maxBody = 65536
    /// Seconds a new connection has to deliver its first request head (`--header-timeout`).
    public var headerTimeout: TimeInterval = 10
    /// The PostgreSQL password from `--database-password-file`, for a `--database` URL that
    /// names none.
    public var databasePassword: String?
    /// Seconds a kept-alive connection may wait between a response and the next request head
    /// (`--idle-timeout`).
    public var idleTimeout: TimeInterval = 60
    /// Seconds a request has to deliver its whole body once its head arrived; then 408 and the
    /// connection closes (`--body-timeout`).
    public var bodyTimeout: TimeInterval = 30
    /// Seconds requests in flight may take to finish once the server is told to stop; then every
    /// connection is closed and the process exits (`--shutdown-timeout`).
    public var shutdownTimeout: TimeInterval = 10
    /// Open connections at most (`--max-connections`); nil: 4096, or fewer when the process may
    /// open fewer files (its soft RLIMIT_NOFILE less 64 for the database and the rest).
    public var maxConnections: Int?
    /// Open connections at most from one client address, an IPv6 client by its /64; a trusted
    /// proxy is not capped per address (`--max-connections-per-address`).
    public var maxConnectionsPerAddress = 256
    /// `--metrics-listen HOST:PORT`: serve `GET /metrics` there instead of on the main port.
    public var metricsListen: (host: String, port: Int)?
    /// Audit events older than this are deleted by the sweeper (`--audit-retention-days`).
    public var auditRetention: TimeInterval = 365 * 86400
    /// `--cookie-domain`: the session cookie is `__Secure-session` for this parent domain, so
    /// that applications on its other hosts (behind forward authentication) see it.
    public var cookieDomain: String?
    /// Forward authentication's rules (`--forward-auth-rule`); none: any signed-in user passes.
    public var forwardAuthRules: [ForwardAuthRule] = []
    /// `--clients-file`, read and checked: its clients are reconciled at start (its rules are
    /// in `forwardAuthRules` already).
    public var clientsFile: ClientsFile?
    /// The OpenID provider's issuer (`--issuer`); nil: the first origin.
    public var issuer: String?
    /// Lifetime of the access tokens the provider issues (`--access-token-ttl`).
    public var accessTokenTTL: TimeInterval = 600
    /// Lifetime of its ID tokens (`--id-token-ttl`).
    public var idTokenTTL: TimeInterval = 600
    /// Lifetime of its refresh tokens, rotated or not (`--refresh-token-ttl`).
    public var refreshTokenTTL: TimeInterval = 30 * 86400
    /// `--client-metadata-hosts`: where a client's `--jwks-uri` may be fetched from.
    public var clientMetadataHosts = OutboundHostPolicy()
    /// The longest a fetch of a client's key set (`--jwks-uri`) or metadata document may take.
    public var clientDocumentTimeout: TimeInterval = 3
    /// `--client-metadata-documents on`: a `client_id` that is an https URL names the client's
    /// metadata document.
    public var clientMetadataDocuments = false
    /// `--dynamic-registration`: whether clients may register themselves (RFC 7591).
    public var dynamicRegistration: DynamicRegistrationMode = .off
    /// The waits before each retry of an undelivered back-channel logout token.
    public var logoutRetryDelays: [TimeInterval] = [2, 10, 60, 300]
    /// How often expired ceremonies and sessions are swept.
    public var sweepInterval: TimeInterval = 60
    /// How often the audit chain's head is signed (`--audit-checkpoint-interval`); 0: never.
    public var auditCheckpointInterval: TimeInterval = 3600

    // Attestation and trust.
    /// `attestation` in the registration options.
    public var attestationConveyance: AttestationConveyancePreference = .none
    /// `trusted`: registration needs an attestation chain verified to an anchor.
    public var attestationTrust: AttestationPolicy.Trust = .any
    /// AAGUIDs (16 bytes each) that alone may register, when not empty.
    public var allowedAAGUIDs: [[UInt8]] = []
    /// AAGUIDs that may not register.
    public var deniedAAGUIDs: [[UInt8]] = []
    /// A folder of extra trust anchors (*.pem, *.crt, *.der) for every format.
    public var trustAnchorsDirectory: String?
    /// A FIDO Metadata Service BLOB (JWT) file.
    public var metadataBLOBPath: String?
    /// A PEM file whose certificates replace the bundled FIDO MDS root for the BLOB.
    public var metadataRootPath: String?

    /// Subject CNs a metadata BLOB's signing certificate may have (`--mds-signer`).
    public var metadataSignerNames: Set<String> = MetadataBLOB.fidoSignerNames

    // Rate limits (docs/contracts/operations.md): requests a minute, 0 = off.
    public var rateLimitPerAddress = 300
    public var rateLimitPerUser = 30
    /// Token endpoint requests a minute for one OpenID client id (`--rate-limit-client`).
    public var rateLimitPerClient = 600
    /// CIBA requests an hour for one user, across all clients and instances (`--ciba-rate`).
    public var cibaRate = 10
    /// Proxies whose X-Forwarded-For is believed (`--trusted-proxy`).
    public var trustedProxies: [AddressRange] = []

    // Sign in with Apple (docs/contracts/siwa.md): on when `appleClientIDs` is not empty.
    /// Accepted `aud` values: app bundle IDs and web Services IDs (`--apple-client-id`).
    public var appleClientIDs: [String] = []
    public var appleIssuer = "https://appleid.apple.com"
    /// Where Apple's key set is fetched; `file:///path` reads a local one.
    public var appleJWKSURL = "https://appleid.apple.com/auth/keys"
    /// Apple's authorize page, for the web flow.
    public var appleAuthorizeURL = "https://appleid.apple.com/auth/authorize"
    /// The web flow's `redirect_uri` (`--apple-redirect-uri`), as registered with the Services
    /// ID; nil: the primary origin's `/siwa/callback`.
    public var appleRedirectURI: String?
    public var appleTokenURL = "https://appleid.apple.com/auth/token"
    public var appleRevokeURL = "https://appleid.apple.com/auth/revoke"
    /// The oldest `iat` accepted, whatever `exp` says.
    public var appleTokenMaxAge: TimeInterval = 600
    public var appleClockSkew: TimeInterval = 60
    /// The developer's key (`.p8`): enables the code exchange and revocation.
    public var appleTeamID: String?
    public var appleKeyID: String?
    public var applePrivateKeyPath: String?

    public var signInWithAppleEnabled: Bool { !appleClientIDs.isEmpty }

    // The push authenticator (docs/contracts/push.md).
    /// `log`, `webhook`, `apns` or `fcm`.
    public var pushProvider = "log"
    public var pushWebhookURL: String?
    public var apnsKeyFile: String?
    public var apnsKeyID: String?
    public var apnsTeamID: String?
    public var apnsTopic: String?
    public var apnsURL = "https://api.push.apple.com"
    /// Where pushes to sandbox devices go.
    public var apnsSandboxURL = "https://api.sandbox.push.apple.com"
    /// `production` or `sandbox`: the environment of a device that enrolled without one.
    public var apnsEnvironment = "production"
    public var fcmServiceAccount: String?
    public var fcmURL = "https://fcm.googleapis.com"
    /// `off`, `seed` or `type-in`.
    public var pushNumberChallenge = "in-push"
    /// How long an authentication request waits.
    public var pushTTL: TimeInterval = 120
    public var pushMaxDevices = 5
    /// How long an enrolment's QR code is good for.
    public var pushDiscoveryTTL: TimeInterval = 180

    // Messages for Business (docs/contracts/mfb.md): on when `mfbClientID` is given.
    public var mfbClientID: String?
    public var mfbClientSecret: String?
    /// Redirect URIs the authorization endpoint accepts, compared exactly.
    public var mfbRedirectURIs: [String] = []
    /// Bearer token of the business's own calls.
    public var mfbAPIToken: String?
    /// How long a request (and its private key) lives.
    public var mfbRequestTTL: TimeInterval = 600
    /// `ios16` (the Authentication message of iOS 16, no client secret in it) or `legacy`.
    public var mfbMessage = "ios16"
    /// Apple's gateway (`--mfb-gateway-url`): the server sends each message itself; with the
    /// business's ID and the MSP's credentials.
    public var mfbGatewayURL: String?
    public var mfbBusinessID: String?
    public var mfbMSPID: String?
    /// Base64 of the MSP's shared secret (HS256 key of its JWT).
    public var mfbMSPSecret: String?
    /// A third-party authentication provider's bearer token for the key audit call.
    public var mfbAuditToken: String?

    public var messagesForBusinessEnabled: Bool { mfbClientID != nil }

    /// The FIDO conformance API (`--fido-conformance`): a test mode, never for real accounts.
    public var fidoConformance = false

    public init() {}

    /// The attestation policy in force.
    public var attestationPolicy: AttestationPolicy {
        AttestationPolicy(trust: attestationTrust, allowedAAGUIDs: Set(allowedAAGUIDs), deniedAAGUIDs: Set(deniedAAGUIDs))
    }

    /// The origins in force: the configured ones (or http://localhost:PORT), the Android
    /// apps' origins and the related origins.
    public var effectiveOrigins: [String] {
        allowedOrigins(listeningPort: port)
    }

    /// `effectiveOrigins` once the server knows the port it really bound (`--port 0`).
    public func allowedOrigins(listeningPort: Int) -> [String] {
        (origins.isEmpty ? ["http://localhost:\(listeningPort)"] : origins) + androidApps.map(\.origin) + relatedOrigins
    }
}

/// `--registration` (docs/contracts/accounts.md, "Who may create accounts").
/// `invite`: only through an invitation link; `closed`: not even then (docs/contracts/accounts.md says
/// invitations work in every mode, so `closed` refuses self-service sign-up only, as `invite`
/// does; the two differ in what the page says).
public enum RegistrationPolicy: String, Sendable, CaseIterable {
    case open, invite, closed
}

/// `--dynamic-registration` (docs/contracts/identity.md, "Machine and agent clients"): `off`;
/// `token`, with an initial access token an admin made; `open`, anyone, each registration
/// waiting for an admin's approval unless it brought a token.
public enum DynamicRegistrationMode: String, Sendable, CaseIterable {
    case off, token, open
}
