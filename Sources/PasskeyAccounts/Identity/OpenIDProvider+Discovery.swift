internal import PasskeyJOSE

/// The discovery document (OpenID Connect Discovery 1.0; docs/contracts/identity.md, "Discovery and keys").
extension OpenIDProvider {
    // MARK: Discovery

    /// `GET /.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3), listing only
    /// what this server does.
    public func discovery() -> DiscoveryDocument {
        let base = issuer
        return DiscoveryDocument(
            issuer: base,
            authorizationEndpoint: base + "/oauth/authorize",
            tokenEndpoint: base + "/oauth/token",
            userinfoEndpoint: base + "/oauth/userinfo",
            jwksURI: base + "/oauth/jwks",
            revocationEndpoint: base + "/oauth/revoke",
            endSessionEndpoint: base + "/oauth/logout",
            introspectionEndpoint: base + "/oauth/introspect",
            pushedAuthorizationRequestEndpoint: base + "/oauth/par",
            deviceAuthorizationEndpoint: base + "/oauth/device",
            responseTypesSupported: ["code"],
            responseModesSupported: ["query", "form_post"],
            grantTypesSupported: [
                "authorization_code", "refresh_token", "client_credentials", Self.tokenExchangeGrant, Self.deviceCodeGrant, Self.cibaGrant,
            ],
            subjectTypesSupported: ["public"],
            idTokenSigningAlgValuesSupported: SigningKeys.algorithms.map(\.rawValue),
            tokenEndpointAuthMethodsSupported: ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"],
            revocationEndpointAuthMethodsSupported: ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"],
            introspectionEndpointAuthMethodsSupported: ["client_secret_basic", "client_secret_post", "private_key_jwt"],
            tokenEndpointAuthSigningAlgValuesSupported: Self.assertionAlgorithms,
            revocationEndpointAuthSigningAlgValuesSupported: Self.assertionAlgorithms,
            introspectionEndpointAuthSigningAlgValuesSupported: Self.assertionAlgorithms,
            dpopSigningAlgValuesSupported: Self.dpopAlgorithms,
            codeChallengeMethodsSupported: ["S256"],
            scopesSupported: ["openid", "profile", "email", "groups", "offline_access", "passkey"],
            claimsSupported: [
                "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "sid", "at_hash", "preferred_username", "name", "updated_at",
                "email", "email_verified", "groups", "passkey",
            ],
            acrValuesSupported: ["phrh", "phr"],
            promptValuesSupported: ["none", "login", "consent", "select_account"],
            claimsParameterSupported: false,
            requestParameterSupported: false,
            requestURIParameterSupported: false,
            authorizationResponseIssParameterSupported: true,
            backchannelLogoutSupported: true,
            backchannelLogoutSessionSupported: true,
            registrationEndpoint: configuration.dynamicRegistration == .off ? nil : base + "/oauth/register",
            clientIDMetadataDocumentSupported: configuration.clientMetadataDocuments,
            authorizationChallengeEndpoint: base + "/oauth/authorize-challenge",
            backchannelAuthenticationEndpoint: base + "/oauth/bc-authorize",
            backchannelTokenDeliveryModesSupported: ["poll", "ping"],
            backchannelUserCodeParameterSupported: false)
    }
}
