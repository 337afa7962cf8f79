public import PasskeyJSON

/// The answers of the OpenID provider's endpoints, as the HTTP contract spells them (camelCase in
/// Swift, the contract's snake_case through CodingKeys; a nil member is left out, not `null`);
/// the HTTP layer encodes them unchanged. The claim sets the provider signs (ID tokens, access
/// tokens, logout tokens) are not answers: they stay `[String: JSONValue]`.

/// The token endpoint's answer (RFC 6749 §5.1; RFC 8693 §2.2.1 for a token exchange).
public struct TokenAnswer: Sendable, Equatable, Encodable {
    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in", refreshToken = "refresh_token"
        case idToken = "id_token", scope, issuedTokenType = "issued_token_type"
    }

    /// An RFC 9068 access token; for a token exchange that asked for an ID token, the ID token.
    public let accessToken: String
    /// `Bearer`; `N_A` for an ID token issued by a token exchange (RFC 8693 §2.2.1).
    public let tokenType: String
    public let expiresIn: Int
    public var refreshToken: String? = nil
    /// When the grant's scopes hold `openid` (OpenID Connect Core §3.1.3.3); never for a token exchange.
    public var idToken: String? = nil
    /// The scopes granted, space-separated: always answered, narrowed or not.
    public let scope: String
    /// A token exchange's only: which token `access_token` is.
    public var issuedTokenType: String? = nil
}

/// The introspection endpoint's answer (RFC 7662 §2.2): what the token is, or only
/// `{"active": false}` for a token that does not stand.
public struct IntrospectionAnswer: Sendable, Equatable, Encodable {
    enum CodingKeys: String, CodingKey {
        case active, sub, username, clientID = "client_id", scope, tokenType = "token_type", exp, iat, authTime = "auth_time"
        case amr, acr, sid, aud, iss, jti, cnf
    }

    public let active: Bool
    public var sub: String? = nil
    public var username: String? = nil
    public var clientID: String? = nil
    public var scope: String? = nil
    /// `access_token`, `refresh_token` or `session` (a session token of the JSON endpoints).
    public var tokenType: String? = nil
    public var exp: Int64? = nil
    public var iat: Int64? = nil
    public var authTime: Int64? = nil
    public var amr: [String]? = nil
    public var acr: String? = nil
    public var sid: String? = nil
    public var aud: Audience? = nil
    public var iss: String? = nil
    public var jti: String? = nil
    /// A DPoP-bound token's confirmation (RFC 9449 §6.2): the resource server checks the proof.
    public var cnf: Confirmation? = nil

    /// Exactly `{"active": false}`: nothing of the token is told.
    public static let inactive = IntrospectionAnswer(active: false)
}

/// RFC 7800's `cnf` as RFC 9449 §6 uses it: the thumbprint of the key a token is bound to.
public struct Confirmation: Sendable, Equatable, Encodable {
    public let jkt: String
}

/// A token's `aud` (RFC 7519 §4.1.3): one string, or an array when it names several.
public enum Audience: Sendable, Equatable, Encodable {
    case one(String)
    case many([String])

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .one(let audience): try container.encode(audience)
        case .many(let audiences): try container.encode(audiences)
        }
    }

    var json: JSONValue {
        switch self {
        case .one(let audience): .string(audience)
        case .many(let audiences): .array(audiences.map(JSONValue.string))
        }
    }

    /// The claim as a token carries it; nil for anything but a string or an array of strings.
    init?(_ value: JSONValue?) {
        if let one = value?.stringValue {
            self = .one(one)
        } else if let array = value?.arrayValue, !array.isEmpty, array.allSatisfy({ $0.stringValue != nil }) {
            self = .many(array.compactMap(\.stringValue))
        } else {
            return nil
        }
    }
}

/// The device authorization endpoint's answer (RFC 8628 §3.2), with the complete verification
/// URI as a QR code besides (docs/contracts/identity.md, "Pushed authorization requests and the device flow").
public struct DeviceAuthorizationAnswer: Sendable, Equatable, Encodable {
    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code", userCode = "user_code", verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete", expiresIn = "expires_in", interval, qrSVG = "qr_svg", qrText = "qr_text"
    }

    public let deviceCode: String
    /// As shown: `BCDF-GHJK`.
    public let userCode: String
    public let verificationURI: String
    public let verificationURIComplete: String
    public let expiresIn: Int
    public let interval: Int
    /// `verification_uri_complete` as an SVG QR code, and as text for a terminal.
    public var qrSVG: String? = nil
    public var qrText: String? = nil
}

/// The pushed authorization request endpoint's answer (RFC 9126 §2.2).
public struct PushedRequestAnswer: Sendable, Equatable, Encodable {
    enum CodingKeys: String, CodingKey {
        case requestURI = "request_uri", expiresIn = "expires_in"
    }

    /// `urn:ietf:params:oauth:request_uri:` and the single-use handle.
    public let requestURI: String
    public let expiresIn: Int
}

/// The provider's metadata (OpenID Connect Discovery 1.0 §3, with RFC 8414 §2's members):
/// only what this server does.
public struct DiscoveryDocument: Sendable, Equatable, Encodable {
    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint", tokenEndpoint = "token_endpoint", userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri", revocationEndpoint = "revocation_endpoint", endSessionEndpoint = "end_session_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case responseTypesSupported = "response_types_supported", responseModesSupported = "response_modes_supported"
        case grantTypesSupported = "grant_types_supported", subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
        case tokenEndpointAuthSigningAlgValuesSupported = "token_endpoint_auth_signing_alg_values_supported"
        case revocationEndpointAuthSigningAlgValuesSupported = "revocation_endpoint_auth_signing_alg_values_supported"
        case introspectionEndpointAuthSigningAlgValuesSupported = "introspection_endpoint_auth_signing_alg_values_supported"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported", scopesSupported = "scopes_supported"
        case claimsSupported = "claims_supported", acrValuesSupported = "acr_values_supported"
        case promptValuesSupported = "prompt_values_supported", claimsParameterSupported = "claims_parameter_supported"
        case requestParameterSupported = "request_parameter_supported", requestURIParameterSupported = "request_uri_parameter_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case backchannelLogoutSupported = "backchannel_logout_supported", backchannelLogoutSessionSupported = "backchannel_logout_session_supported"
        case registrationEndpoint = "registration_endpoint"
        case clientIDMetadataDocumentSupported = "client_id_metadata_document_supported"
        case authorizationChallengeEndpoint = "authorization_challenge_endpoint"
        case backchannelAuthenticationEndpoint = "backchannel_authentication_endpoint"
        case backchannelTokenDeliveryModesSupported = "backchannel_token_delivery_modes_supported"
        case backchannelUserCodeParameterSupported = "backchannel_user_code_parameter_supported"
    }

    public let issuer: String
    public let authorizationEndpoint: String
    public let tokenEndpoint: String
    public let userinfoEndpoint: String
    public let jwksURI: String
    public let revocationEndpoint: String
    public let endSessionEndpoint: String
    public let introspectionEndpoint: String
    public let pushedAuthorizationRequestEndpoint: String
    public let deviceAuthorizationEndpoint: String
    public let responseTypesSupported: [String]
    public let responseModesSupported: [String]
    public let grantTypesSupported: [String]
    public let subjectTypesSupported: [String]
    public let idTokenSigningAlgValuesSupported: [String]
    public let tokenEndpointAuthMethodsSupported: [String]
    public let revocationEndpointAuthMethodsSupported: [String]
    public let introspectionEndpointAuthMethodsSupported: [String]
    /// The algorithms a `private_key_jwt` assertion may be signed with, at each endpoint that
    /// authenticates clients.
    public let tokenEndpointAuthSigningAlgValuesSupported: [String]
    public let revocationEndpointAuthSigningAlgValuesSupported: [String]
    public let introspectionEndpointAuthSigningAlgValuesSupported: [String]
    /// The algorithms a DPoP proof may be signed with (RFC 9449 §5.1).
    public let dpopSigningAlgValuesSupported: [String]
    public let codeChallengeMethodsSupported: [String]
    public let scopesSupported: [String]
    public let claimsSupported: [String]
    public let acrValuesSupported: [String]
    public let promptValuesSupported: [String]
    public let claimsParameterSupported: Bool
    public let requestParameterSupported: Bool
    public let requestURIParameterSupported: Bool
    public let authorizationResponseIssParameterSupported: Bool
    public let backchannelLogoutSupported: Bool
    public let backchannelLogoutSessionSupported: Bool
    /// RFC 7591's endpoint, only when `--dynamic-registration` is on.
    public let registrationEndpoint: String?
    /// Whether a `client_id` may be a metadata document's URL.
    public let clientIDMetadataDocumentSupported: Bool
    /// First-party native apps' passkey sign-in (draft-ietf-oauth-first-party-apps).
    public let authorizationChallengeEndpoint: String
    /// CIBA (OpenID CIBA Core 1.0 §4).
    public let backchannelAuthenticationEndpoint: String
    public let backchannelTokenDeliveryModesSupported: [String]
    public let backchannelUserCodeParameterSupported: Bool
}

/// The userinfo endpoint's answer (OpenID Connect Core §5.3.2): `sub` and the claims of the
/// token's scopes, whose names and shapes vary with the scopes (`passkey` may be `null`).
public struct UserinfoAnswer: Sendable, Equatable, Encodable {
    /// A member's name: `sub`, or a claim's.
    struct Member: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
        static let sub = Member(stringValue: "sub")
    }

    public let sub: String
    /// The scopes' claims, by name (docs/contracts/identity.md, "Tokens and claims"); a `sub` among them is not answered.
    public let claims: [String: JSONValue]

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Member.self)
        try container.encode(sub, forKey: .sub)
        for (name, value) in claims where name != Member.sub.stringValue {
            try container.encode(value, forKey: Member(stringValue: name))
        }
    }
}

/// What the sign-in page shows while it continues a held authorization request, at
/// `GET /oauth/authorize/request` (docs/contracts/identity.md, "Authorization endpoint").
public struct HeldRequestAnswer: Sendable, Equatable, Encodable {
    enum CodingKeys: String, CodingKey {
        case clientName = "client_name", loginHint = "login_hint", reauthenticate
    }

    public let clientName: String
    /// The request's `login_hint`, shortened; nil when it gave none.
    public var loginHint: String? = nil
    /// Whether the request asks for a fresh sign-in (`prompt=login`, `max_age`, `acr_values`, or
    /// a client that requires a class of session).
    public let reauthenticate: Bool
}

/// A pending device request as the `/device` page shows it, at `POST /device/lookup`
/// (docs/contracts/identity.md, "Pushed authorization requests and the device flow"):
/// `approval` is `approvable`, `sign_in` or `refused`, and a refusal's `refusal` says why.
public struct DeviceRequestAnswer: Sendable, Equatable, Encodable {
    enum CodingKeys: String, CodingKey {
        case clientName = "client_name", userCode = "user_code", scopes, approval, refusal
    }

    /// Why this account may not approve the request, in RFC 6749 §5.2's terms.
    struct Refusal: Encodable {
        enum CodingKeys: String, CodingKey {
            case error, errorDescription = "error_description"
        }

        let error: String
        let errorDescription: String
    }

    public let clientName: String
    /// As shown: `BCDF-GHJK`.
    public let userCode: String
    public let scopes: [String]
    public let approval: OpenIDProvider.DeviceApproval

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientName, forKey: .clientName)
        try container.encode(userCode, forKey: .userCode)
        try container.encode(scopes, forKey: .scopes)
        switch approval {
        case .approvable:
            try container.encode("approvable", forKey: .approval)
        case .signIn:
            try container.encode("sign_in", forKey: .approval)
        case .refused(let error, let description):
            try container.encode("refused", forKey: .approval)
            try container.encode(Refusal(error: error, errorDescription: description), forKey: .refusal)
        }
    }
}

/// `/oauth/authorize-challenge`'s answers: 200 with `authorization_code`, or 400 with `error`
/// `insufficient_authorization` (an `auth_session` and the passkey request options) or
/// `redirect_to_web` (a `request_uri` for the browser flow, and the `state` and `nonce` it was
/// pushed with). Its other refusals are `OAuthError`s.
public struct AuthorizationChallengeAnswer: Sendable, Encodable {
    enum CodingKeys: String, CodingKey {
        case authorizationCode = "authorization_code", error, errorDescription = "error_description", authSession = "auth_session",
             passkey, requestURI = "request_uri", expiresIn = "expires_in", state, nonce
    }

    public let authorizationCode: String?
    public let error: String?
    public let errorDescription: String?
    public let authSession: String?
    /// PublicKeyCredentialRequestOptionsJSON, for the app to pass to the platform.
    public let passkey: RequestOptionsResponse.Options?
    public let requestURI: String?
    public let expiresIn: Int?
    public let state: String?
    public let nonce: String?

    /// 200: the code; everything else is 400.
    public var succeeded: Bool { authorizationCode != nil }

    static func code(_ code: String) -> Self {
        Self(authorizationCode: code, error: nil, errorDescription: nil, authSession: nil, passkey: nil, requestURI: nil, expiresIn: nil,
             state: nil, nonce: nil)
    }

    static func insufficient(authSession: String, passkey: RequestOptionsResponse.Options) -> Self {
        Self(authorizationCode: nil, error: "insufficient_authorization",
             errorDescription: "sign in with a passkey: pass these options to the platform, then call again with auth_session and passkey_response",
             authSession: authSession, passkey: passkey, requestURI: nil, expiresIn: nil, state: nil, nonce: nil)
    }

    static func redirectToWeb(requestURI: String, expiresIn: Int, state: String, nonce: String, description: String) -> Self {
        Self(authorizationCode: nil, error: "redirect_to_web", errorDescription: description, authSession: nil, passkey: nil,
             requestURI: requestURI, expiresIn: expiresIn, state: state, nonce: nonce)
    }
}

/// `/oauth/bc-authorize`'s answer (CIBA §7.3).
public struct BackchannelAnswer: Sendable, Equatable, Encodable {
    enum CodingKeys: String, CodingKey { case authReqID = "auth_req_id", expiresIn = "expires_in", interval }

    public let authReqID: String
    public let expiresIn: Int
    public let interval: Int
}

/// `GET /me/approvals`: the CIBA requests waiting for the signed-in user's answer.
public struct ApprovalsAnswer: Sendable, Equatable, Encodable {
    public struct Approval: Sendable, Equatable, Encodable {
        enum CodingKeys: String, CodingKey {
            case id, clientName = "client_name", bindingMessage = "binding_message", ip, expiresAt = "expires_at"
        }

        public let id: String
        public let clientName: String
        public let bindingMessage: String?
        public let ip: String?
        public let expiresAt: String

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(clientName, forKey: .clientName)
            try container.encode(bindingMessage, forKey: .bindingMessage)
            try container.encode(ip, forKey: .ip)
            try container.encode(expiresAt, forKey: .expiresAt)
        }
    }

    public let approvals: [Approval]
}
