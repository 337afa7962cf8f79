import ArgumentParser
import Foundation
import Logging
import PasskeyCore
import PasskeyApp
import PasskeyAccounts
import PasskeyServer
import PasskeyTelemetry

@main
struct PasskeyServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey-server",
        abstract: "A passkey (WebAuthn) relying-party server on SQLite or PostgreSQL.",
        version: ServerVersion.current,
        subcommands: [
            Serve.self, HealthCheck.self, Verify.self, AASA.self, AssetLinksCommand.self, EventsCommand.self, UsersCommand.self, GroupsCommand.self, AdminTokensCommand.self,
            KeysCommand.self, ClientsCommand.self, BackupCommand.self, ExportCommand.self, ImportCommand.self, MigrateCommand.self, SIWACommand.self, PushDeviceCommand.self, MfBCommand.self,
        ])

    /// As ArgumentParser's own `main`, except that usage errors exit 2: `verify` and the
    /// `check` commands promise 0 = accepted / all passed, 1 = rejected / a check failed,
    /// 2 = the command line was wrong.
    static func main() async {
        do {
            var command = try parseAsRoot(joiningDashedValues(Array(CommandLine.arguments.dropFirst())))
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }

    /// ArgumentParser refuses any argument that begins with "---" as an unknown option, even as
    /// the value of an option that takes any value (`parsing: .unconditional`), and a base64url
    /// value can begin so: a user handle or a challenge whose first bytes are FB EF Bx. Such an
    /// argument is joined to the option before it (`--user-handle ---x` becomes
    /// `--user-handle=---x`), which ArgumentParser reads as that option's value. Nothing after
    /// a bare `--` is touched; an argument that begins with "---" could never be read otherwise.
    static func joiningDashedValues(_ arguments: [String]) -> [String] {
        var joined: [String] = []
        var positionalOnly = false
        for argument in arguments {
            if !positionalOnly, argument.hasPrefix("---"), let option = joined.last, option.hasPrefix("--"), option.count > 2,
               !option.contains("=")
            {
                joined[joined.count - 1] = option + "=" + argument
            } else {
                joined.append(argument)
            }
            if argument == "--" { positionalOnly = true }
        }
        return joined
    }
}

/// `passkey-server serve`. Every option also reads `PASSKEY_<OPTION>` from the environment
/// (repeatable options: a comma-separated list); a flag on the command line wins.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the JSON API, the ceremony page and the association files.",
        discussion: """
            Every option can also be set in the environment as PASSKEY_ followed by the option in \
            upper snake case (--rp-id → PASSKEY_RP_ID); repeatable options take a comma-separated \
            list there. A flag on the command line wins over the environment.
            """)

    @Option(help: "Address to bind. (env: PASSKEY_HOST, default 127.0.0.1)")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free one. (env: PASSKEY_PORT, default 8080)")
    var port: Int?

    @Option(name: .customLong("rp-id"), help: "Relying party ID: the domain passkeys are bound to. (env: PASSKEY_RP_ID, default localhost)")
    var rpID: String?

    @Option(name: .customLong("rp-name"), help: "Relying party name shown by authenticators. (env: PASSKEY_RP_NAME, default \"Passkey Server\")")
    var rpName: String?

    @Option(help: "An allowed origin, compared exactly after normalising; repeatable. (env: PASSKEY_ORIGIN, default http://localhost:PORT)")
    var origin: [String] = []

    @Option(help: ArgumentHelp("An SQLite file, created if missing (one process), or a postgres://USER:PASSWORD@HOST:PORT/DB URL (any number of processes on one database; ?sslmode=disable|prefer|require|verify-ca|verify-full, &sslrootcert=PEM_FILE; postgres://USER@/DB?host=/run/postgresql for the server's Unix socket on this machine). (env: PASSKEY_DATABASE, default ./passkeys.sqlite)", valueName: "FILE|URL"))
    var database: String?

    @Option(name: .customLong("database-password-file"), help: ArgumentHelp("Secret. The PostgreSQL password, read from this file (a trailing newline dropped) and used with a postgres:// --database that names none. (env: PASSKEY_DATABASE_PASSWORD_FILE)", valueName: "PATH"))
    var databasePasswordFile: String?

    @Option(name: .customLong("audit-checkpoint-interval"), help: ArgumentHelp("How often the audit chain's last hash is signed with the OpenID signing key and kept as a checkpoint (passkey-server events verify checks them): 90s, 10m, 1h, 1d, or 0 for never. (env: PASSKEY_AUDIT_CHECKPOINT_INTERVAL, default 1h)", valueName: "DURATION"))
    var auditCheckpointInterval: String?

    @Option(name: .customLong("audit-retention-days"), help: ArgumentHelp("Audit events (GET /me/events) older than this are deleted. (env: PASSKEY_AUDIT_RETENTION_DAYS, default 365)", valueName: "DAYS"))
    var auditRetentionDays: Int?

    @Option(name: .customLong("metrics-listen"), help: ArgumentHelp("Serve GET /metrics (Prometheus) on this address instead of the main port; recommended in production, so that only the scraper reaches it. (env: PASSKEY_METRICS_LISTEN)", valueName: "HOST:PORT"))
    var metricsListen: String?

    @Option(name: .customLong("database-pool-size"), help: ArgumentHelp("PostgreSQL: the most connections this process opens. (env: PASSKEY_DATABASE_POOL_SIZE, default 10)", valueName: "N"))
    var databasePoolSize: Int?

    @Option(name: .customLong("database-timeout"), help: ArgumentHelp("PostgreSQL: seconds a database call may take, waiting for a connection included, and each statement's timeout; past it the request gets 503 unavailable. (env: PASSKEY_DATABASE_TIMEOUT, default 5)", valueName: "SECONDS"))
    var databaseTimeout: Int?

    @Option(name: .customLong("public-dir"), help: "Folder served at / (the ceremony page). (env: PASSKEY_PUBLIC_DIR, default Public in the working directory, else ../share/passkey-server/Public beside the binary, where the package and the image install it)")
    var publicDir: String?

    @Option(help: "apple-app-site-association file to serve, merged with --ios-app-id; start-up stops if it is missing or invalid. Without it and without --ios-app-id none is served. (env: PASSKEY_AASA)")
    var aasa: String?

    @Option(name: .customLong("ios-app-id"), help: "TEAMID.bundle.id merged into webcredentials.apps; repeatable. (env: PASSKEY_IOS_APP_ID)")
    var iosAppID: [String] = []

    @Option(name: .customLong("android-app"), help: ArgumentHelp(
        "PACKAGE:SHA256_FINGERPRINT of an Android app (fingerprint as keytool prints it: 32 colon-separated hex bytes); served in /.well-known/assetlinks.json and its android:apk-key-hash: origin allowed; repeatable. (env: PASSKEY_ANDROID_APP)",
        valueName: "package:fingerprint"))
    var androidApp: [String] = []

    @Option(name: .customLong("related-origin"), help: ArgumentHelp(
        "Another https origin allowed to use this RP ID (WebAuthn Related Origin Requests); served in /.well-known/webauthn and allowed in ceremonies; at most 5 distinct registrable domain labels; repeatable. (env: PASSKEY_RELATED_ORIGIN)",
        valueName: "origin"))
    var relatedOrigin: [String] = []

    @Option(name: .customLong("reauth-window"), help: "Seconds a user-verified passkey ceremony lets a session add or delete passkeys, link Apple IDs or phones; 30 to 86400. (env: PASSKEY_REAUTH_WINDOW, default 300)")
    var reauthWindow: Int?

    @Option(name: .customLong("recovery-codes"), help: ArgumentHelp("Whether users may make recovery codes to get back in after losing every passkey; a code is a password in all but name, so turn them off for passkeys only. (env: PASSKEY_RECOVERY_CODES, default on)", valueName: "on|off"))
    var recoveryCodes: String?

    @Option(name: .customLong("recovery-delay"), help: ArgumentHelp("How long a recovery started with a recovery code waits before its session opens, while every signed-in session of the account can cancel it (\"this wasn't me\"): 0 (at once), or 90s, 10m, 24h, 7d; 24h is a good choice. (env: PASSKEY_RECOVERY_DELAY, default 0)", valueName: "DURATION"))
    var recoveryDelay: String?

    @Option(name: .customLong("rate-limit-recovery"), help: "Recovery attempts an hour, per user name and per client address, counted before the code is checked; 0 turns the limit off. (env: PASSKEY_RATE_LIMIT_RECOVERY, default 5)")
    var rateLimitRecovery: Int?

    @Option(name: .customLong("admin-group"), help: "The group whose members may use the admin API and page at /admin. (env: PASSKEY_ADMIN_GROUP, default admins)")
    var adminGroup: String?

    @Option(help: "Who may create accounts: open; invite (only through an invitation link); closed (existing users still add passkeys; operators' invitations still work). (env: PASSKEY_REGISTRATION, default open)")
    var registration: String?

    @Option(name: .customLong("user-verification"), help: "required, preferred or discouraged. (env: PASSKEY_USER_VERIFICATION, default preferred)")
    var userVerification: String?

    @Option(name: .customLong("resident-key"), help: ArgumentHelp("What registration asks of a credential: required (a discoverable passkey, for usernameless sign-in), preferred or discouraged (security keys that store nothing may register; they sign in by name). A request may ask for more, never less. (env: PASSKEY_RESIDENT_KEY, default required)", valueName: "required|preferred|discouraged"))
    var residentKey: String?

    @Option(name: .customLong("authenticator-attachment"), help: ArgumentHelp("Limit registration to platform authenticators (the device's own) or cross-platform ones (security keys, phones); default either. (env: PASSKEY_AUTHENTICATOR_ATTACHMENT)", valueName: "platform|cross-platform"))
    var authenticatorAttachment: String?

    @Flag(name: .customLong("fido-conformance"), help: "Serve FIDO's conformance API (/attestation/options, /attestation/result, /assertion/options, /assertion/result) for the FIDO conformance tools. A test mode: it adds passkeys to existing accounts without a session; never turn it on where real accounts live. (env: PASSKEY_FIDO_CONFORMANCE=1)")
    var fidoConformance = false

    @Option(name: .customLong("challenge-ttl"), help: "Seconds a ceremony's challenge stays valid. (env: PASSKEY_CHALLENGE_TTL, default 300)")
    var challengeTTL: Int?

    @Option(name: .customLong("session-ttl"), help: "Seconds a session lasts. (env: PASSKEY_SESSION_TTL, default 604800 = 7 days)")
    var sessionTTL: Int?

    @Option(name: .customLong("cookie-domain"), help: ArgumentHelp("Put a forward-auth cookie (__Secure-forward; Domain=…) on this parent domain, so that forward authentication for applications on its other hosts sees who is signed in; only /auth/request and /auth/forward accept it, and the session stays in the server host's own __Host-session. The first --origin must be https on it or under it. (env: PASSKEY_COOKIE_DOMAIN; default: none)", valueName: "DOMAIN"))
    var cookieDomain: String?

    @Option(name: .customLong("forward-auth-rule"), help: ArgumentHelp("Who may pass forward authentication (/auth/request, /auth/forward) to a host, and how recently and with which passkey: HOST[/PATH-PREFIX]=[GROUP[,GROUP…]][ max_age=SECONDS][ acr=phr|phrh], HOST exact or *.example.com; no group: any signed-in user; max_age: a user-verified passkey ceremony in the session within SECONDS (10 or more); acr=phrh: a device-bound passkey with a trusted attestation opened or stepped up the session; the most specific rule wins; once any rule is given, a host no rule names is closed; repeatable. (env: PASSKEY_FORWARD_AUTH_RULE, rules separated by ';'; default: any signed-in user)", valueName: "RULE"))
    var forwardAuthRule: [String] = []

    @Option(name: .customLong("clients-file"), help: ArgumentHelp("OpenID clients and forward-auth rules as code: a JSON file {\"clients\": [...], \"forward_auth_rules\": [...]}, each client with the members `clients list` prints and a confidential one's secret as secret_file (a path). Each start adds, updates and removes the clients the file made, never others; an invalid file stops the start with its line. (env: PASSKEY_CLIENTS_FILE)", valueName: "FILE"))
    var clientsFile: String?

    @Option(name: .customLong("issuer"), help: ArgumentHelp("The OpenID provider's issuer: exactly this string in every token and in discovery; https (http only for localhost), no query, fragment or trailing slash. (env: PASSKEY_ISSUER, default the first --origin)", valueName: "URL"))
    var issuer: String?

    @Option(name: .customLong("access-token-ttl"), help: "Seconds an OpenID access token lasts. (env: PASSKEY_ACCESS_TOKEN_TTL, default 600)")
    var accessTokenTTL: Int?

    @Option(name: .customLong("id-token-ttl"), help: "Seconds an ID token lasts. (env: PASSKEY_ID_TOKEN_TTL, default 600)")
    var idTokenTTL: Int?

    @Option(name: .customLong("refresh-token-ttl"), help: "Seconds a refresh token lasts, rotated or not. (env: PASSKEY_REFRESH_TOKEN_TTL, default 2592000 = 30 days)")
    var refreshTokenTTL: Int?

    @Option(name: .customLong("client-metadata-hosts"), help: ArgumentHelp("A host a client's --jwks-uri key set may be fetched from: a name or *.example.com, with an optional :port; repeatable. Once any is given, only those hosts; a private, loopback or link-local address needs a pattern naming its host, and plain http is fetched only from a loopback host named here. (env: PASSKEY_CLIENT_METADATA_HOSTS, comma-separated; default: any public https host)", valueName: "PATTERN"))
    var clientMetadataHosts: [String] = []

    @Option(name: .customLong("client-metadata-documents"), help: ArgumentHelp("on: a client_id that is an https URL names the client's metadata document (draft-ietf-oauth-client-id-metadata-document), fetched from the hosts --client-metadata-hosts allows (5 kB, 3 s, no redirects, cached 5 minutes to a day); such clients are public or sign with a jwks_uri, and their users are asked for consent. (env: PASSKEY_CLIENT_METADATA_DOCUMENTS, default off)", valueName: "on|off"))
    var clientMetadataDocuments: String?

    @Option(name: .customLong("dynamic-registration"), help: ArgumentHelp("Whether OpenID clients may register themselves at /oauth/register (RFC 7591, managed per RFC 7592): off; token, with an initial access token from `clients registration-token`; or open, anyone, each registration waiting for an admin's approval unless it brought a token. (env: PASSKEY_DYNAMIC_REGISTRATION, default off)", valueName: "off|token|open"))
    var dynamicRegistration: String?

    @Option(name: .customLong("max-body"), help: "Largest request body in bytes; larger is 413. (env: PASSKEY_MAX_BODY, default 65536)")
    var maxBody: Int?

    @Option(name: .customLong("header-timeout"), help: "Seconds a new connection has to send its first request head; then it is closed. (env: PASSKEY_HEADER_TIMEOUT, default 10)")
    var headerTimeout: Int?

    @Option(name: .customLong("idle-timeout"), help: "Seconds a kept-alive connection may wait for its next request; then it is closed. (env: PASSKEY_IDLE_TIMEOUT, default 60)")
    var idleTimeout: Int?

    @Option(name: .customLong("body-timeout"), help: "Seconds a request has to deliver its whole body once its head arrived (a trickled body does not reset it); then 408 and the connection is closed. (env: PASSKEY_BODY_TIMEOUT, default 30)")
    var bodyTimeout: Int?

    @Option(name: .customLong("shutdown-timeout"), help: "Seconds requests in flight may take to finish after SIGTERM or SIGINT; then every connection, stalled ones included, is closed and the server exits 0. (env: PASSKEY_SHUTDOWN_TIMEOUT, default 10)")
    var shutdownTimeout: Int?

    @Option(name: .customLong("max-connections"), help: "Open connections at most; a connection over it is closed at once. (env: PASSKEY_MAX_CONNECTIONS, default 4096 or the file limit less 64)")
    var maxConnections: Int?

    @Option(name: .customLong("max-connections-per-address"), help: "Open connections at most from one client address (IPv6: one /64); trusted proxies are not capped. (env: PASSKEY_MAX_CONNECTIONS_PER_ADDRESS, default 256)")
    var maxConnectionsPerAddress: Int?

    @Option(help: ArgumentHelp("What registration options ask for: none, indirect, direct or enterprise. (env: PASSKEY_ATTESTATION, default none)", valueName: "none|indirect|direct|enterprise"))
    var attestation: String?

    @Option(name: .customLong("attestation-policy"), help: ArgumentHelp("any: accept every attestation that verifies; trusted: refuse registration (invalid_attestation) unless the attestation chain verified to a trust anchor. (env: PASSKEY_ATTESTATION_POLICY, default any)", valueName: "any|trusted"))
    var attestationPolicy: String?

    @Option(name: .customLong("allow-aaguid"), help: ArgumentHelp("Only these authenticator models (AAGUID, a UUID) may register; repeatable. Binding only with --attestation-policy trusted. (env: PASSKEY_ALLOW_AAGUID)", valueName: "UUID"))
    var allowAAGUID: [String] = []

    @Option(name: .customLong("deny-aaguid"), help: ArgumentHelp("This authenticator model (AAGUID) may not register; repeatable. (env: PASSKEY_DENY_AAGUID)", valueName: "UUID"))
    var denyAAGUID: [String] = []

    @Option(name: .customLong("trust-anchors"), help: ArgumentHelp("A folder whose *.pem, *.crt and *.der certificates are extra attestation trust anchors for every format, besides the bundled Apple, Google and GlobalSign roots; start-up stops on a bad file. (env: PASSKEY_TRUST_ANCHORS)", valueName: "DIR"))
    var trustAnchors: String?

    @Option(name: .customLong("mds-blob"), help: ArgumentHelp("A FIDO Metadata Service BLOB (JWT from https://mds3.fidoalliance.org/): verified at start-up; gives each listed model's attestation roots, name and status (revoked models are refused). (env: PASSKEY_MDS_BLOB)", valueName: "FILE"))
    var mdsBlob: String?

    @Option(name: .customLong("mds-root"), help: ArgumentHelp("A PEM file whose certificates replace the bundled FIDO MDS root (GlobalSign Root CA - R3) for verifying --mds-blob. (env: PASSKEY_MDS_ROOT)", valueName: "PEM_FILE"))
    var mdsRoot: String?

    @Option(name: .customLong("mds-signer"), help: ArgumentHelp("The subject CN the --mds-blob signing certificate must have; repeatable. A BLOB signed by any other certificate under the root is refused. (env: PASSKEY_MDS_SIGNER, default mds.fidoalliance.org)", valueName: "NAME"))
    var mdsSigner: [String] = []

    @Option(name: .customLong("rate-limit-ip"), help: ArgumentHelp("Ceremony requests a minute from one client address (token bucket); 0 turns the limit off; over it: 429 rate_limited with Retry-After. (env: PASSKEY_RATE_LIMIT_IP, default 300)", valueName: "N"))
    var rateLimitIP: Int?

    @Option(name: .customLong("rate-limit-client"), help: ArgumentHelp("Token endpoint requests a minute for one OpenID client id; 0 turns the limit off. (env: PASSKEY_RATE_LIMIT_CLIENT, default 600)", valueName: "N"))
    var rateLimitClient: Int?

    @Option(name: .customLong("ciba-rate"), help: ArgumentHelp("CIBA approval requests (/oauth/bc-authorize) an hour for one user, across all clients and instances: each pushes to the user's phone. (env: PASSKEY_CIBA_RATE, default 10)", valueName: "N"))
    var cibaRate: Int?

    @Option(name: .customLong("rate-limit-user"), help: ArgumentHelp("Ceremony requests a minute for one user name; 0 turns the limit off. (env: PASSKEY_RATE_LIMIT_USER, default 30)", valueName: "N"))
    var rateLimitUser: Int?

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp("A proxy address range (CIDR, e.g. 10.0.0.0/8 or ::1/128) whose X-Forwarded-For is believed: the client is then the last address in it not in a trusted range; repeatable. From anyone else X-Forwarded-For is ignored. (env: PASSKEY_TRUSTED_PROXY)", valueName: "CIDR"))
    var trustedProxy: [String] = []

    @Option(name: .customLong("apple-client-id"), help: ArgumentHelp("Sign in with Apple: an accepted audience, an app's bundle ID or a web Services ID; repeatable; turns Sign in with Apple on. The first is used for the web flow. (env: PASSKEY_APPLE_CLIENT_ID)", valueName: "ID"))
    var appleClientID: [String] = []

    @Option(name: .customLong("apple-issuer"), help: ArgumentHelp("The identity tokens' expected iss. (env: PASSKEY_APPLE_ISSUER, default https://appleid.apple.com)", valueName: "URL"))
    var appleIssuer: String?

    @Option(name: .customLong("apple-jwks-url"), help: ArgumentHelp("Where Apple's keys are fetched; file:///path reads a local key set. (env: PASSKEY_APPLE_JWKS_URL, default https://appleid.apple.com/auth/keys)", valueName: "URL"))
    var appleJWKSURL: String?

    @Option(name: .customLong("apple-authorize-url"), help: ArgumentHelp("Apple's authorize page for the web flow. (env: PASSKEY_APPLE_AUTHORIZE_URL, default https://appleid.apple.com/auth/authorize)", valueName: "URL"))
    var appleAuthorizeURL: String?

    @Option(name: .customLong("apple-redirect-uri"), help: ArgumentHelp("The web flow's redirect_uri, exactly as registered with the Services ID; Apple posts the callback there, so it must reach this server's /siwa/callback. (env: PASSKEY_APPLE_REDIRECT_URI, default the primary origin's /siwa/callback)", valueName: "URL"))
    var appleRedirectURI: String?

    @Option(name: .customLong("apple-token-max-age"), help: ArgumentHelp("The oldest identity token (iat) accepted, whatever its exp says. (env: PASSKEY_APPLE_TOKEN_MAX_AGE, default 600)", valueName: "SECONDS"))
    var appleTokenMaxAge: Int?

    @Option(name: .customLong("apple-clock-skew"), help: ArgumentHelp("Allowed difference between Apple's clock and ours. (env: PASSKEY_APPLE_CLOCK_SKEW, default 60)", valueName: "SECONDS"))
    var appleClockSkew: Int?

    @Option(name: .customLong("apple-team-id"), help: ArgumentHelp("The developer's Team ID, for the .p8 key. (env: PASSKEY_APPLE_TEAM_ID)", valueName: "ID"))
    var appleTeamID: String?

    @Option(name: .customLong("apple-key-id"), help: ArgumentHelp("The .p8 key's Key ID. (env: PASSKEY_APPLE_KEY_ID)", valueName: "ID"))
    var appleKeyID: String?

    @Option(name: .customLong("apple-private-key"), help: ArgumentHelp("The developer's .p8 key (PEM): with --apple-team-id and --apple-key-id, authorization codes are exchanged and refresh tokens revoked on unlink. (env: PASSKEY_APPLE_PRIVATE_KEY)", valueName: "FILE"))
    var applePrivateKey: String?

    @Option(name: .customLong("apple-token-url"), help: ArgumentHelp("Apple's token endpoint. (env: PASSKEY_APPLE_TOKEN_URL, default https://appleid.apple.com/auth/token)", valueName: "URL"))
    var appleTokenURL: String?

    @Option(name: .customLong("apple-revoke-url"), help: ArgumentHelp("Apple's revoke endpoint. (env: PASSKEY_APPLE_REVOKE_URL, default https://appleid.apple.com/auth/revoke)", valueName: "URL"))
    var appleRevokeURL: String?

    @Option(name: .customLong("push-provider"), help: ArgumentHelp("How push sign-in requests reach phones: log (the server log only), webhook, apns or fcm. (env: PASSKEY_PUSH_PROVIDER, default log)", valueName: "log|webhook|apns|fcm"))
    var pushProvider: String?

    @Option(name: .customLong("push-webhook-url"), help: ArgumentHelp("webhook: each push is POSTed here as JSON {deviceId, deviceToken, data}. (env: PASSKEY_PUSH_WEBHOOK_URL)", valueName: "URL"))
    var pushWebhookURL: String?

    @Option(name: .customLong("apns-key-file"), help: ArgumentHelp("apns: the .p8 token signing key. (env: PASSKEY_APNS_KEY_FILE)", valueName: "FILE"))
    var apnsKeyFile: String?

    @Option(name: .customLong("apns-key-id"), help: ArgumentHelp("apns: the key's Key ID. (env: PASSKEY_APNS_KEY_ID)", valueName: "ID"))
    var apnsKeyID: String?

    @Option(name: .customLong("apns-team-id"), help: ArgumentHelp("apns: the developer's Team ID. (env: PASSKEY_APNS_TEAM_ID)", valueName: "ID"))
    var apnsTeamID: String?

    @Option(name: .customLong("apns-topic"), help: ArgumentHelp("apns: the app's bundle ID. (env: PASSKEY_APNS_TOPIC)", valueName: "BUNDLE_ID"))
    var apnsTopic: String?

    @Option(name: .customLong("apns-url"), help: ArgumentHelp("apns: the production provider API. (env: PASSKEY_APNS_URL, default https://api.push.apple.com)", valueName: "URL"))
    var apnsURL: String?

    @Option(name: .customLong("apns-sandbox-url"), help: ArgumentHelp("apns: the sandbox provider API, for devices enrolled with apnsEnvironment sandbox (Xcode debug builds). (env: PASSKEY_APNS_SANDBOX_URL, default https://api.sandbox.push.apple.com)", valueName: "URL"))
    var apnsSandboxURL: String?

    @Option(name: .customLong("apns-environment"), help: ArgumentHelp("The APNs environment of a device that enrols without saying (TestFlight and App Store builds: production; Xcode debug builds: sandbox). (env: PASSKEY_APNS_ENVIRONMENT, default production)", valueName: "production|sandbox"))
    var apnsEnvironment: String?

    @Option(name: .customLong("fcm-service-account"), help: ArgumentHelp("fcm: the Google service account JSON file (project_id, client_email, private_key, token_uri). (env: PASSKEY_FCM_SERVICE_ACCOUNT)", valueName: "FILE"))
    var fcmServiceAccount: String?

    @Option(name: .customLong("fcm-url"), help: ArgumentHelp("fcm: the FCM HTTP v1 API. (env: PASSKEY_FCM_URL, default https://fcm.googleapis.com)", valueName: "URL"))
    var fcmURL: String?

    @Option(name: .customLong("push-number-challenge"), help: ArgumentHelp("off; in-push: the number is in the push and on the page, and the user picks it on the phone; type-in: only on the page, typed on the phone. (env: PASSKEY_PUSH_NUMBER_CHALLENGE, default in-push)", valueName: "off|in-push|type-in"))
    var pushNumberChallenge: String?

    @Option(name: .customLong("push-ttl"), help: ArgumentHelp("Seconds a push sign-in request waits for the phone, 1 to 3600; below the default for tests only. (env: PASSKEY_PUSH_TTL, default 120)", valueName: "SECONDS"))
    var pushTTL: Int?

    @Option(name: .customLong("push-max-devices"), help: ArgumentHelp("Push devices an account may enrol. (env: PASSKEY_PUSH_MAX_DEVICES, default 5)", valueName: "N"))
    var pushMaxDevices: Int?

    @Option(name: .customLong("mfb-client-id"), help: ArgumentHelp("Messages for Business: the OAuth client registered with Apple Business Register; turns MfB sign-in on, and is registered at start-up as a client of the OpenID provider (`clients list` shows it). (env: PASSKEY_MFB_CLIENT_ID)", valueName: "ID"))
    var mfbClientID: String?

    @Option(name: .customLong("mfb-client-secret"), help: ArgumentHelp("Secret. The client's secret: the token endpoint checks it, and each message carries it as clientSecret; better from a file, --mfb-client-secret-file. (env: PASSKEY_MFB_CLIENT_SECRET)", valueName: "SECRET"))
    var mfbClientSecret: String?

    @Option(name: .customLong("mfb-client-secret-file"), help: ArgumentHelp("--mfb-client-secret read from this file (a trailing newline dropped), as container secrets are mounted; not with --mfb-client-secret. (env: PASSKEY_MFB_CLIENT_SECRET_FILE)", valueName: "PATH"))
    var mfbClientSecretFile: String?

    @Option(name: .customLong("mfb-redirect-uri"), help: ArgumentHelp("A redirect URI the authorization endpoint accepts, compared exactly; repeatable. (env: PASSKEY_MFB_REDIRECT_URI, comma-separated)", valueName: "URL"))
    var mfbRedirectURI: [String] = []

    @Option(name: .customLong("mfb-api-token"), help: ArgumentHelp("Secret. Bearer token of the business's calls (/mfb/requests, /mfb/responses); better from a file, --mfb-api-token-file. (env: PASSKEY_MFB_API_TOKEN)", valueName: "TOKEN"))
    var mfbAPIToken: String?

    @Option(name: .customLong("mfb-api-token-file"), help: ArgumentHelp("--mfb-api-token read from this file (a trailing newline dropped); not with --mfb-api-token. (env: PASSKEY_MFB_API_TOKEN_FILE)", valueName: "PATH"))
    var mfbAPITokenFile: String?

    @Option(name: .customLong("mfb-request-ttl"), help: ArgumentHelp("Seconds a Messages for Business request (and its private key) lives, 1 to 86400; below the default for tests only. (env: PASSKEY_MFB_REQUEST_TTL, default 600)", valueName: "SECONDS"))
    var mfbRequestTTL: Int?

    @Option(name: .customLong("mfb-message"), help: ArgumentHelp("ios16: the iOS 16 Authentication message (its reply carries the authorization code; no client secret in it); legacy: the older one, whose device trades the code for an access token. (env: PASSKEY_MFB_MESSAGE, default ios16)", valueName: "ios16|legacy"))
    var mfbMessage: String?

    @Option(name: .customLong("mfb-gateway-url"), help: ArgumentHelp("Send each message through Apple's Messages for Business gateway (https://mspgw.push.apple.com/v1/authenticate) instead of handing it back. (env: PASSKEY_MFB_GATEWAY_URL)", valueName: "URL"))
    var mfbGatewayURL: String?

    @Option(name: .customLong("mfb-business-id"), help: ArgumentHelp("The gateway's source-id: the business's ID in Apple Business Register. (env: PASSKEY_MFB_BUSINESS_ID)", valueName: "ID"))
    var mfbBusinessID: String?

    @Option(name: .customLong("mfb-msp-id"), help: ArgumentHelp("The messaging service provider's ID (the aud of its JWT). (env: PASSKEY_MFB_MSP_ID)", valueName: "ID"))
    var mfbMSPID: String?

    @Option(name: .customLong("mfb-msp-secret"), help: ArgumentHelp("Secret. The MSP's shared secret, base64: the HS256 key of the gateway's Authorization JWT; better from a file, --mfb-msp-secret-file. (env: PASSKEY_MFB_MSP_SECRET)", valueName: "BASE64"))
    var mfbMSPSecret: String?

    @Option(name: .customLong("mfb-msp-secret-file"), help: ArgumentHelp("--mfb-msp-secret read from this file (a trailing newline dropped); not with --mfb-msp-secret. (env: PASSKEY_MFB_MSP_SECRET_FILE)", valueName: "PATH"))
    var mfbMSPSecretFile: String?

    @Option(name: .customLong("mfb-audit-token"), help: ArgumentHelp("Secret. When the business's authentication provider is a third party: its bearer token for POST /mfb/key-audits, the key audit of Apple's gateway; better from a file, --mfb-audit-token-file. (env: PASSKEY_MFB_AUDIT_TOKEN)", valueName: "TOKEN"))
    var mfbAuditToken: String?

    @Option(name: .customLong("mfb-audit-token-file"), help: ArgumentHelp("--mfb-audit-token read from this file (a trailing newline dropped); not with --mfb-audit-token. (env: PASSKEY_MFB_AUDIT_TOKEN_FILE)", valueName: "PATH"))
    var mfbAuditTokenFile: String?

    @Option(name: .customLong("log-format"), help: ArgumentHelp("text, or json: one JSON object per line (ts, level, msg, request_id, fields). Logs go to standard error; the listening line goes to standard output, as JSON too with json. (env: PASSKEY_LOG_FORMAT, default text on a terminal, json otherwise)", valueName: "text|json"))
    var logFormat: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical. (env: PASSKEY_LOG_LEVEL, default info)")
    var logLevel: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration: ServerConfiguration
        do {
            configuration = try ConfigurationResolver(environment: environment).resolve(self)
        } catch let error as ValidationError {
            throw error
        }
        let format = logFormat ?? environment["PASSKEY_LOG_FORMAT"] ?? (isatty(2) == 1 ? "text" : "json")
        switch format {
        case "json":
            LoggingSystem.bootstrap({ label, provider in JSONLogHandler(label: label, metadataProvider: provider) },
                                    metadataProvider: RequestID.metadataProvider)
        case "text":
            LoggingSystem.bootstrap({ label, provider in StreamLogHandler.standardError(label: label, metadataProvider: provider) },
                                    metadataProvider: RequestID.metadataProvider)
        default:
            throw ValidationError("--log-format must be text or json, not \(format)")
        }
        var logger = Logger(label: "passkey-server")
        let level = logLevel ?? environment["PASSKEY_LOG_LEVEL"] ?? "info"
        guard let parsedLevel = Logger.Level(rawValue: level) else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        logger.logLevel = parsedLevel

        let app: PasskeyApplication
        // With the JSON format every line is JSON: the listening line (standard output) and a
        // refusal at start-up (standard error) too.
        let json = format == "json"
        do {
            app = try await PasskeyApplication.build(configuration: configuration, logger: logger, onListening: { host, port in
                let line = "listening on http://\(host):\(port)"
                guard json else { return FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
                Logger(label: "passkey-server") { JSONLogHandler(label: $0, metadataProvider: nil, write: JSONLogHandler.standardOutput) }
                    .info("\(line)")
            })
        } catch let error as PasskeyApplication.StartupError {
            if json {
                logger.critical("\(error.message)")
            } else {
                FileHandle.standardError.write(Data("passkey-server: \(error.message)\n".utf8))
            }
            throw ExitCode(1)
        }
        try await app.run()
    }
}
