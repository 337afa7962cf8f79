internal import Foundation
public import PasskeyJSON

/// A registration request's client metadata (RFC 7591 §2), read as strictly as `clients add`
/// reads its flags: each member we use is checked for its kind and value, the members that only
/// describe the client (`client_uri`, `logo_uri`, `contacts`, …) must be of their kind and are
/// not kept (a logo is never fetched), and members we do not know are ignored (RFC 7591 §2).
/// A redirect URI that fails is `invalid_redirect_uri`; anything else `invalid_client_metadata`.
public struct ClientMetadata: Sendable {
    /// RFC 7591 §2's `token_endpoint_auth_method` values a self-registered client may use.
    public enum AuthMethod: String, Sendable, CaseIterable {
        case none
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
        case privateKeyJWT = "private_key_jwt"
    }

    /// What the request asks for, as `clients add` would be asked.
    public let registration: ClientRegistry.Registration
    public let authMethod: AuthMethod

    /// The grants a self-registered client may have: a code, and refreshing it. Anything else
    /// (client credentials, the device flow, token exchange) is for an admin to give.
    static let grantTypes: Set<String> = ["authorization_code", "refresh_token"]
    static let maximumRedirectURIs = 20
    /// The members that only describe the client: checked for their kind, not kept.
    static let descriptive: [String: Kind] = [
        "client_uri": .string, "logo_uri": .string, "tos_uri": .string, "policy_uri": .string, "software_id": .string,
        "software_version": .string, "software_statement": .string, "contacts": .strings,
    ]
    /// The members a client may not ask for: the server calls them, or gives them itself.
    static let refused: Set<String> = ["backchannel_logout_uri", "client_secret", "client_id"]

    enum Kind { case string, strings }

    /// Reads the metadata object `body` for a client that will have the id `id`.
    public static func read(_ body: [String: JSONValue], id: String) throws(OAuthError) -> ClientMetadata {
        let fields: JSONFields
        do { fields = try JSONFields(.object(body)) } catch { throw invalid("the body must be a JSON object") }
        for (name, kind) in descriptive.sorted(by: { $0.key < $1.key }) {
            try checkKind(fields, name, kind)
        }
        if let name = refused.sorted().first(where: { fields.members[$0] != nil && fields.members[$0] != .null }) {
            throw invalid("\(name) is not something a client may register")
        }
        let method = try authMethod(fields)
        var registration = ClientRegistry.Registration(id: id)
        registration.isPublic = method == .none
        registration.name = try string(fields, "client_name")
        if let name = registration.name, !ClientRegistry.isDisplayText(name, maximum: 200) {
            throw invalid("client_name must be 1 to 200 characters without control characters")
        }
        registration.redirectURIs = try redirectURIs(fields, "redirect_uris", isPublic: registration.isPublic)
        guard !registration.redirectURIs.isEmpty else { throw OAuthError("invalid_redirect_uri", "redirect_uris must list at least one URI") }
        registration.postLogoutRedirectURIs = try redirectURIs(fields, "post_logout_redirect_uris", isPublic: registration.isPublic)
        let grants = try strings(fields, "grant_types") ?? ["authorization_code"]
        if let other = grants.first(where: { !grantTypes.contains($0) }) {
            throw invalid("grant_types: \(other.prefix(64)) is not offered to a client that registers itself")
        }
        guard grants.contains("authorization_code") else { throw invalid("grant_types must include authorization_code") }
        registration.refresh = grants.contains("refresh_token")
        if let responses = try strings(fields, "response_types"), responses != ["code"] {
            throw invalid("response_types must be [\"code\"]: only the code flow is offered")
        }
        if let scope = try string(fields, "scope") {
            let words = scope.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            if let other = words.first(where: { !ClientRegistry.knownScopes.contains($0) }) {
                throw invalid("scope: \(other.prefix(64)) is not a user scope (\(ClientRegistry.knownScopes.sorted().joined(separator: " ")))")
            }
            registration.scopes = words
        }
        if let algorithm = try string(fields, "id_token_signed_response_alg") {
            guard ClientRegistry.idTokenAlgorithms.contains(algorithm) else { throw invalid("id_token_signed_response_alg must be RS256 or ES256") }
            registration.idTokenAlgorithm = algorithm
        }
        registration.requireDPoP = try bool(fields, "dpop_bound_access_tokens") ?? false
        try readKeys(fields, method: method, into: &registration)
        // The registry's own checks last, as for every other way of adding a client.
        do throws(ClientRegistry.Failure) {
            return ClientMetadata(registration: try ClientRegistry.check(registration), authMethod: method)
        } catch {
            throw invalid(error.description)
        }
    }

    static func authMethod(_ fields: JSONFields) throws(OAuthError) -> AuthMethod {
        guard let text = try string(fields, "token_endpoint_auth_method") else { return .clientSecretBasic }
        guard let method = AuthMethod(rawValue: text) else {
            throw invalid("token_endpoint_auth_method must be one of \(AuthMethod.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return method
    }

    /// `jwks` or `jwks_uri`, for `private_key_jwt` only, which needs one of them.
    static func readKeys(_ fields: JSONFields, method: AuthMethod, into registration: inout ClientRegistry.Registration) throws(OAuthError) {
        let set = fields.members["jwks"].flatMap { $0 == .null ? nil : $0 }
        let uri = try string(fields, "jwks_uri")
        guard method == .privateKeyJWT else {
            if set != nil || uri != nil { throw invalid("jwks and jwks_uri are only for token_endpoint_auth_method private_key_jwt") }
            return
        }
        if let set {
            guard case .object = set else { throw invalid("jwks must be a key set object") }
            registration.jwks = String(decoding: set.encoded(), as: UTF8.self)
        }
        registration.jwksURI = uri
        guard registration.usesKeys else { throw invalid("private_key_jwt needs jwks or jwks_uri") }
    }

    /// Each URI as `clients add --redirect-uri` checks it; `invalid_redirect_uri` otherwise.
    static func redirectURIs(_ fields: JSONFields, _ name: String, isPublic: Bool) throws(OAuthError) -> [String] {
        let uris = try strings(fields, name) ?? []
        guard uris.count <= maximumRedirectURIs else { throw OAuthError("invalid_redirect_uri", "\(name) may list at most \(maximumRedirectURIs) URIs") }
        return try uris.map { uri throws(OAuthError) in
            do throws(ClientRegistry.Failure) { return try ClientRegistry.checkRedirectURI(uri, isPublic: isPublic, option: name) } catch {
                throw OAuthError("invalid_redirect_uri", error.description)
            }
        }
    }

    static func checkKind(_ fields: JSONFields, _ name: String, _ kind: Kind) throws(OAuthError) {
        switch kind {
        case .string: _ = try string(fields, name)
        case .strings: _ = try strings(fields, name)
        }
    }

    static func string(_ fields: JSONFields, _ name: String) throws(OAuthError) -> String? {
        do { return try fields.optionalString(name) } catch { throw invalid("\(name) must be a string") }
    }

    static func strings(_ fields: JSONFields, _ name: String) throws(OAuthError) -> [String]? {
        do { return try fields.optionalStrings(name) } catch { throw invalid("\(name) must be an array of strings") }
    }

    static func bool(_ fields: JSONFields, _ name: String) throws(OAuthError) -> Bool? {
        do { return try fields.optionalBool(name) } catch { throw invalid("\(name) must be true or false") }
    }

    static func invalid(_ description: String) -> OAuthError { OAuthError("invalid_client_metadata", description) }
}
