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
    public var status = "ok"
    public let user_name: String
    public let credential_id: String
    public let session: String
}

/// `GET /me`.
public struct MeResponse: Codable, Sendable {
    public struct Credential: Codable, Sendable {
        public let credential_id: String
        public let name: String
        public let created_at: String
        public let last_used_at: String?
        public let sign_count: UInt32
        public let backup_eligible: Bool
        public let backup_state: Bool
        public let transports: [String]
        public let aaguid: String
        public let possibly_cloned: Bool
        public let attestation_format: String
        public let attestation_type: String
        public let attestation_trusted: Bool
        /// The model's name from the authenticator metadata; null when not listed.
        public let authenticator_name: String?
        /// Found without a name (usernameless sign-in); false for a security key that kept no
        /// record of it.
        public var discoverable = true
        /// The authenticator enabled the PRF extension for it.
        public var prf_enabled = false

        // `last_used_at` and `authenticator_name` are written as null, not left out.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(credential_id, forKey: .credential_id)
            try c.encode(name, forKey: .name)
            try c.encode(created_at, forKey: .created_at)
            try c.encode(last_used_at, forKey: .last_used_at)
            try c.encode(sign_count, forKey: .sign_count)
            try c.encode(backup_eligible, forKey: .backup_eligible)
            try c.encode(backup_state, forKey: .backup_state)
            try c.encode(transports, forKey: .transports)
            try c.encode(aaguid, forKey: .aaguid)
            try c.encode(possibly_cloned, forKey: .possibly_cloned)
            try c.encode(attestation_format, forKey: .attestation_format)
            try c.encode(attestation_type, forKey: .attestation_type)
            try c.encode(attestation_trusted, forKey: .attestation_trusted)
            try c.encode(authenticator_name, forKey: .authenticator_name)
            try c.encode(discoverable, forKey: .discoverable)
            try c.encode(prf_enabled, forKey: .prf_enabled)
        }
    }
    /// The linked Apple ID (siwa.md).
    public struct Apple: Codable, Sendable {
        public let sub: String
        public let email: String?
        public let is_private_email: Bool

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(sub, forKey: .sub)
            try c.encode(email, forKey: .email)
            try c.encode(is_private_email, forKey: .is_private_email)
        }
    }
    public let user_name: String
    public let display_name: String
    /// The WebAuthn user handle (`user.id`, base64url) and the RP ID: what the page passes to
    /// the Signal API so the password manager keeps its passkeys in step with this list.
    public var user_id = ""
    public var rp_id = ""
    /// A phone enrolled as a push authenticator (push.md).
    public struct PushDevice: Codable, Sendable {
        public let deviceId: String
        public let name: String
        public let model: String
        /// `RSA-2048`.
        public let key: String
        public let created_at: String
        public let last_used_at: String?
        /// The push provider reported it gone: no pushes go to it.
        public let disabled: Bool

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(deviceId, forKey: .deviceId)
            try c.encode(name, forKey: .name)
            try c.encode(model, forKey: .model)
            try c.encode(key, forKey: .key)
            try c.encode(created_at, forKey: .created_at)
            try c.encode(last_used_at, forKey: .last_used_at)
            try c.encode(disabled, forKey: .disabled)
        }
    }
    public let credentials: [Credential]
    /// Null when no Apple ID is linked (or Sign in with Apple is off).
    public var apple: Apple?
    public var push_devices: [PushDevice] = []

    enum CodingKeys: String, CodingKey { case user_name, display_name, user_id, rp_id, credentials, apple, push_devices }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(user_name, forKey: .user_name)
        try c.encode(display_name, forKey: .display_name)
        try c.encode(user_id, forKey: .user_id)
        try c.encode(rp_id, forKey: .rp_id)
        try c.encode(credentials, forKey: .credentials)
        try c.encode(apple, forKey: .apple)
        try c.encode(push_devices, forKey: .push_devices)
    }
}

/// `POST /push/devices/discovery`: what the QR code carries, and the code as SVG.
public struct PushDiscoveryResponse: Codable, Sendable {
    public let deviceId: String
    public let username: String
    /// The server's public origin.
    public let host: String
    /// The RP ID.
    public let tenantDomain: String
    public let challenge: String
    /// Left out of the QR code itself.
    public var qr_svg: String?
}

/// `POST /push/authentication_initialize`.
public struct PushInitializeResponse: Codable, Sendable {
    public let pushAuthId: String
    /// The secret that reads the request's state (`/push/authentication_status?watch=`).
    public let watch: String
    /// 1–100, null when number matching is off.
    public let numberChallenge: Int?
    public let expires_at: String

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pushAuthId, forKey: .pushAuthId)
        try c.encode(watch, forKey: .watch)
        try c.encode(numberChallenge, forKey: .numberChallenge)
        try c.encode(expires_at, forKey: .expires_at)
    }
}

/// `GET /push/authentication_status`.
public struct PushStatusResponse: Codable, Sendable {
    /// `pending`, `approved`, `denied`, `expired`, `number_mismatch`.
    public let status: String
    /// Only on the first call that sees the request approved.
    public var session: String?
    public var user_name: String?
}

/// `GET /siwa/initialize`.
public struct AppleInitializeResponse: Codable, Sendable {
    public let nonce: String
    public let state: String
    public let client_id: String
    public let authorize_url: String
}

/// The 200 body of `POST /siwa/finalize`.
public struct AppleFinalizeResponse: Codable, Sendable {
    public var status = "ok"
    public let user_name: String
    public let session: String
    public let created: Bool
    public let linked: Bool
}

/// `GET /healthz`: `{"status":"ok","metadata":{"loaded":true,"no":42,"entries":N,
/// "next_update":"2026-12-01","stale":false}}`, or `"metadata":{"loaded":false}` without a BLOB.
public struct HealthResponse: Codable, Sendable {
    public struct Metadata: Codable, Sendable {
        public let loaded: Bool
        /// The BLOB's serial number.
        public var number: Int?
        public var entries: Int?
        public var next_update: String?
        public var stale: Bool?

        enum CodingKeys: String, CodingKey {
            case loaded, number = "no", entries, next_update, stale
        }
    }
    public var status = "ok"
    /// Whether Sign in with Apple is on; the page shows its button then.
    public var sign_in_with_apple = false
    public let metadata: Metadata
}

/// `GET /me/events`.
public struct EventsResponse: Codable, Sendable {
    public struct Event: Codable, Sendable {
        public let id: String
        public let type: String
        /// ISO 8601 in UTC.
        public let at: String
        public let ip: String?
        public let user_agent: String?
        public let details: [String: String]

        /// Unknown values are `null`, not left out.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(type, forKey: .type)
            try c.encode(at, forKey: .at)
            try c.encode(ip, forKey: .ip)
            try c.encode(user_agent, forKey: .user_agent)
            try c.encode(details, forKey: .details)
        }
    }

    public let events: [Event]
    /// The cursor of the next (older) page, `null` on the last.
    public let next_before: String?

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(events, forKey: .events)
        try c.encode(next_before, forKey: .next_before)
    }
}
