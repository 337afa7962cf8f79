public import Foundation
internal import PasskeyCrypto
public import PasskeyJSON
public import PasskeyStorage

/// Dynamic client registration (RFC 7591) and its management (RFC 7592), behind
/// `--dynamic-registration` (docs/contracts/identity.md, "Machine and agent clients").
///
/// | Step | What happens | Function |
/// |---|---|---|
/// | 1 | `POST /oauth/register`: off is 404; the address's registrations counted | `register`, `checkRegistrationRate` |
/// | 2 | The initial access token: required for `token`, optional for `open` (without one the client waits) | `initialToken` |
/// | 3 | The metadata read and checked as `clients add` checks flags | `ClientMetadata.read` |
/// | 4 | Stored with its secret's and registration access token's hashes, the initial token spent in the same transaction | `register` |
/// | 5 | `GET`, `PUT`, `DELETE /oauth/register/{id}` with the registration access token | `registeredClient`, `updateRegisteredClient`, `deleteRegisteredClient` |
extension OpenIDProvider {
    /// Registrations one address may make in an hour, counted on every instance.
    static let registrationsPerHour = 20
    static let initialTokenPrefix = "pki_"
    static let registrationTokenPrefix = "pkr_"
    /// A self-registered client's id begins with it: never with a "-", which the command line
    /// (`clients approve ID`) would take for an option, and told apart from the operator's at a glance.
    static let registeredClientPrefix = "pkc_"

    /// `POST /oauth/register`: the new client's information (RFC 7591 §3.2.1, RFC 7592 §3), with
    /// its secret and registration access token, shown only here.
    public func register(_ body: [String: JSONValue], initialToken: String?) async throws -> JSONValue {
        let mode = configuration.dynamicRegistration
        guard mode != .off else { throw APIError.notFound }
        let at = now()
        try await checkRegistrationRate(at: at)
        let spending = try initialTokenHash(initialToken, mode: mode)
        let id = Self.registeredClientPrefix + Base64URL.encode(SecureRandom.bytes(16))
        let metadata = try ClientMetadata.read(body, id: id)
        let secret = metadata.registration.isPublic || metadata.registration.usesKeys ? nil : Base64URL.encode(SecureRandom.bytes(ClientRegistry.secretBytes))
        let accessToken = Self.registrationTokenPrefix + Base64URL.encode(SecureRandom.bytes(32))
        var client = ClientRegistry.record(metadata.registration, secretHash: secret.map(ClientRegistry.secretHash), createdAt: at)
        client.kind = .registered
        client.pending = spending == nil
        client.registrationTokenHash = ClientRegistry.secretHash(accessToken)
        let event = context.event([], "client_registered", at: at, [
            "client_id": id, "status": ClientRegistry.status(client), "by": spending == nil ? "open registration" : "initial access token",
        ])
        guard try await store.registerClient(client, spending: spending, now: at, event: event) else {
            throw OAuthError.invalidToken("the initial access token is unknown, spent or expired")
        }
        return information(client, method: metadata.authMethod, secret: secret, accessToken: accessToken)
    }

    /// `GET /oauth/register/{id}` (RFC 7592 §2.1): the client's information as registered.
    public func registeredClient(_ id: String, token: String?) async throws -> JSONValue {
        let client = try await managedClient(id, token: token)
        return information(client, method: Self.authMethod(client), secret: nil, accessToken: nil)
    }

    /// `PUT /oauth/register/{id}` (RFC 7592 §2.2): the metadata replaced whole (an omitted member
    /// is removed), the id, secret, token and authentication method kept. Under `open`, an
    /// approved client that changes where its codes go waits for an admin again.
    public func updateRegisteredClient(_ id: String, token: String?, body: [String: JSONValue]) async throws -> JSONValue {
        let client = try await managedClient(id, token: token)
        var metadataBody = body
        guard case .string(id)? = metadataBody.removeValue(forKey: "client_id") else {
            throw OAuthError("invalid_client_metadata", "client_id must be given, and be this client's")
        }
        if case .string(let secret)? = metadataBody.removeValue(forKey: "client_secret"), !ClientRegistry.secretMatches(secret, client: client) {
            throw OAuthError("invalid_client_metadata", "client_secret is not this client's; a client cannot choose its secret")
        }
        // RFC 7592 §2.2: values the server gave; a client that sends them back changes nothing.
        for name in ["registration_access_token", "registration_client_uri", "client_secret_expires_at", "client_id_issued_at"] {
            metadataBody.removeValue(forKey: name)
        }
        let metadata = try ClientMetadata.read(metadataBody, id: id)
        let method = Self.authMethod(client)
        guard metadata.authMethod == method || (Self.secretMethods.contains(metadata.authMethod) && Self.secretMethods.contains(method)) else {
            throw OAuthError("invalid_client_metadata", "token_endpoint_auth_method cannot change from \(method.rawValue); register a new client")
        }
        var updated = ClientRegistry.record(metadata.registration, secretHash: client.secretHash, createdAt: client.createdAt)
        Self.keepAdminSettings(of: client, in: &updated)
        updated.kind = client.kind
        updated.registrationTokenHash = client.registrationTokenHash
        updated.pending = client.pending
            || (configuration.dynamicRegistration == .open && (updated.redirectURIs != client.redirectURIs || updated.jwksURI != client.jwksURI))
        let event = context.event([], "client_updated", at: now(), ["client_id": id, "by": "registration management"])
        guard try await store.replaceClient(updated, event: event) else { throw Self.managementRefusal }
        return information(updated, method: metadata.authMethod, secret: nil, accessToken: nil)
    }

    /// `DELETE /oauth/register/{id}` (RFC 7592 §2.3): the client and its grants are gone.
    public func deleteRegisteredClient(_ id: String, token: String?) async throws {
        _ = try await managedClient(id, token: token)
        let event = context.event([], "client_removed", at: now(), ["client_id": id, "by": "registration management"])
        guard try await store.deleteClient(id: id, event: event) else { throw Self.managementRefusal }
    }

    /// What only an admin sets on a self-registered client (its grants, audiences and policy)
    /// survives the client's own update, which cannot name them.
    static func keepAdminSettings(of client: ClientRecord, in updated: inout ClientRecord) {
        updated.introspection = client.introspection
        updated.tokenExchange = client.tokenExchange
        updated.clientCredentials = client.clientCredentials
        updated.audiences = client.audiences
        updated.allowedGroups = client.allowedGroups
        updated.requiredACR = client.requiredACR
        updated.deviceFlow = client.deviceFlow
        updated.requirePAR = client.requirePAR
    }

    // MARK: Checks

    /// Per address, on every instance: a flood of registrations is 429.
    func checkRegistrationRate(at: Date) async throws {
        let address = RequestClient.current?.address ?? "unknown"
        try await SharedLimit(store: store, limit: Self.registrationsPerHour, window: 3600).take(["register:" + address], now: at)
    }

    /// The hash of the initial access token to spend: required under `token`; under `open`, one
    /// that is given is spent (and the client does not wait), none lets the client wait.
    func initialTokenHash(_ token: String?, mode: DynamicRegistrationMode) throws -> [UInt8]? {
        guard let token else {
            if mode == .token { throw AccessTokenMissing() }
            return nil
        }
        guard token.hasPrefix(Self.initialTokenPrefix), token.utf8.count <= 128 else {
            throw OAuthError.invalidToken("the initial access token is unknown, spent or expired")
        }
        return ClientRegistry.secretHash(token)
    }

    static let managementRefusal = OAuthError.invalidToken("the registration access token is not this client's")
    static let secretMethods: Set<ClientMetadata.AuthMethod> = [.clientSecretBasic, .clientSecretPost]

    /// The client a registration access token manages. Unknown client, a client that did not
    /// register itself, or another client's token: the same 401 (RFC 7592 §2.1).
    func managedClient(_ id: String, token: String?) async throws -> ClientRecord {
        guard let token else { throw AccessTokenMissing() }
        guard id.utf8.count <= ClientRegistry.maximumIDLength, token.utf8.count <= 128, let client = try await store.client(id: id),
              let stored = client.registrationTokenHash, constantTimeEquals(ClientRegistry.secretHash(token), stored)
        else { throw Self.managementRefusal }
        return client
    }

    static func authMethod(_ client: ClientRecord) -> ClientMetadata.AuthMethod {
        client.isPublic ? .none : client.usesKeys ? .privateKeyJWT : .clientSecretBasic
    }

    /// RFC 7591 §3.2.1's client information response, with RFC 7592 §3's members, and `status`
    /// (`active` or `pending`).
    func information(_ client: ClientRecord, method: ClientMetadata.AuthMethod, secret: String?, accessToken: String?) -> JSONValue {
        var object: [String: JSONValue] = [
            "client_id": .string(client.id), "client_id_issued_at": .integer(Int64(client.createdAt.timeIntervalSince1970)),
            "registration_client_uri": .string(issuer + "/oauth/register/" + client.id),
            "redirect_uris": .array(client.redirectURIs.map(JSONValue.string)), "token_endpoint_auth_method": .string(method.rawValue),
            "grant_types": .array((Self.getsRefreshTokens(client) ? ["authorization_code", "refresh_token"] : ["authorization_code"]).map(JSONValue.string)),
            "response_types": .array([.string("code")]), "scope": .string(client.scopes.joined(separator: " ")),
            "id_token_signed_response_alg": .string(client.idTokenAlgorithm), "dpop_bound_access_tokens": .bool(client.requireDPoP),
            "status": .string(ClientRegistry.status(client)),
        ]
        if let name = client.name { object["client_name"] = .string(name) }
        if !client.postLogoutRedirectURIs.isEmpty { object["post_logout_redirect_uris"] = .array(client.postLogoutRedirectURIs.map(JSONValue.string)) }
        if let jwks = client.jwks, let set = JSONValue.strictObject(Array(jwks.utf8)) { object["jwks"] = .object(set) }
        if let uri = client.jwksURI { object["jwks_uri"] = .string(uri) }
        if let secret {
            object["client_secret"] = .string(secret)
            object["client_secret_expires_at"] = .integer(0)
        }
        if let accessToken { object["registration_access_token"] = .string(accessToken) }
        return .object(object)
    }
}

/// What admins do for clients that register themselves: hand out initial access tokens, and
/// approve an open registration.
public struct RegistrationAdministration: Sendable {
    let store: any ClientRegistrationStore & OpenIDStore
    /// An initial access token lasts a day unless asked otherwise, at most 30 days.
    public static let defaultLifetime: TimeInterval = 86_400
    public static let lifetimes: ClosedRange<Int> = 60...2_592_000

    public init(store: any ClientRegistrationStore & OpenIDStore) {
        self.store = store
    }

    /// A new initial access token (one registration, until `expiresAt`): shown only here, kept
    /// as its SHA-256.
    public func makeInitialToken(by actor: String, lifetime: TimeInterval = defaultLifetime, now: Date) async throws -> (token: String, expiresAt: Date) {
        let token = OpenIDProvider.initialTokenPrefix + Base64URL.encode(SecureRandom.bytes(32))
        let expiresAt = now.addingTimeInterval(lifetime)
        let event = ClientRegistry.event("registration_token_created", at: now, ["by": actor, "expires_at": ISO8601DateFormatter().string(from: expiresAt)])
        try await store.insertRegistrationToken(
            RegistrationTokenRecord(tokenHash: ClientRegistry.secretHash(token), createdBy: actor, createdAt: now, expiresAt: expiresAt), event: event)
        return (token, expiresAt)
    }

    /// Ends an open registration's wait; the client as it now is. An active client is left as
    /// it is; an unknown one is `Failure`.
    public func approve(_ id: String, by actor: String, now: Date) async throws -> ClientRecord {
        let event = ClientRegistry.event("client_approved", at: now, ["client_id": id, "by": actor])
        _ = try await store.approveClient(id: id, event: event)
        guard let client = try await store.client(id: id) else { throw ClientRegistry.Failure(description: "no client has the id \(id)") }
        return client
    }
}
