public import Foundation
internal import PasskeyCrypto
internal import PasskeyJOSE
public import PasskeyJSON
public import PasskeyStorage

/// The applications registered with the OpenID provider (docs/contracts/identity.md, "Issuer, keys, clients"),
/// managed by the operator only. Every value is checked before anything is stored: a client id
/// of URL-safe characters, redirect URIs that are absolute, without a fragment, `https` (or
/// `http` on a loopback host, or a private-use scheme for a public client), known scopes, one of
/// the two ID token algorithms, known authentication classes.
public struct ClientRegistry: Sendable {
    /// What `passkey-server clients add` asks for.
    public struct Registration: Sendable {
        public var id: String
        public var name: String?
        public var isPublic = false
        public var redirectURIs: [String] = []
        public var postLogoutRedirectURIs: [String] = []
        public var backchannelLogoutURI: String?
        public var scopes = ClientRegistry.defaultScopes
        public var idTokenAlgorithm = "RS256"
        public var introspection = false
        public var tokenExchange = false
        public var allowedGroups: [String] = []
        public var requiredACR: String?
        public var deviceFlow = false
        public var requirePAR = false
        public var refresh = false
        /// `--client-credentials`: tokens of its own, with no user (RFC 6749 §4.4).
        public var clientCredentials = false
        /// `--audience`: the resource servers its own tokens may name (RFC 8707).
        public var audiences: [String] = []
        /// `--jwks FILE`'s key set (JSON text), or `--jwks-uri`: the client signs assertions
        /// (`private_key_jwt`) and gets no secret.
        public var jwks: String?
        public var jwksURI: String?
        /// `--require-dpop`: every token request carries a DPoP proof (RFC 9449).
        public var requireDPoP = false
        /// `--authorization-challenge`: a first-party native app (public) that signs its users in
        /// at `/oauth/authorize-challenge` without a browser.
        public var authorizationChallenge = false
        /// `--ciba poll|ping`: may ask for a user's approval on their phone.
        public var cibaMode: String?
        /// `--notification-endpoint`: a ping client's, told when its request was answered.
        public var notificationEndpoint: String?

        /// Authenticates with its keys (`--jwks` or `--jwks-uri`), so it gets no secret.
        public var usesKeys: Bool { jwks != nil || jwksURI != nil }

        public init(id: String) { self.id = id }
    }

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public static let defaultScopes = ["openid", "profile", "email", "groups"]
    /// The scopes that ask for something of a user; any other scope token is an API scope, the
    /// client's own to give meaning to (docs/contracts/identity.md, "Machine and agent clients").
    public static let knownScopes: Set<String> = ["openid", "profile", "email", "groups", "offline_access", "passkey"]
    static let maximumScopeLength = 128
    static let maximumAudiences = 20
    public static let idTokenAlgorithms: Set<String> = ["RS256", "ES256"]
    public static let authenticationClasses: Set<String> = ["phr", "phrh"]
    /// 256 random bits (docs/contracts/identity.md: "≥ 256 random bits").
    static let secretBytes = 32
    static let maximumIDLength = 128
    static let maximumURILength = 2048

    let store: any OpenIDStore

    public init(store: any OpenIDStore) {
        self.store = store
    }

    /// Registers a client; returns it and, for a confidential client, its secret (shown only
    /// here; the store keeps its SHA-256).
    public func add(_ registration: Registration, now: Date, by actor: String = "command line") async throws -> (client: ClientRecord, secret: String?) {
        let checked = try Self.check(registration)
        let secret = checked.isPublic || checked.usesKeys ? nil : Base64URL.encode(SecureRandom.bytes(Self.secretBytes))
        let client = Self.record(checked, secretHash: secret.map(Self.secretHash), createdAt: now)
        let event = Self.event("client_added", at: now, ["client_id": checked.id, "by": actor])
        guard try await store.insertClient(client, event: event) else {
            throw Failure(description: "a client with the id \(checked.id) exists already")
        }
        return (client, secret)
    }

    public func list() async throws -> [ClientRecord] { try await store.clients() }

    public func show(_ id: String) async throws -> ClientRecord {
        guard let client = try await store.client(id: id) else { throw Failure(description: "no client has the id \(id)") }
        return client
    }

    /// A new secret for a confidential client; the old one stops working at once.
    public func rotateSecret(_ id: String) async throws -> (client: ClientRecord, secret: String) {
        let client = try await show(id)
        guard !client.isPublic else { throw Failure(description: "\(id) is a public client: it has no secret") }
        guard !client.usesKeys else { throw Failure(description: "\(id) signs its assertions with its keys (--jwks or --jwks-uri): it has no secret") }
        guard !client.messagesForBusiness else {
            throw Failure(description: "\(id) is the Messages for Business client: its secret is --mfb-client-secret, set at start-up")
        }
        let secret = Base64URL.encode(SecureRandom.bytes(Self.secretBytes))
        guard try await store.replaceClientSecret(id: id, secretHash: Self.secretHash(secret)) else {
            throw Failure(description: "no confidential client has the id \(id)")
        }
        return (client, secret)
    }

    /// The Messages for Business client (docs/contracts/mfb.md) as the serve flags describe it: added when
    /// absent, replaced when the flags changed, left as it is when they did not. Its values are
    /// checked as any client's; a client of that id that an operator registered is not taken over.
    public func registerMessagesForBusiness(
        id: String, secret: String, redirectURIs: [String], scopes: [String], now: Date
    ) async throws -> ClientRecord {
        var registration = Registration(id: id)
        registration.name = "Messages for Business"
        registration.redirectURIs = redirectURIs
        registration.scopes = scopes
        var client = Self.record(try Self.check(registration), secretHash: Self.secretHash(secret), messagesForBusiness: true, createdAt: now)
        func event(_ type: String) -> AuditEvent {
            AuditEvent(userHandle: [], type: type, at: now, ip: nil, userAgent: nil, details: ["client_id": id, "by": "--mfb-client-id"])
        }
        // Twice at most: another instance starting at the same moment may add it first.
        for _ in 0..<2 {
            guard let existing = try await store.client(id: id) else {
                if try await store.insertClient(client, event: event("client_added")) { return client }
                continue
            }
            guard existing.messagesForBusiness else {
                throw Failure(description: "\(id) is a client registered with `clients add`; give Messages for Business an id of its own")
            }
            client.createdAt = existing.createdAt
            if existing == client { return existing }
            if try await store.replaceClient(client, event: event("client_updated")) { return client }
        }
        throw Failure(description: "\(id) changed while it was being registered; start again")
    }

    /// The record of a checked registration.
    static func record(_ checked: Registration, secretHash: [UInt8]?, messagesForBusiness: Bool = false, createdAt: Date) -> ClientRecord {
        ClientRecord(
            id: checked.id, name: checked.name, isPublic: checked.isPublic, secretHash: secretHash,
            redirectURIs: checked.redirectURIs, postLogoutRedirectURIs: checked.postLogoutRedirectURIs,
            backchannelLogoutURI: checked.backchannelLogoutURI, scopes: checked.scopes, idTokenAlgorithm: checked.idTokenAlgorithm,
            introspection: checked.introspection, tokenExchange: checked.tokenExchange, allowedGroups: checked.allowedGroups,
            requiredACR: checked.requiredACR, deviceFlow: checked.deviceFlow, requirePAR: checked.requirePAR,
            refresh: checked.refresh, messagesForBusiness: messagesForBusiness, clientCredentials: checked.clientCredentials,
            audiences: checked.audiences, jwks: checked.jwks, jwksURI: checked.jwksURI, requireDPoP: checked.requireDPoP,
            authorizationChallenge: checked.authorizationChallenge, cibaMode: checked.cibaMode, notificationEndpoint: checked.notificationEndpoint,
            createdAt: createdAt)
    }

    /// Removes a client. (Its tokens go with it once the provider issues tokens.)
    public func remove(_ id: String, now: Date = Date()) async throws {
        let event = AuditEvent(userHandle: [], type: "client_removed", at: now, ip: nil, userAgent: nil, details: ["client_id": id, "by": "command line"])
        guard try await store.deleteClient(id: id, event: event) else { throw Failure(description: "no client has the id \(id)") }
    }

    /// An event of the server's clients (no account), with the client of the request that
    /// caused it, if any.
    static func event(_ type: String, at: Date, _ details: [String: String]) -> AuditEvent {
        AuditEvent(userHandle: [], type: type, at: at, ip: RequestClient.current?.address, userAgent: RequestClient.current?.userAgent, details: details)
    }

    /// Whether `secret` is the client's: its SHA-256 compared in constant time.
    public static func secretMatches(_ secret: String, client: ClientRecord) -> Bool {
        guard let stored = client.secretHash else { return false }
        return constantTimeEquals(secretHash(secret), stored)
    }

    static func secretHash(_ secret: String) -> [UInt8] { Digest.sha256.hash(Array(secret.utf8)) }

    // MARK: Checks

    /// Every check of a registration, in order; the registration as it will be stored.
    static func check(_ registration: Registration) throws(Failure) -> Registration {
        var checked = registration
        try checkID(registration.id)
        if let name = registration.name, !isDisplayText(name, maximum: 200) {
            throw Failure(description: "--name must be 1 to 200 characters without control characters")
        }
        checked.redirectURIs = try registration.redirectURIs.map { uri throws(Failure) in
            try checkRedirectURI(uri, isPublic: registration.isPublic, option: "--redirect-uri")
        }
        checked.postLogoutRedirectURIs = try registration.postLogoutRedirectURIs.map { uri throws(Failure) in
            try checkRedirectURI(uri, isPublic: registration.isPublic, option: "--post-logout-redirect-uri")
        }
        if let uri = registration.backchannelLogoutURI {
            // The server calls it: never a private-use scheme, whoever the client is.
            checked.backchannelLogoutURI = try checkRedirectURI(uri, isPublic: false, option: "--backchannel-logout-uri")
        }
        guard !checked.redirectURIs.isEmpty || registration.introspection || registration.tokenExchange || registration.deviceFlow
            || registration.clientCredentials || registration.cibaMode != nil
        else {
            throw Failure(
                description: "--redirect-uri is required unless the client only introspects, exchanges tokens, uses the device flow or CIBA, or gets client credentials")
        }
        try checkFirstParty(registration)
        checked.notificationEndpoint = try checkBackchannel(registration)
        try checkKeys(registration, into: &checked)
        if registration.clientCredentials, registration.isPublic {
            throw Failure(description: "--client-credentials needs a confidential client (a secret or keys), not --public")
        }
        checked.audiences = try checkAudiences(registration.audiences)
        checked.scopes = try checkScopes(registration.scopes)
        guard idTokenAlgorithms.contains(registration.idTokenAlgorithm) else {
            throw Failure(description: "--id-token-alg must be RS256 or ES256, not \(registration.idTokenAlgorithm)")
        }
        if let acr = registration.requiredACR, !authenticationClasses.contains(acr) {
            throw Failure(description: "--require-acr must be phr or phrh, not \(acr)")
        }
        for group in registration.allowedGroups where !isDisplayText(group, maximum: 64) {
            throw Failure(description: "--allowed-group must be 1 to 64 characters without control characters")
        }
        checked.allowedGroups = Array(Set(registration.allowedGroups)).sorted()
        return checked
    }

    /// `--authorization-challenge` is for a native app: a public client (PKCE), with a redirect
    /// URI for the browser flow it is sent to when a passkey cannot do.
    static func checkFirstParty(_ registration: Registration) throws(Failure) {
        guard registration.authorizationChallenge else { return }
        guard registration.isPublic else { throw Failure(description: "--authorization-challenge is for a --public client (a native app)") }
        guard !registration.redirectURIs.isEmpty else {
            throw Failure(description: "--authorization-challenge needs a --redirect-uri, for the browser flow it falls back to")
        }
    }

    /// `--ciba poll|ping`: a client that authenticates (a secret or keys); a ping client with a
    /// `--notification-endpoint` under the back-channel logout URI's rule (https, or http on
    /// loopback), and only a ping client with one. The endpoint as it will be stored.
    static func checkBackchannel(_ registration: Registration) throws(Failure) -> String? {
        guard let mode = registration.cibaMode else {
            if registration.notificationEndpoint != nil { throw Failure(description: "--notification-endpoint is for --ciba ping") }
            return nil
        }
        guard mode == "poll" || mode == "ping" else { throw Failure(description: "--ciba must be poll or ping, not \(mode.prefix(16))") }
        guard !registration.isPublic else { throw Failure(description: "--ciba needs a confidential client (a secret or keys), not --public") }
        switch (mode, registration.notificationEndpoint) {
        case ("ping", nil): throw Failure(description: "--ciba ping needs a --notification-endpoint")
        case ("poll", .some): throw Failure(description: "--notification-endpoint is for --ciba ping")
        case (_, let uri?): return try checkRedirectURI(uri, isPublic: false, option: "--notification-endpoint")
        default: return nil
        }
    }

    /// 1 to `maximum` characters, none of them a control character: a name or a group.
    static func isDisplayText(_ text: String, maximum: Int) -> Bool {
        !text.isEmpty && text.count <= maximum && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// 1 to 128 characters of RFC 3986's unreserved set, so the id needs no escaping anywhere.
    static func checkID(_ id: String) throws(Failure) {
        guard (1...maximumIDLength).contains(id.utf8.count),
              isUnreserved(id)
        else {
            throw Failure(description: "--id must be 1 to \(maximumIDLength) of A–Z, a–z, 0–9, '-', '.', '_', '~', not \(id.prefix(64))")
        }
    }

    /// An absolute URI without a fragment (RFC 6749 §3.1.2), at most 2 KiB, and: `https` with a
    /// host; `http` only on a loopback host (127.0.0.1, [::1], localhost; RFC 8252 §7.3); a
    /// private-use scheme (`com.example.app:/cb`, with a dot, RFC 8252 §7.1) only for a public
    /// client. Returned as given: redirect URIs are compared as exact strings.
    static func checkRedirectURI(_ uri: String, isPublic: Bool, option: String) throws(Failure) -> String {
        guard uri.utf8.count <= maximumURILength, !uri.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }),
              let components = URLComponents(string: uri), let scheme = components.scheme
        else {
            throw Failure(description: "\(option) \(uri.prefix(64)) is not an absolute URI of at most \(maximumURILength) visible ASCII characters")
        }
        guard components.fragment == nil, !uri.contains("#") else {
            throw Failure(description: "\(option) \(uri.prefix(64)) has a fragment, which a redirect URI must not have")
        }
        switch scheme {
        case "https":
            guard let host = components.host, !host.isEmpty else { throw Failure(description: "\(option) \(uri.prefix(64)) has no host") }
        case "http":
            guard let host = components.host, isLoopbackHost(host) else {
                throw Failure(description: "\(option) \(uri.prefix(64)): http is allowed only on a loopback host (127.0.0.1, [::1], localhost)")
            }
        default:
            guard isPublic else {
                throw Failure(description: "\(option) \(uri.prefix(64)): a confidential client's URIs are https (or http on loopback)")
            }
            guard scheme.contains("."), scheme == scheme.lowercased() else {
                throw Failure(description: "\(option) \(uri.prefix(64)): a private-use scheme is a reversed domain name (com.example.app)")
            }
        }
        return uri
    }

    /// Scope tokens (RFC 6749 §3.3: visible ASCII but `"` and `\\`, at most 128 bytes here),
    /// each once: the user scopes, and API scopes for the client's own tokens.
    static func checkScopes(_ scopes: [String]) throws(Failure) -> [String] {
        let words = scopes.flatMap { $0.split(separator: " ").map(String.init) }
        guard !words.isEmpty else { throw Failure(description: "--scope must name at least one scope") }
        if let bad = words.first(where: { !isScopeToken($0) }) {
            throw Failure(description: "--scope: \(bad.prefix(32)) is not a scope token (1 to \(maximumScopeLength) visible ASCII characters but \" and \\\\)")
        }
        var seen = Set<String>()
        return words.filter { seen.insert($0).inserted }
    }

    /// RFC 6749 §3.3's scope-token: 1*( %x21 / %x23-5B / %x5D-7E ), here at most 128 bytes.
    static func isScopeToken(_ word: some StringProtocol) -> Bool {
        (1...maximumScopeLength).contains(word.utf8.count)
            && word.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// An API scope: a scope token that asks nothing of a user.
    public static func isAPIScope(_ scope: String) -> Bool { !knownScopes.contains(scope) }

    /// RFC 8707 §2: each `--audience` an absolute URI without a fragment, at most 2 KiB of
    /// visible ASCII; each once, at most 20.
    static func checkAudiences(_ audiences: [String]) throws(Failure) -> [String] {
        guard audiences.count <= maximumAudiences else { throw Failure(description: "at most \(maximumAudiences) --audience values") }
        for audience in audiences where !isResourceURI(audience) {
            throw Failure(description: "--audience \(audience.prefix(64)) is not an absolute URI without a fragment (RFC 8707)")
        }
        var seen = Set<String>()
        return audiences.filter { seen.insert($0).inserted }
    }

    /// An RFC 8707 resource indicator: an absolute URI (RFC 3986 §4.3: a scheme and more,
    /// `https://api.example/` or `urn:example:api`), no fragment.
    public static func isResourceURI(_ text: String) -> Bool {
        guard text.utf8.count <= maximumURILength, !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }),
              !text.contains("#"), let components = URLComponents(string: text), components.scheme != nil, !components.path.isEmpty || components.host?.isEmpty == false
        else { return false }
        return true
    }

    /// `--jwks` and `--jwks-uri`, one or neither: a key set of at least one usable public signing
    /// key (stored as its public members only), or an `https` URL (`http` only on a loopback
    /// host, for tests; where it may be fetched from is the server's `--client-metadata-hosts`).
    static func checkKeys(_ registration: Registration, into checked: inout Registration) throws(Failure) {
        if registration.jwks != nil, registration.jwksURI != nil { throw Failure(description: "give --jwks or --jwks-uri, not both") }
        if registration.usesKeys, registration.isPublic {
            throw Failure(description: "--jwks and --jwks-uri are for confidential clients, not --public")
        }
        if let text = registration.jwks {
            let set: JWKSet
            do throws(JOSEError) { set = try JWKSet(json: Array(text.utf8)) } catch { throw Failure(description: "--jwks: \(error.reason)") }
            guard !set.keys.isEmpty else {
                throw Failure(description: "--jwks has no usable public signing key\(set.skipped.isEmpty ? "" : ": " + set.skipped.joined(separator: "; "))")
            }
            checked.jwks = String(decoding: set.json.encoded(), as: UTF8.self)
        }
        if let uri = registration.jwksURI {
            guard uri.utf8.count <= maximumURILength, let components = URLComponents(string: uri), components.fragment == nil,
                  let host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
                  components.scheme == "https" || (components.scheme == "http" && isLoopbackHost(host))
            else {
                throw Failure(description: "--jwks-uri \(uri.prefix(64)) must be an https URL (http only on a loopback host), without a fragment or credentials")
            }
        }
    }

    static func isLoopbackHost(_ host: String) -> Bool { ["127.0.0.1", "[::1]", "::1", "localhost"].contains(host.lowercased()) }

    /// Whether every byte of `text` is in RFC 3986's unreserved set (A–Z a–z 0–9 - . _ ~): a
    /// client id, a PKCE challenge (RFC 7636 §4.1).
    static func isUnreserved(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "-._~".utf8.contains(byte)
        }
    }

    // MARK: JSON (the command line's lines, the admin API)
}
