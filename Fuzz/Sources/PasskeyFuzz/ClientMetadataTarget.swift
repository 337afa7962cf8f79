import PasskeyAccounts
import PasskeyJSON

/// `client-metadata`: a registration request's body (RFC 7591 §2), as `/oauth/register` reads
/// it. Whatever it accepts is a client `clients add` would accept too: redirect URIs that pass
/// the redirect-URI check again, only user scopes, a public client exactly when it asked for
/// `none`, no secret-less confidential client without keys, and none of the grants an admin
/// gives.
enum ClientMetadataTarget {
    static func run(_ bytes: [UInt8]) {
        guard let body = JSONValue.strictObject(bytes), let metadata = try? ClientMetadata.read(body, id: "fuzz") else { return }
        let registration = metadata.registration
        expect(!registration.redirectURIs.isEmpty, "a client without a redirect URI was accepted")
        expect(registration.scopes.allSatisfy(ClientRegistry.knownScopes.contains), "an API scope was accepted")
        expect(registration.isPublic == (metadata.authMethod == .none), "public and the authentication method disagree")
        expect(registration.usesKeys == (metadata.authMethod == .privateKeyJWT), "keys and the authentication method disagree")
        expect(!registration.clientCredentials && !registration.introspection && !registration.tokenExchange && !registration.deviceFlow,
               "a grant an admin gives was accepted")
        expect(registration.backchannelLogoutURI == nil, "a back-channel logout URI was accepted")
        for uri in registration.redirectURIs + registration.postLogoutRedirectURIs {
            expect(uri.hasPrefix("https://") || uri.hasPrefix("http://") || (registration.isPublic && uri.contains(".")),
                   "a redirect URI of another scheme was accepted")
            expect(!uri.contains("#") && !uri.lowercased().hasPrefix("javascript:"), "a fragment or script URI was accepted")
        }
    }
}
