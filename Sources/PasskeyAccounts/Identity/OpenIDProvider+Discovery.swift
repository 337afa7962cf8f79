internal import Foundation
internal import PasskeyCore
public import PasskeyJSON
internal import PasskeyStorage

/// The discovery document (OpenID Connect Discovery 1.0; docs/contracts/identity.md, "Discovery and keys").
extension OpenIDProvider {
    // MARK: Discovery

    /// `GET /.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3), listing only
    /// what this server does.
    public func discovery() -> [String: JSONValue] {
        let base = issuer
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        return [
            "issuer": .string(base),
            "authorization_endpoint": .string(base + "/oauth/authorize"),
            "token_endpoint": .string(base + "/oauth/token"),
            "userinfo_endpoint": .string(base + "/oauth/userinfo"),
            "jwks_uri": .string(base + "/oauth/jwks"),
            "revocation_endpoint": .string(base + "/oauth/revoke"),
            "end_session_endpoint": .string(base + "/oauth/logout"),
            "introspection_endpoint": .string(base + "/oauth/introspect"),
            "pushed_authorization_request_endpoint": .string(base + "/oauth/par"),
            "device_authorization_endpoint": .string(base + "/oauth/device"),
            "response_types_supported": strings(["code"]),
            "response_modes_supported": strings(["query", "form_post"]),
            "grant_types_supported": strings(["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange", Self.deviceCodeGrant]),
            "subject_types_supported": strings(["public"]),
            "id_token_signing_alg_values_supported": strings(SigningKeys.algorithms.map(\.rawValue)),
            "token_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post", "none"]),
            "revocation_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post", "none"]),
            "introspection_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post"]),
            "code_challenge_methods_supported": strings(["S256"]),
            "scopes_supported": strings(["openid", "profile", "email", "groups", "offline_access", "passkey"]),
            "claims_supported": strings([
                "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "sid", "at_hash", "preferred_username", "name", "updated_at",
                "email", "email_verified", "groups", "passkey",
            ]),
            "acr_values_supported": strings(["phrh", "phr"]),
            "prompt_values_supported": strings(["none", "login", "consent", "select_account"]),
            "claims_parameter_supported": .bool(false),
            "request_parameter_supported": .bool(false),
            "request_uri_parameter_supported": .bool(false),
            "authorization_response_iss_parameter_supported": .bool(true),
            "backchannel_logout_supported": .bool(true),
            "backchannel_logout_session_supported": .bool(true),
        ]
    }
}
