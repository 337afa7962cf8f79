/// The answers of the passkey use cases, as the HTTP contract spells them (camelCase in Swift,
/// the contract's snake_case through CodingKeys); the HTTP layer encodes them unchanged.

/// PublicKeyCredentialCreationOptionsJSON (WebAuthn L3 §5.1.5) wrapped as `{"publicKey": …}`.
public struct CreationOptionsResponse: Codable, Sendable {
    public struct Options: Codable, Sendable {
        public struct RelyingPartyEntity: Codable, Sendable { public let id: String; public let name: String }
        public struct UserEntity: Codable, Sendable { public let id: String; public let name: String; public let displayName: String }
        public struct Parameters: Codable, Sendable { public var type = "public-key"; public let alg: Int }
        public struct Descriptor: Codable, Sendable {
            public var type = "public-key"
            public let id: String
            public let transports: [String]?
        }
        public struct AuthenticatorSelection: Codable, Sendable {
            public let residentKey: String
            public let requireResidentKey: Bool
            public let userVerification: String
            public var authenticatorAttachment: String? = nil
        }
        public struct Extensions: Codable, Sendable {
            public let credProps: Bool
            /// `{}` asks the authenticator to enable PRF for the new credential.
            public var prf: PRFInputs? = nil
        }

        public let rp: RelyingPartyEntity
        public let user: UserEntity
        public let challenge: String
        public let pubKeyCredParams: [Parameters]
        public let timeout: Int
        public let excludeCredentials: [Descriptor]
        public let authenticatorSelection: AuthenticatorSelection
        public var hints: [String]? = nil
        public let attestation: String
        public let extensions: Extensions
    }
    public let publicKey: Options
}

/// The `prf` extension's inputs (WebAuthn L3 §10.1.4): empty at registration; at sign-in one
/// salt per allowed credential, keyed by its base64url id.
public struct PRFInputs: Codable, Sendable {
    public struct Values: Codable, Sendable {
        public let first: String
    }
    public var evalByCredential: [String: Values]? = nil
}

/// PublicKeyCredentialRequestOptionsJSON (WebAuthn L3 §5.1.6) wrapped as `{"publicKey": …}`.
public struct RequestOptionsResponse: Codable, Sendable {
    public struct Options: Codable, Sendable {
        public let challenge: String
        public let rpId: String
        public let timeout: Int
        public let userVerification: String
        public let allowCredentials: [CreationOptionsResponse.Options.Descriptor]?
        public var hints: [String]? = nil
        public var extensions: Extensions? = nil
    }
    public struct Extensions: Codable, Sendable {
        public var prf: PRFInputs?
    }
    public let publicKey: Options
}

/// The 200 body of both finalize endpoints.
public struct CeremonyResult: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case status, userName = "user_name", credentialId = "credential_id", session
    }

    public var status = "ok"
    public let userName: String
    public let credentialId: String
    /// The new session's token; empty for a step-up, which renews the session that asked.
    public let session: String

    /// A step-up renewed the current session instead of opening one (`reauthenticated`).
    public var renewed: Bool { session.isEmpty }
}

/// `GET /me`.
public struct MeResponse: Codable, Sendable {
    public struct Credential: Codable, Sendable {
        enum CodingKeys: String, CodingKey {
            case credentialId = "credential_id", name, createdAt = "created_at", lastUsedAt = "last_used_at", signCount = "sign_count", backupEligible = "backup_eligible", backupState = "backup_state", transports, aaguid, possiblyCloned = "possibly_cloned", attestationFormat = "attestation_format", attestationType = "attestation_type", attestationTrusted = "attestation_trusted", authenticatorName = "authenticator_name", discoverable, prfEnabled = "prf_enabled"
        }

        public let credentialId: String
        public let name: String
        public let createdAt: String
        public let lastUsedAt: String?
        public let signCount: UInt32
        public let backupEligible: Bool
        public let backupState: Bool
        public let transports: [String]
        public let aaguid: String
        public let possiblyCloned: Bool
        public let attestationFormat: String
        public let attestationType: String
        public let attestationTrusted: Bool
        /// The model's name from the authenticator metadata; null when not listed.
        public let authenticatorName: String?
        /// Found without a name (usernameless sign-in); false for a security key that kept no
        /// record of it.
        public var discoverable = true
        /// The authenticator enabled the PRF extension for it.
        public var prfEnabled = false

        // `last_used_at` and `authenticator_name` are written as null, not left out.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(credentialId, forKey: .credentialId)
            try c.encode(name, forKey: .name)
            try c.encode(createdAt, forKey: .createdAt)
            try c.encode(lastUsedAt, forKey: .lastUsedAt)
            try c.encode(signCount, forKey: .signCount)
            try c.encode(backupEligible, forKey: .backupEligible)
            try c.encode(backupState, forKey: .backupState)
            try c.encode(transports, forKey: .transports)
            try c.encode(aaguid, forKey: .aaguid)
            try c.encode(possiblyCloned, forKey: .possiblyCloned)
            try c.encode(attestationFormat, forKey: .attestationFormat)
            try c.encode(attestationType, forKey: .attestationType)
            try c.encode(attestationTrusted, forKey: .attestationTrusted)
            try c.encode(authenticatorName, forKey: .authenticatorName)
            try c.encode(discoverable, forKey: .discoverable)
            try c.encode(prfEnabled, forKey: .prfEnabled)
        }
    }
    /// The linked Apple ID (docs/contracts/siwa.md).
    public struct Apple: Codable, Sendable {
        enum CodingKeys: String, CodingKey {
            case sub, email, isPrivateEmail = "is_private_email"
        }

        public let sub: String
        public let email: String?
        public let isPrivateEmail: Bool

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(sub, forKey: .sub)
            try c.encode(email, forKey: .email)
            try c.encode(isPrivateEmail, forKey: .isPrivateEmail)
        }
    }
    public let userName: String
    public let displayName: String
    /// The WebAuthn user handle (`user.id`, base64url) and the RP ID: what the page passes to
    /// the Signal API so the password manager keeps its passkeys in step with this list.
    public var userId = ""
    public var rpId = ""
    /// A phone enrolled as a push authenticator (docs/contracts/push.md).
    public struct PushDevice: Codable, Sendable {
        enum CodingKeys: String, CodingKey {
            case deviceId, name, model, key, createdAt = "created_at", lastUsedAt = "last_used_at", disabled
        }

        public let deviceId: String
        public let name: String
        public let model: String
        /// `RSA-2048`.
        public let key: String
        public let createdAt: String
        public let lastUsedAt: String?
        /// The push provider reported it gone: no pushes go to it.
        public let disabled: Bool

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(deviceId, forKey: .deviceId)
            try c.encode(name, forKey: .name)
            try c.encode(model, forKey: .model)
            try c.encode(key, forKey: .key)
            try c.encode(createdAt, forKey: .createdAt)
            try c.encode(lastUsedAt, forKey: .lastUsedAt)
            try c.encode(disabled, forKey: .disabled)
        }
    }
    public let credentials: [Credential]
    /// Null when no Apple ID is linked (or Sign in with Apple is off).
    public var apple: Apple?
    public var pushDevices: [PushDevice] = []
    /// The groups the account belongs to (docs/contracts/accounts.md, "Groups").
    public var groups: [String] = []
    /// An application of the OpenID provider that holds tokens of the account (docs/contracts/identity.md).
    public struct Application: Codable, Sendable {
        enum CodingKeys: String, CodingKey {
            case clientId = "client_id", name, scopes, offline, since, consent
        }

        public let clientId: String
        public let name: String
        public let scopes: [String]
        /// It holds tokens that outlive the session (`offline_access`).
        public let offline: Bool
        /// When it first got tokens that still stand (or, without tokens, when it was allowed).
        public let since: String
        /// For a third-party client: the scopes the user allowed it (withdrawn with the rest);
        /// nil for the operator's clients, which ask no consent.
        public let consent: [String]?

        public init(clientId: String, name: String, scopes: [String], offline: Bool, since: String, consent: [String]? = nil) {
            self.clientId = clientId
            self.name = name
            self.scopes = scopes
            self.offline = offline
            self.since = since
            self.consent = consent
        }
    }
    public var applications: [Application] = []
    /// Unspent recovery codes (docs/contracts/accounts.md); null when the server does not use them.
    public var recoveryCodesLeft: Int?
    /// The session asking is a recovery session: it can only register a passkey.
    public var recovery = false
    /// Recoveries of the account that wait out `--recovery-delay`: the page's "this wasn't me".
    public struct WaitingRecovery: Codable, Sendable {
        enum CodingKeys: String, CodingKey { case id, createdAt = "created_at", readyAt = "ready_at", ip, userAgent = "user_agent" }

        public let id: String
        public let createdAt: String
        public let readyAt: String
        public let ip: String?
        public let userAgent: String?
    }
    public var waitingRecoveries: [WaitingRecovery] = []

    enum CodingKeys: String, CodingKey {
        case userName = "user_name", displayName = "display_name", userId = "user_id", rpId = "rp_id", credentials, apple
        case pushDevices = "push_devices", groups, applications, recoveryCodesLeft = "recovery_codes_left", recovery
        case waitingRecoveries = "waiting_recoveries"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userName, forKey: .userName)
        try c.encode(displayName, forKey: .displayName)
        try c.encode(userId, forKey: .userId)
        try c.encode(rpId, forKey: .rpId)
        try c.encode(credentials, forKey: .credentials)
        try c.encode(apple, forKey: .apple)
        try c.encode(pushDevices, forKey: .pushDevices)
        try c.encode(groups, forKey: .groups)
        try c.encode(applications, forKey: .applications)
        try c.encode(recoveryCodesLeft, forKey: .recoveryCodesLeft)
        try c.encode(recovery, forKey: .recovery)
        try c.encode(waitingRecoveries, forKey: .waitingRecoveries)
    }
}
