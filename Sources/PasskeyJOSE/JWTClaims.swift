public import Foundation
public import PasskeyJSON

/// The registered claims of a JWT (RFC 7519 §4.1) checked as RFC 7519 §7.2 and RFC 8725 ask:
/// each check a named function, each refusal a `JOSEError` the caller maps to its contract.
public enum JWTClaims {
    /// The latest NumericDate read or written: 9999-12-31T23:59:59Z.
    public static let latestNumericDate: TimeInterval = 253_402_300_799

    /// A NumericDate claim (RFC 7519 §2): a JSON number of seconds, 0…9999-12-31, fractions
    /// allowed; nil when absent. Anything else is `invalidClaim`.
    public static func numericDate(_ claims: [String: JSONValue], _ name: String) throws(JOSEError) -> Date? {
        guard let value = claims[name] else { return nil }
        guard let seconds = value.numberValue, seconds.isFinite, seconds >= 0, seconds <= latestNumericDate else {
            throw JOSEError(.invalidClaim, "\(name) is not a NumericDate")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Whole seconds since 1970 for a claim this server writes; nil for a clock outside
    /// 1970…9999.
    public static func numericDate(_ date: Date) -> Int64? {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, seconds >= 0, seconds <= latestNumericDate else { return nil }
        return Int64(seconds)
    }

    /// `exp` (§4.1.4): present when `required`, and after `now − leeway`. Returns it.
    @discardableResult
    public static func checkExpiry(
        _ claims: [String: JSONValue], now: Date, leeway: TimeInterval, required: Bool = true
    ) throws(JOSEError) -> Date? {
        guard let expiry = try numericDate(claims, "exp") else {
            if required { throw JOSEError(.invalidClaim, "exp is missing") }
            return nil
        }
        guard expiry.timeIntervalSince(now) > -leeway else {
            throw JOSEError(.expired, "the token expired at \(expiry)")
        }
        return expiry
    }

    /// `nbf` (§4.1.5), when present: not after `now + leeway`.
    public static func checkNotBefore(_ claims: [String: JSONValue], now: Date, leeway: TimeInterval) throws(JOSEError) {
        guard let notBefore = try numericDate(claims, "nbf") else { return }
        guard notBefore.timeIntervalSince(now) <= leeway else {
            throw JOSEError(.notYetValid, "the token is not valid before \(notBefore)")
        }
    }

    /// `iat` (§4.1.6): present when `required`, never after `now + leeway`, and no older than
    /// `maximumAge` when one is given. Returns it.
    @discardableResult
    public static func checkIssuedAt(
        _ claims: [String: JSONValue], now: Date, leeway: TimeInterval, required: Bool = false,
        maximumAge: TimeInterval? = nil
    ) throws(JOSEError) -> Date? {
        guard let issuedAt = try numericDate(claims, "iat") else {
            if required { throw JOSEError(.invalidClaim, "iat is missing") }
            return nil
        }
        guard issuedAt.timeIntervalSince(now) <= leeway else {
            throw JOSEError(.notYetValid, "the token was issued in the future (\(issuedAt))")
        }
        if let maximumAge, now.timeIntervalSince(issuedAt) > maximumAge + leeway {
            throw JOSEError(.expired, "the token was issued at \(issuedAt), more than \(Int(maximumAge)) s ago")
        }
        return issuedAt
    }

    /// `exp` no further than `maximumLifetime` (+ leeway) ahead of `now`: a token signed today
    /// must not stay good for years.
    public static func checkLifetime(
        _ expiry: Date, now: Date, maximumLifetime: TimeInterval, leeway: TimeInterval
    ) throws(JOSEError) {
        guard expiry.timeIntervalSince(now) <= maximumLifetime + leeway else {
            throw JOSEError(.invalidClaim, "exp is more than \(Int(maximumLifetime)) seconds ahead")
        }
    }

    /// `iss` (§4.1.1): a string exactly equal to `expected`. Returns it.
    @discardableResult
    public static func checkIssuer(_ claims: [String: JSONValue], expected: String) throws(JOSEError) -> String {
        guard let value = claims["iss"] else { throw JOSEError(.invalidClaim, "iss is missing") }
        guard let issuer = value.stringValue else { throw JOSEError(.invalidClaim, "iss is \(value.kind), not a string") }
        guard issuer == expected else {
            throw JOSEError(.issuerMismatch, "iss \(issuer.prefix(64)) is not \(expected)")
        }
        return issuer
    }

    /// `aud` (§4.1.3): a string, or a non-empty array of strings, naming at least one of
    /// `accepted`. Returns the audience that matched.
    @discardableResult
    public static func checkAudience(_ claims: [String: JSONValue], accepted: [String]) throws(JOSEError) -> String {
        guard let value = claims["aud"] else { throw JOSEError(.invalidClaim, "aud is missing") }
        let audiences: [String]
        if let single = value.stringValue {
            audiences = [single]
        } else if let array = value.arrayValue, !array.isEmpty, array.allSatisfy({ $0.stringValue != nil }) {
            audiences = array.compactMap(\.stringValue)
        } else {
            throw JOSEError(.invalidClaim, "aud is \(value.kind), not a string or a non-empty array of strings")
        }
        guard let match = audiences.first(where: accepted.contains) else {
            throw JOSEError(.audienceMismatch, "aud \(audiences.joined(separator: ", ").prefix(128)) names none of the accepted audiences")
        }
        return match
    }

    /// A claim that must be a non-empty string (`sub`, `jti`, `nonce`, …); nil when absent and
    /// not `required`.
    public static func string(
        _ claims: [String: JSONValue], _ name: String, required: Bool, maximumLength: Int = 1024
    ) throws(JOSEError) -> String? {
        guard let value = claims[name] else {
            if required { throw JOSEError(.invalidClaim, "\(name) is missing") }
            return nil
        }
        guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= maximumLength else {
            throw JOSEError(.invalidClaim, "\(name) is not a string of 1…\(maximumLength) bytes")
        }
        return text
    }
}
