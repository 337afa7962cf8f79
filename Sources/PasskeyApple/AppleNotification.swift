public import PasskeyJSON
public import Foundation

/// One of Apple's server-to-server notifications (docs/contracts/siwa.md, `POST /siwa/notifications`), verified.
public struct AppleNotification: Sendable, Equatable {
    /// `jti`: the notification's id, for ignoring one Apple sends again.
    public let jti: String
    /// `events.type`: `email-disabled`, `email-enabled`, `consent-revoked`, `account-delete`, or
    /// a type Apple adds later (passed through, so the server can answer 200 and ignore it).
    public let type: String
    /// `events.sub`: the Apple ID concerned.
    public let subject: String
    public let email: String?
    /// `events.is_private_email`: a boolean or `"true"`/`"false"`; absent is false.
    public let isPrivateEmail: Bool
    /// The configured client ID `aud` named.
    public let audience: String
    public let issuer: String

    public init(
        jti: String, type: String, subject: String, email: String?, isPrivateEmail: Bool, audience: String, issuer: String
    ) {
        self.jti = jti
        self.type = type
        self.subject = subject
        self.email = email
        self.isPrivateEmail = isPrivateEmail
        self.audience = audience
        self.issuer = issuer
    }

    /// The event types the contract acts on.
    public static let knownTypes: Set<String> = ["email-disabled", "email-enabled", "consent-revoked", "account-delete"]

    /// The JWS of a notification request body, `{"payload": "<JWS>"}` (strict JSON, at most
    /// 16 KiB); anything else is `invalid_token`.
    public static func payload(body: [UInt8]) throws(SIWAError) -> String {
        guard body.count <= 2 * CompactJWS.maximumSize else {
            throw .invalidToken("the notification body is \(body.count) bytes, more than \(2 * CompactJWS.maximumSize)")
        }
        guard let payload = JSONValue.strictObject(body)?["payload"]?.stringValue else {
            throw .invalidToken("the notification body is not {\"payload\": \"<JWS>\"}")
        }
        return payload
    }
}

extension IdentityTokenVerifier {
    /// Verifies a server-to-server notification's JWS like an identity token — compact form,
    /// header, key, signature, issuer and audience — with the times a retried delivery needs:
    /// `iat` present and not after now + skew but of any age (Apple retries a notification it
    /// could not deliver), and `exp`, if present, after now − skew. Then `jti` must be a
    /// non-empty string and `events` an object, or a string holding one, with a non-empty
    /// `type` and `sub`. Every refusal uses the identity token's codes.
    public func verifyNotification(
        _ payload: String, now: Date, explain: (@Sendable (VerificationStep) -> Void)? = nil
    ) async throws(SIWAError) -> AppleNotification {
        let steps = StepReporter(explain: explain)
        let (jws, issuer, audience) = try await verifySignedToken(payload, steps: steps)
        let claims = jws.claims
        try steps.run("times", { "iat not in the future" }) { () throws(SIWAError) in
            try Self.checkNotificationTimes(claims, now: now, clockSkew: configuration.clockSkew)
        }
        let jti = try steps.run("jti", { (jti: String) in "jti \(jti)" }) { () throws(SIWAError) in
            try Self.checkNotificationID(claims)
        }
        let event = try steps.run("events", { (event: Event) in "\(event.type) for \(event.subject)" }) { () throws(SIWAError) in
            try Self.checkEvents(claims)
        }
        return AppleNotification(
            jti: jti, type: event.type, subject: event.subject, email: event.email, isPrivateEmail: event.isPrivateEmail,
            audience: audience, issuer: issuer)
    }

    /// `iat` present and not after now + skew, of any age; `exp`, when present, after now − skew.
    public static func checkNotificationTimes(_ claims: [String: JSONValue], now: Date, clockSkew: TimeInterval) throws(SIWAError) {
        _ = try checkIssuedAt(claims, now: now, clockSkew: clockSkew)
        if let expiresAt = try numericDate(claims, "exp"), expiresAt <= now.addingTimeInterval(-clockSkew) {
            throw .tokenExpired("the notification expired at \(expiresAt)")
        }
    }

    /// `jti` a non-empty string of at most 255 bytes.
    public static func checkNotificationID(_ claims: [String: JSONValue]) throws(SIWAError) -> String {
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty else {
            throw .invalidToken("the notification has no jti string")
        }
        guard jti.utf8.count <= maximumSubjectLength else {
            throw .invalidToken("jti is longer than \(maximumSubjectLength) bytes")
        }
        return jti
    }

    struct Event {
        let type: String
        let subject: String
        let email: String?
        let isPrivateEmail: Bool
    }

    /// `events`: an object, or a string holding one as strict JSON (Apple sends the string),
    /// with `type` a non-empty string, `sub` as `checkSubject` wants it, `email` absent or a
    /// string, `is_private_email` read as a flag and `event_time`, when present, a number.
    static func checkEvents(_ claims: [String: JSONValue]) throws(SIWAError) -> Event {
        let events: [String: JSONValue]
        switch claims["events"] {
        case .object(let object)?:
            events = object
        case .string(let text)?:
            guard let object = JSONValue.strictObject(Array(text.utf8)) else {
                throw .invalidToken("events is a string that does not hold a strict JSON object")
            }
            events = object
        case let other?:
            throw .invalidToken("events is \(other.kind), not an object")
        case nil:
            throw .invalidToken("the notification has no events")
        }
        guard let type = events["type"]?.stringValue, !type.isEmpty else {
            throw .invalidToken("events has no type string")
        }
        if let time = events["event_time"], time.numberValue == nil {
            throw .invalidToken("events.event_time is \(time.kind), not a number")
        }
        return Event(
            type: type, subject: try checkSubject(events), email: try optionalString(events, "email"),
            isPrivateEmail: try flag(events, "is_private_email"))
    }
}
