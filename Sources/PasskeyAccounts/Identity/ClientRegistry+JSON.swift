public import Foundation
public import PasskeyJSON
public import PasskeyStorage

/// A client as JSON: what `clients list` prints and the admin API answers, and the admin API's
/// (and the clients file's) registration read back from it.
extension ClientRegistry {
    /// A client as `clients list` prints it and the admin API answers it; `client_secret` only
    /// when given (at creation and rotation).
    public static func json(_ client: ClientRecord, secret: String?) -> JSONValue {
        var object: [String: JSONValue] = [
            "client_id": .string(client.id), "public": .bool(client.isPublic),
            "redirect_uris": .array(client.redirectURIs.map(JSONValue.string)),
            "post_logout_redirect_uris": .array(client.postLogoutRedirectURIs.map(JSONValue.string)),
            "scope": .string(client.scopes.joined(separator: " ")), "id_token_alg": .string(client.idTokenAlgorithm),
            "introspection": .bool(client.introspection), "token_exchange": .bool(client.tokenExchange),
            "allowed_groups": .array(client.allowedGroups.map(JSONValue.string)), "device_flow": .bool(client.deviceFlow),
            "require_par": .bool(client.requirePAR), "refresh": .bool(OpenIDProvider.getsRefreshTokens(client)),
            "client_credentials": .bool(client.clientCredentials), "audiences": .array(client.audiences.map(JSONValue.string)),
            "require_dpop": .bool(client.requireDPoP), "kind": .string(client.kind.rawValue), "status": .string(Self.status(client)),
            "authorization_challenge": .bool(client.authorizationChallenge),
            "token_endpoint_auth_method": .string(OpenIDProvider.authMethod(client).rawValue),
            "created_at": .string(ISO8601DateFormatter().string(from: client.createdAt)),
        ]
        if let name = client.name { object["name"] = .string(name) }
        if let uri = client.backchannelLogoutURI { object["backchannel_logout_uri"] = .string(uri) }
        if let acr = client.requiredACR { object["require_acr"] = .string(acr) }
        if let secret { object["client_secret"] = .string(secret) }
        if client.messagesForBusiness { object["messages_for_business"] = .bool(true) }
        if client.fromClientsFile { object["clients_file"] = .bool(true) }
        if let jwks = client.jwks, let set = JSONValue.strictObject(Array(jwks.utf8)) { object["jwks"] = .object(set) }
        if let uri = client.jwksURI { object["jwks_uri"] = .string(uri) }
        if let mode = client.cibaMode { object["ciba"] = .string(mode) }
        if let uri = client.notificationEndpoint { object["notification_endpoint"] = .string(uri) }
        return .object(object)
    }

    /// `active`, or `pending` for an open registration not yet approved.
    static func status(_ client: ClientRecord) -> String { client.pending ? "pending" : "active" }

    /// A registration from the admin API's JSON, with the members `json` writes; an unknown
    /// member or a value of the wrong type is `invalid_request`. `add` then checks the values.
    public static func registration(json body: [String: JSONValue]) throws(APIError) -> Registration {
        let known: Set<String> = [
            "client_id", "name", "public", "redirect_uris", "post_logout_redirect_uris", "backchannel_logout_uri", "scope", "id_token_alg",
            "introspection", "token_exchange", "allowed_groups", "require_acr", "device_flow", "require_par", "refresh",
            "client_credentials", "audiences", "jwks", "jwks_uri", "require_dpop", "kind", "status", "authorization_challenge", "ciba",
            "notification_endpoint",
        ]
        if let unknown = JSONFields.firstUnknownMember(of: body, known: known) {
            throw APIError.invalidRequest("\(unknown.prefix(32)) is not a member of a client.")
        }
        func string(_ key: String) throws(APIError) -> String? {
            guard let value = body[key] else { return nil }
            guard case .string(let text) = value else { throw APIError.invalidRequest("\(key) must be a string.") }
            return text
        }
        func flag(_ key: String) throws(APIError) -> Bool {
            guard let value = body[key] else { return false }
            guard case .bool(let flag) = value else { throw APIError.invalidRequest("\(key) must be true or false.") }
            return flag
        }
        func strings(_ key: String) throws(APIError) -> [String] {
            guard let value = body[key] else { return [] }
            guard case .array(let items) = value, items.count <= 100 else { throw APIError.invalidRequest("\(key) must be an array of strings.") }
            var texts: [String] = []
            for item in items {
                guard case .string(let text) = item else { throw APIError.invalidRequest("\(key) must be an array of strings.") }
                texts.append(text)
            }
            return texts
        }
        // What `clients list` prints of an operator's client, so that its lines can be given back.
        if let kind = try string("kind"), kind != ClientKind.byOperator.rawValue {
            throw APIError.invalidRequest("kind must be operator: clients of other kinds register themselves.")
        }
        if let status = try string("status"), status != "active" { throw APIError.invalidRequest("status must be active.") }
        guard let id = try string("client_id") else { throw APIError.invalidRequest("client_id is required.") }
        var registration = Registration(id: id)
        registration.name = try string("name")
        registration.isPublic = try flag("public")
        registration.redirectURIs = try strings("redirect_uris")
        registration.postLogoutRedirectURIs = try strings("post_logout_redirect_uris")
        registration.backchannelLogoutURI = try string("backchannel_logout_uri")
        if let scope = try string("scope") { registration.scopes = scope.split(separator: " ").map(String.init) }
        if let algorithm = try string("id_token_alg") { registration.idTokenAlgorithm = algorithm }
        registration.introspection = try flag("introspection")
        registration.tokenExchange = try flag("token_exchange")
        registration.allowedGroups = try strings("allowed_groups")
        registration.requiredACR = try string("require_acr")
        registration.deviceFlow = try flag("device_flow")
        registration.requirePAR = try flag("require_par")
        registration.refresh = try flag("refresh")
        registration.clientCredentials = try flag("client_credentials")
        registration.audiences = try strings("audiences")
        if let value = body["jwks"] {
            guard case .object = value else { throw APIError.invalidRequest("jwks must be a key set object.") }
            registration.jwks = String(decoding: value.encoded(), as: UTF8.self)
        }
        registration.jwksURI = try string("jwks_uri")
        registration.requireDPoP = try flag("require_dpop")
        registration.authorizationChallenge = try flag("authorization_challenge")
        registration.cibaMode = try string("ciba")
        registration.notificationEndpoint = try string("notification_endpoint")
        return registration
    }
}
