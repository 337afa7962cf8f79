import ArgumentParser
import Foundation
import PasskeyAssociation
import PasskeyCore
import PasskeyHTTPParsing
import PasskeyStorage
import PasskeyAccounts
import PasskeyServer

/// Flag, else `PASSKEY_*` environment variable, else the default.
struct ConfigurationResolver {
    let environment: [String: String]

    func resolve(_ flags: Serve) throws -> ServerConfiguration {
        var c = ServerConfiguration()
        c.host = try string(flags.host, "HOST") ?? c.host
        c.port = try int(flags.port, "PORT", range: 0...65535) ?? c.port
        c.rpID = try string(flags.rpID, "RP_ID") ?? c.rpID
        c.rpName = try string(flags.rpName, "RP_NAME") ?? c.rpName
        c.origins = list(flags.origin, "ORIGIN")
        c.database = try string(flags.database, "DATABASE") ?? c.database
        c.databasePoolSize = try int(flags.databasePoolSize, "DATABASE_POOL_SIZE", range: 1...1000) ?? c.databasePoolSize
        c.databaseTimeout = TimeInterval(try int(flags.databaseTimeout, "DATABASE_TIMEOUT", range: 1...600) ?? Int(c.databaseTimeout))
        if let interval = try string(flags.auditCheckpointInterval, "AUDIT_CHECKPOINT_INTERVAL") {
            if interval == "0" {
                c.auditCheckpointInterval = 0
            } else {
                guard let seconds = AccountAdministration.duration(interval), seconds >= 10 else {
                    throw ValidationError("--audit-checkpoint-interval must be a duration such as 10m, 1h or 1d (at least 10s), or 0, not \(interval)")
                }
                c.auditCheckpointInterval = seconds
            }
        }
        if let days = try int(flags.auditRetentionDays, "AUDIT_RETENTION_DAYS", range: 1...36500) {
            c.auditRetention = TimeInterval(days) * 86400
        }
        if let listen = try string(flags.metricsListen, "METRICS_LISTEN") {
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
                  (1...65535).contains(port), colon > listen.startIndex
            else {
                throw ValidationError("--metrics-listen must be HOST:PORT (e.g. 127.0.0.1:9090), not \(listen)")
            }
            c.metricsListen = (String(listen[..<colon]), port)
        }
        if PostgresLocation.isURL(c.database) {
            let location: PostgresLocation
            do { location = try PostgresLocation(url: c.database) } catch { throw ValidationError("--database: \(error)") }
            if let path = try string(flags.databasePasswordFile, "DATABASE_PASSWORD_FILE") {
                guard location.password == nil else {
                    throw ValidationError("the PostgreSQL password is given twice: in the --database URL and in --database-password-file; give one")
                }
                c.databasePassword = try Self.readSecret(path, option: "--database-password-file")
            }
        } else if try string(flags.databasePasswordFile, "DATABASE_PASSWORD_FILE") != nil {
            throw ValidationError("--database-password-file goes with a postgres:// --database, not an SQLite file")
        }
        c.publicDirectory = try string(flags.publicDir, "PUBLIC_DIR") ?? Self.installedPage(beside: Self.executablePath) ?? c.publicDirectory
        c.associationFile = try string(flags.aasa, "AASA")
        c.iosAppIDs = list(flags.iosAppID, "IOS_APP_ID")
        c.androidApps = try list(flags.androidApp, "ANDROID_APP").map { argument in
            do { return try AndroidApp(argument: argument) } catch { throw ValidationError("--android-app \(error)") }
        }
        c.relatedOrigins = list(flags.relatedOrigin, "RELATED_ORIGIN")
        for origin in c.relatedOrigins {
            do { _ = try Origin.normalize(origin) } catch { throw ValidationError("--related-origin: \(error)") }
        }
        if let registration = try string(flags.registration, "REGISTRATION") {
            guard let policy = RegistrationPolicy(rawValue: registration) else {
                throw ValidationError("--registration must be open, invite or closed, not \(registration)")
            }
            c.registration = policy
        }
        if let uv = try string(flags.userVerification, "USER_VERIFICATION") {
            guard let requirement = UserVerificationRequirement(rawValue: uv) else {
                throw ValidationError("--user-verification must be required, preferred or discouraged, not \(uv)")
            }
            c.userVerification = requirement
        }
        if let residentKey = try string(flags.residentKey, "RESIDENT_KEY") {
            guard let requirement = ResidentKeyRequirement(rawValue: residentKey) else {
                throw ValidationError("--resident-key must be required, preferred or discouraged, not \(residentKey)")
            }
            c.residentKey = requirement
        }
        if let attachment = try string(flags.authenticatorAttachment, "AUTHENTICATOR_ATTACHMENT") {
            guard let value = AuthenticatorAttachment(rawValue: attachment) else {
                throw ValidationError("--authenticator-attachment must be platform or cross-platform, not \(attachment)")
            }
            c.authenticatorAttachment = value
        }
        if flags.fidoConformance {
            c.fidoConformance = true
        } else if let value = environment["PASSKEY_FIDO_CONFORMANCE"] {
            guard ["0", "1"].contains(value) else { throw ValidationError("PASSKEY_FIDO_CONFORMANCE must be 0 or 1, not \(value)") }
            c.fidoConformance = value == "1"
        }
        c.challengeTTL = TimeInterval(try int(flags.challengeTTL, "CHALLENGE_TTL", range: 10...86400) ?? Int(c.challengeTTL))
        c.sessionTTL = TimeInterval(try int(flags.sessionTTL, "SESSION_TTL", range: 60...31_536_000) ?? Int(c.sessionTTL))
        c.reauthWindow = TimeInterval(try int(flags.reauthWindow, "REAUTH_WINDOW", range: 30...86_400) ?? Int(c.reauthWindow))
        if let recovery = try choice(flags.recoveryCodes, "RECOVERY_CODES", among: ["on", "off"]) {
            c.recoveryCodes = recovery == "on"
        }
        if let delay = try string(flags.recoveryDelay, "RECOVERY_DELAY"), delay != "0" {
            guard let seconds = AccountAdministration.duration(delay), seconds <= 30 * 86400 else {
                throw ValidationError("--recovery-delay must be 0 or a duration such as 10m, 24h or 7d (at most 30 days), not \(delay)")
            }
            c.recoveryDelay = seconds
        }
        c.rateLimitRecovery = try int(flags.rateLimitRecovery, "RATE_LIMIT_RECOVERY", range: 0...1_000_000) ?? c.rateLimitRecovery
        if let group = try string(flags.adminGroup, "ADMIN_GROUP") {
            guard (try? UserName(group)) != nil else { throw ValidationError("--admin-group must be a group name (as user names are), not \(group)") }
            c.adminGroup = group
        }
        if let domain = try string(flags.cookieDomain, "COOKIE_DOMAIN")?.lowercased() {
            guard ForwardedRequest.parse(originalURL: "https://" + domain + "/", method: nil)?.host == domain, domain.contains("."),
                  !domain.hasPrefix("[")
            else { throw ValidationError("--cookie-domain must be a domain name such as example.com, not \(domain)") }
            c.cookieDomain = domain
        }
        do {
            // Rules carry commas (their groups): the environment separates them with `;`.
            let texts = !flags.forwardAuthRule.isEmpty ? flags.forwardAuthRule
                : (environment["PASSKEY_FORWARD_AUTH_RULE"] ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            c.forwardAuthRules = try texts.map { text throws(ForwardAuthRule.Failure) in try ForwardAuthRule(text) }
            try ForwardAuth.checkRules(c.forwardAuthRules)
        } catch {
            throw ValidationError("--forward-auth-rule: \(error)")
        }
        if let path = try string(flags.clientsFile, "CLIENTS_FILE") {
            let file: ClientsFile
            do { file = try ClientsFile.load(path: path) } catch { throw ValidationError("--clients-file: \(error)") }
            c.forwardAuthRules += file.forwardAuthRules
            do { try ForwardAuth.checkRules(c.forwardAuthRules) } catch { throw ValidationError("--clients-file \(path) and --forward-auth-rule: \(error)") }
            c.clientsFile = file
        }
        if let issuer = try string(flags.issuer, "ISSUER") {
            guard Self.isIssuer(issuer) else {
                throw ValidationError("--issuer must be an https URL (http only for localhost) without query, fragment or trailing slash, not \(issuer)")
            }
            c.issuer = issuer
        }
        c.accessTokenTTL = TimeInterval(try int(flags.accessTokenTTL, "ACCESS_TOKEN_TTL", range: 60...86_400) ?? Int(c.accessTokenTTL))
        c.idTokenTTL = TimeInterval(try int(flags.idTokenTTL, "ID_TOKEN_TTL", range: 60...86_400) ?? Int(c.idTokenTTL))
        c.refreshTokenTTL = TimeInterval(try int(flags.refreshTokenTTL, "REFRESH_TOKEN_TTL", range: 300...31_536_000) ?? Int(c.refreshTokenTTL))
        do {
            c.clientMetadataHosts = OutboundHostPolicy(patterns: try list(flags.clientMetadataHosts, "CLIENT_METADATA_HOSTS").map { text throws(OutboundHostPolicy.Refusal) in
                try OutboundHostPolicy.Pattern(text)
            })
        } catch {
            throw ValidationError(error.description)
        }
        if let documents = try string(flags.clientMetadataDocuments, "CLIENT_METADATA_DOCUMENTS") {
            guard documents == "on" || documents == "off" else { throw ValidationError("--client-metadata-documents must be on or off, not \(documents)") }
            c.clientMetadataDocuments = documents == "on"
        }
        if let mode = try string(flags.dynamicRegistration, "DYNAMIC_REGISTRATION") {
            guard let parsed = DynamicRegistrationMode(rawValue: mode) else {
                throw ValidationError("--dynamic-registration must be off, token or open, not \(mode)")
            }
            c.dynamicRegistration = parsed
        }
        c.maxBody = try int(flags.maxBody, "MAX_BODY", range: 1024...16_777_216) ?? c.maxBody
        c.headerTimeout = TimeInterval(try int(flags.headerTimeout, "HEADER_TIMEOUT", range: 1...3600) ?? Int(c.headerTimeout))
        c.idleTimeout = TimeInterval(try int(flags.idleTimeout, "IDLE_TIMEOUT", range: 1...86400) ?? Int(c.idleTimeout))
        c.bodyTimeout = TimeInterval(try int(flags.bodyTimeout, "BODY_TIMEOUT", range: 1...3600) ?? Int(c.bodyTimeout))
        c.shutdownTimeout = TimeInterval(try int(flags.shutdownTimeout, "SHUTDOWN_TIMEOUT", range: 0...3600) ?? Int(c.shutdownTimeout))
        c.maxConnections = try int(flags.maxConnections, "MAX_CONNECTIONS", range: 1...1_000_000) ?? c.maxConnections
        c.maxConnectionsPerAddress = try int(flags.maxConnectionsPerAddress, "MAX_CONNECTIONS_PER_ADDRESS", range: 1...1_000_000)
            ?? c.maxConnectionsPerAddress
        if let conveyance = try string(flags.attestation, "ATTESTATION") {
            guard let preference = AttestationConveyancePreference(rawValue: conveyance) else {
                throw ValidationError("--attestation must be none, indirect, direct or enterprise, not \(conveyance)")
            }
            c.attestationConveyance = preference
        }
        if let policy = try string(flags.attestationPolicy, "ATTESTATION_POLICY") {
            guard let trust = AttestationPolicy.Trust(rawValue: policy) else {
                throw ValidationError("--attestation-policy must be any or trusted, not \(policy)")
            }
            c.attestationTrust = trust
        }
        c.allowedAAGUIDs = try aaguids(flags.allowAAGUID, "ALLOW_AAGUID")
        c.deniedAAGUIDs = try aaguids(flags.denyAAGUID, "DENY_AAGUID")
        c.trustAnchorsDirectory = try string(flags.trustAnchors, "TRUST_ANCHORS")
        c.metadataBLOBPath = try string(flags.mdsBlob, "MDS_BLOB")
        c.metadataRootPath = try string(flags.mdsRoot, "MDS_ROOT")
        let signers = list(flags.mdsSigner, "MDS_SIGNER")
        if !signers.isEmpty { c.metadataSignerNames = Set(signers) }
        c.rateLimitPerAddress = try int(flags.rateLimitIP, "RATE_LIMIT_IP", range: 0...1_000_000) ?? c.rateLimitPerAddress
        c.rateLimitPerUser = try int(flags.rateLimitUser, "RATE_LIMIT_USER", range: 0...1_000_000) ?? c.rateLimitPerUser
        c.rateLimitPerClient = try int(flags.rateLimitClient, "RATE_LIMIT_CLIENT", range: 0...1_000_000) ?? c.rateLimitPerClient
        c.cibaRate = try int(flags.cibaRate, "CIBA_RATE", range: 1...1000) ?? c.cibaRate
        c.trustedProxies = try list(flags.trustedProxy, "TRUSTED_PROXY").map { text in
            guard let range = AddressRange(text) else {
                throw ValidationError("--trusted-proxy must be an address range such as 10.0.0.0/8 or ::1/128, not \(text)")
            }
            return range
        }
        c.appleClientIDs = list(flags.appleClientID, "APPLE_CLIENT_ID")
        c.appleIssuer = try string(flags.appleIssuer, "APPLE_ISSUER") ?? c.appleIssuer
        c.appleJWKSURL = try url(flags.appleJWKSURL, "APPLE_JWKS_URL", allowFile: true) ?? c.appleJWKSURL
        c.appleAuthorizeURL = try url(flags.appleAuthorizeURL, "APPLE_AUTHORIZE_URL") ?? c.appleAuthorizeURL
        c.appleTokenURL = try url(flags.appleTokenURL, "APPLE_TOKEN_URL") ?? c.appleTokenURL
        c.appleRedirectURI = try string(flags.appleRedirectURI, "APPLE_REDIRECT_URI").map { try redirectURI($0, "--apple-redirect-uri") }
        c.appleRevokeURL = try url(flags.appleRevokeURL, "APPLE_REVOKE_URL") ?? c.appleRevokeURL
        c.appleTokenMaxAge = TimeInterval(try int(flags.appleTokenMaxAge, "APPLE_TOKEN_MAX_AGE", range: 10...86400) ?? Int(c.appleTokenMaxAge))
        c.appleClockSkew = TimeInterval(try int(flags.appleClockSkew, "APPLE_CLOCK_SKEW", range: 0...3600) ?? Int(c.appleClockSkew))
        c.appleTeamID = try string(flags.appleTeamID, "APPLE_TEAM_ID")
        c.appleKeyID = try string(flags.appleKeyID, "APPLE_KEY_ID")
        c.applePrivateKeyPath = try string(flags.applePrivateKey, "APPLE_PRIVATE_KEY")
        let developerKey = [c.appleTeamID, c.appleKeyID, c.applePrivateKeyPath].compactMap { $0 }.count
        if developerKey != 0, developerKey != 3 {
            throw ValidationError("--apple-team-id, --apple-key-id and --apple-private-key go together: give all three or none")
        }
        if developerKey == 3, c.appleClientIDs.isEmpty {
            throw ValidationError("--apple-private-key needs --apple-client-id (Sign in with Apple is off without one)")
        }
        c.pushProvider = try choice(flags.pushProvider, "PUSH_PROVIDER", among: ["log", "webhook", "apns", "fcm"]) ?? c.pushProvider
        c.pushWebhookURL = try url(flags.pushWebhookURL, "PUSH_WEBHOOK_URL")
        c.apnsKeyFile = try string(flags.apnsKeyFile, "APNS_KEY_FILE")
        c.apnsKeyID = try string(flags.apnsKeyID, "APNS_KEY_ID")
        c.apnsTeamID = try string(flags.apnsTeamID, "APNS_TEAM_ID")
        c.apnsTopic = try string(flags.apnsTopic, "APNS_TOPIC")
        c.apnsURL = try url(flags.apnsURL, "APNS_URL") ?? c.apnsURL
        c.apnsSandboxURL = try url(flags.apnsSandboxURL, "APNS_SANDBOX_URL") ?? c.apnsSandboxURL
        c.apnsEnvironment = try choice(flags.apnsEnvironment, "APNS_ENVIRONMENT", among: ["production", "sandbox"]) ?? c.apnsEnvironment
        c.fcmServiceAccount = try string(flags.fcmServiceAccount, "FCM_SERVICE_ACCOUNT")
        c.fcmURL = try url(flags.fcmURL, "FCM_URL") ?? c.fcmURL
        // `seed`, the value's first name, stays accepted and means `in-push`.
        c.pushNumberChallenge = try choice(flags.pushNumberChallenge, "PUSH_NUMBER_CHALLENGE", among: ["off", "in-push", "type-in"],
                                           formerly: ["seed": "in-push"])
            ?? c.pushNumberChallenge
        c.pushTTL = TimeInterval(try int(flags.pushTTL, "PUSH_TTL", range: 1...3600) ?? Int(c.pushTTL))
        c.pushMaxDevices = try int(flags.pushMaxDevices, "PUSH_MAX_DEVICES", range: 1...100) ?? c.pushMaxDevices
        c.mfbClientID = try string(flags.mfbClientID, "MFB_CLIENT_ID")
        c.mfbClientSecret = try secret(flags.mfbClientSecret, file: flags.mfbClientSecretFile, "MFB_CLIENT_SECRET")
        c.mfbRedirectURIs = try list(flags.mfbRedirectURI, "MFB_REDIRECT_URI").map { try redirectURI($0, "--mfb-redirect-uri") }
        c.mfbAPIToken = try secret(flags.mfbAPIToken, file: flags.mfbAPITokenFile, "MFB_API_TOKEN")
        c.mfbRequestTTL = TimeInterval(try int(flags.mfbRequestTTL, "MFB_REQUEST_TTL", range: 1...86400) ?? Int(c.mfbRequestTTL))
        c.mfbMessage = try choice(flags.mfbMessage, "MFB_MESSAGE", among: ["ios16", "legacy"]) ?? c.mfbMessage
        c.mfbGatewayURL = try url(flags.mfbGatewayURL, "MFB_GATEWAY_URL")
        c.mfbBusinessID = try string(flags.mfbBusinessID, "MFB_BUSINESS_ID")
        c.mfbMSPID = try string(flags.mfbMSPID, "MFB_MSP_ID")
        c.mfbMSPSecret = try secret(flags.mfbMSPSecret, file: flags.mfbMSPSecretFile, "MFB_MSP_SECRET")
        c.mfbAuditToken = try secret(flags.mfbAuditToken, file: flags.mfbAuditTokenFile, "MFB_AUDIT_TOKEN")
        if let token = c.mfbAuditToken, token.utf8.count < 16 {
            throw ValidationError("--mfb-audit-token must be at least 16 characters (it is the provider's only credential)")
        }
        if c.mfbGatewayURL != nil {
            guard c.mfbClientID != nil else { throw ValidationError("--mfb-gateway-url needs --mfb-client-id (Messages for Business is off without one)") }
            guard let business = c.mfbBusinessID, !business.isEmpty, let msp = c.mfbMSPID, !msp.isEmpty, let secret = c.mfbMSPSecret,
                  let decoded = Data(base64Encoded: secret), !decoded.isEmpty
            else {
                throw ValidationError("--mfb-gateway-url needs --mfb-business-id, --mfb-msp-id and --mfb-msp-secret (the MSP's secret in base64)")
            }
        }
        let mfbSettings = [c.mfbClientSecret, c.mfbAPIToken].compactMap { $0 }.count + (c.mfbRedirectURIs.isEmpty ? 0 : 1)
        if c.mfbClientID != nil, mfbSettings != 3 {
            throw ValidationError("--mfb-client-id needs --mfb-client-secret, --mfb-api-token and at least one --mfb-redirect-uri")
        }
        if c.mfbClientID == nil, mfbSettings != 0 {
            throw ValidationError("--mfb-client-secret, --mfb-api-token and --mfb-redirect-uri need --mfb-client-id (Messages for Business is off without one)")
        }
        if let token = c.mfbAPIToken, token.utf8.count < 16 {
            throw ValidationError("--mfb-api-token must be at least 16 characters (it is the business's only credential)")
        }
        if c.metadataRootPath != nil, c.metadataBLOBPath == nil {
            throw ValidationError("--mds-root replaces the root of the --mds-blob chain; give --mds-blob too")
        }
        for origin in c.origins {
            do { _ = try Origin.normalize(origin) } catch { throw ValidationError("--origin: \(error)") }
        }
        return c
    }

    /// An http(s) URL (or, with `allowFile`, a file:// one).
    private func url(_ flag: String?, _ name: String, allowFile: Bool = false) throws -> String? {
        guard let text = try string(flag, name) else { return nil }
        let option = "--" + name.lowercased().replacingOccurrences(of: "_", with: "-")
        let schemes = allowFile ? ["https", "http", "file"] : ["https", "http"]
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), schemes.contains(scheme),
              scheme == "file" || url.host?.isEmpty == false
        else {
            throw ValidationError("\(option) must be an \(allowFile ? "https, http or file" : "https or http") URL, not \(text)")
        }
        return text
    }

    /// OpenID Connect Discovery §3: an https URL with scheme and host, optionally a path, no
    /// query or fragment; http is accepted for localhost and loopback addresses only.
    static func isIssuer(_ text: String) -> Bool {
        guard let url = URLComponents(string: text), let scheme = url.scheme, let host = url.host, !host.isEmpty,
              url.query == nil, url.fragment == nil, url.user == nil, !text.hasSuffix("/")
        else { return false }
        if scheme == "https" { return true }
        return scheme == "http" && ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host)
    }

    /// A redirect URI as Apple accepts one: https, a host, no fragment (http only for localhost).
    private func redirectURI(_ uri: String, _ option: String) throws -> String {
        guard let url = URL(string: uri), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false, url.fragment == nil,
              scheme == "https" || (scheme == "http" && ["localhost", "127.0.0.1", "::1"].contains(url.host ?? ""))
        else {
            throw ValidationError("\(option) must be an https URL without a fragment (http only for localhost), not \(uri)")
        }
        return uri
    }

    /// A flag that takes one of a few words: nil when not given; anything else than `values` is
    /// refused, naming the flag and the words ("--push-provider must be log, webhook, apns or
    /// fcm, not x").
    /// With no `Public` in the working directory, the page installed beside the binary
    /// (`/usr/bin/passkey-server` → `/usr/share/passkey-server/Public`, as the package and the
    /// image lay it out), so that an installed server started from any directory serves it.
    static var executablePath: String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first
    }

    static func installedPage(beside executable: String?, fileManager: FileManager = .default) -> String? {
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: "Public", isDirectory: &isDirectory), isDirectory.boolValue { return nil }
        guard let executable, executable.contains("/") else { return nil }
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
        let page = binary.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/passkey-server/Public").path
        guard fileManager.fileExists(atPath: page, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        return page
    }

    private func choice(_ flag: String?, _ name: String, among values: [String], formerly: [String: String] = [:]) throws -> String? {
        guard let given = try string(flag, name) else { return nil }
        let value = formerly[given] ?? given
        guard values.contains(value) else {
            let option = "--" + name.lowercased().replacingOccurrences(of: "_", with: "-")
            let words = values.count > 1 ? values.dropLast().joined(separator: ", ") + " or " + (values.last ?? "") : values.joined()
            throw ValidationError("\(option) must be \(words), not \(value)")
        }
        return value
    }

    private func string(_ flag: String?, _ name: String) throws -> String? {
        if let flag { return flag }
        guard let value = environment["PASSKEY_" + name] else { return nil }
        return value
    }

    /// A secret from its flag or `PASSKEY_<NAME>`, or from the file of `--<flag>-file` or
    /// `PASSKEY_<NAME>_FILE`; both a value and a file is an error, not a choice.
    private func secret(_ flag: String?, file fileFlag: String?, _ name: String) throws -> String? {
        let option = "--" + name.lowercased().replacingOccurrences(of: "_", with: "-")
        let value = try string(flag, name)
        guard let path = try string(fileFlag, name + "_FILE") else { return value }
        guard value == nil else {
            throw ValidationError("\(option) is given twice: as a value and as \(option)-file; give one")
        }
        return try Self.readSecret(path, option: option + "-file")
    }

    /// A secret file's text, without one trailing newline (as `echo` and most editors leave it);
    /// an unreadable, non-UTF-8 or empty file is an error naming the path.
    static func readSecret(_ path: String, option: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("\(option) \(path) cannot be read")
        }
        guard var text = String(data: data, encoding: .utf8) else { throw ValidationError("\(option) \(path) is not UTF-8 text") }
        if text.last == "\n" || text.last == "\r\n" { text.removeLast() }
        guard !text.isEmpty else { throw ValidationError("\(option) \(path) is empty") }
        return text
    }

    private func int(_ flag: Int?, _ name: String, range: ClosedRange<Int>) throws -> Int? {
        let option = "--" + name.lowercased().replacingOccurrences(of: "_", with: "-")
        let value: Int
        if let flag {
            value = flag
        } else if let text = environment["PASSKEY_" + name] {
            guard let parsed = Int(text) else { throw ValidationError("PASSKEY_\(name) must be a whole number, not \(text)") }
            value = parsed
        } else {
            return nil
        }
        guard range.contains(value) else {
            throw ValidationError("\(option) must be between \(range.lowerBound) and \(range.upperBound), not \(value)")
        }
        return value
    }

    /// AAGUIDs as UUID strings (either case) → 16 bytes each.
    private func aaguids(_ flags: [String], _ name: String) throws -> [[UInt8]] {
        let option = "--" + name.lowercased().replacingOccurrences(of: "_", with: "-")
        return try list(flags, name).map { text in
            guard let bytes = UUIDString.parse(text) else {
                throw ValidationError("\(option) must be an AAGUID such as cb69481e-8ff7-4039-93ec-0a2729a154a8, not \(text)")
            }
            return bytes
        }
    }

    private func list(_ flags: [String], _ name: String) -> [String] {
        if !flags.isEmpty { return flags }
        guard let value = environment["PASSKEY_" + name] else { return [] }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
