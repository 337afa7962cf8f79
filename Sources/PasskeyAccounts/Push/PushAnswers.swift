/// The answers of the push use cases, as the HTTP contract spells them (camelCase in Swift,
/// the contract's snake_case through CodingKeys); the HTTP layer encodes them unchanged.

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
