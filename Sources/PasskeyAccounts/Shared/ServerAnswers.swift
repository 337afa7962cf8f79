/// The answers of the server's own endpoints (health, the audit trail), as the HTTP contract
/// spells them (camelCase in Swift, the contract's snake_case through CodingKeys); the HTTP layer
/// encodes them unchanged.

/// `GET /healthz`: `{"status":"ok","metadata":{"loaded":true,"no":42,"entries":N,
/// "next_update":"2026-12-01","stale":false}}`, or `"metadata":{"loaded":false}` without a BLOB.
public struct HealthResponse: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case status, version, signInWithApple = "sign_in_with_apple", registration, recoveryCodes = "recovery_codes", metadata
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
    /// The server's version (`ServerVersion.current`).
    public var version = ServerVersion.current
    /// Whether Sign in with Apple is on; the page shows its button then.
    public var signInWithApple = false
    /// `--registration`: whether the page offers to create an account.
    public var registration = "open"
    /// `--recovery-codes`: whether the page offers the recovery form.
    public var recoveryCodes = true
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
