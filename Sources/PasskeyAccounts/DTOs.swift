/// JSON shapes of the HTTP contract. The core's types are not made Codable; these are the
/// server's own transfer objects.

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
    public let session: String
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
    /// The linked Apple ID (siwa.md).
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
    /// A phone enrolled as a push authenticator (push.md).
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

    enum CodingKeys: String, CodingKey { case userName = "user_name", displayName = "display_name", userId = "user_id", rpId = "rp_id", credentials, apple, pushDevices = "push_devices" }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userName, forKey: .userName)
        try c.encode(displayName, forKey: .displayName)
        try c.encode(userId, forKey: .userId)
        try c.encode(rpId, forKey: .rpId)
        try c.encode(credentials, forKey: .credentials)
        try c.encode(apple, forKey: .apple)
        try c.encode(pushDevices, forKey: .pushDevices)
    }
}

/// `POST /push/devices/discovery`: what the QR code carries, and the code as SVG.
public struct PushDiscoveryResponse: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case deviceId, username, host, tenantDomain, challenge, qrSvg = "qr_svg"
    }

    public let deviceId: String
    public let username: String
    /// The server's public origin.
    public let host: String
    /// The RP ID.
    public let tenantDomain: String
    public let challenge: String
    /// Left out of the QR code itself.
    public var qrSvg: String?
}

/// `POST /push/authentication_initialize`.
public struct PushInitializeResponse: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case pushAuthId, watch, numberChallenge, expiresAt = "expires_at"
    }

    public let pushAuthId: String
    /// The secret that reads the request's state (`/push/authentication_status?watch=`).
    public let watch: String
    /// 1–100, null when number matching is off.
    public let numberChallenge: Int?
    public let expiresAt: String

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pushAuthId, forKey: .pushAuthId)
        try c.encode(watch, forKey: .watch)
        try c.encode(numberChallenge, forKey: .numberChallenge)
        try c.encode(expiresAt, forKey: .expiresAt)
    }
}

/// `GET /push/authentication_status`.
public struct PushStatusResponse: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case status, session, userName = "user_name"
    }

    /// `pending`, `approved`, `denied`, `expired`, `number_mismatch`.
    public let status: String
    /// Only on the first call that sees the request approved.
    public var session: String?
    public var userName: String?
}

/// `GET /siwa/initialize`.
public struct AppleInitializeResponse: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case nonce, state, clientId = "client_id", authorizeUrl = "authorize_url"
    }

    public let nonce: String
    public let state: String
    public let clientId: String
    public let authorizeUrl: String
}

/// The 200 body of `POST /siwa/finalize`.
public struct AppleFinalizeResponse: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case status, userName = "user_name", session, created, linked
    }

    public var status = "ok"
    public let userName: String
    public let session: String
    public let created: Bool
    public let linked: Bool
}

/// `GET /healthz`: `{"status":"ok","metadata":{"loaded":true,"no":42,"entries":N,
/// "next_update":"2026-12-01","stale":false}}`, or `"metadata":{"loaded":false}` without a BLOB.
public struct HealthResponse: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case status, signInWithApple = "sign_in_with_apple", metadata
    }

    public struct Metadata: Codable, Sendable {
        public let loaded: Bool
        /// The BLOB's serial number.
        public var number: Int?
        public var entries: Int?
        public var nextUpdate: String?
        public var stale: Bool?

        enum CodingKeys: String, CodingKey {
            case loaded, number = "no", entries, nextUpdate = "next_update", stale
        }
    }
    public var status = "ok"
    /// Whether Sign in with Apple is on; the page shows its button then.
    public var signInWithApple = false
    public let metadata: Metadata
}

/// `GET /me/events`.
public struct EventsResponse: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case events, nextBefore = "next_before"
    }

    public struct Event: Codable, Sendable {
        enum CodingKeys: String, CodingKey {
            case id, type, at, ip, userAgent = "user_agent", details
        }

        public let id: String
        public let type: String
        /// ISO 8601 in UTC.
        public let at: String
        public let ip: String?
        public let userAgent: String?
        public let details: [String: String]

        /// Unknown values are `null`, not left out.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(type, forKey: .type)
            try c.encode(at, forKey: .at)
            try c.encode(ip, forKey: .ip)
            try c.encode(userAgent, forKey: .userAgent)
            try c.encode(details, forKey: .details)
        }
    }

    public let events: [Event]
    /// The cursor of the next (older) page, `null` on the last.
    public let nextBefore: String?

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(events, forKey: .events)
        try c.encode(nextBefore, forKey: .nextBefore)
    }
}
