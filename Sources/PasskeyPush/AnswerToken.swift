internal import PasskeyJSON
internal import PasskeyJOSE
public import Foundation
public import PasskeyCrypto
public import PasskeyCore

/// The phone's answer to a push (docs/contracts/push.md): a compact JWS, header `alg: RS256` and `deviceId`,
/// claims `pushAuthId`, `challenge`, `response` (`APPROVED` | `DENIED`), `numberChallenge`
/// (string or number) and `exp`, signed by the device's key.
public struct PushAnswer: Sendable, Equatable {
    public let deviceID: String
    public let pushAuthID: String
    public let challenge: String
    public let approved: Bool
    /// The number the user chose on the phone, as text (`"42"`); nil when absent.
    public let numberChallenge: String?
    public let expiresAt: Date
}

/// A phone's veto of a waiting account recovery.
public struct RecoveryVeto: Sendable, Equatable {
    public let deviceID: String
    public let recoveryID: String
}

public enum AnswerToken {
    /// `exp` may be at most this far ahead (the seed's 10 minutes): a token signed today must not
    /// stay good for years.
    public static let maximumLifetime: TimeInterval = 600
    public static let clockSkew: TimeInterval = 30
    public static let maximumSize = 8192

    /// What a phone may sign an answer with: RS256 or ES256 (never `none`, never an HMAC), no
    /// `crit` extension, no key named by the token (the key is the enrolled device's).
    static let policy = JWSPolicy(algorithms: [.rs256, .es256])

    /// The `deviceId` of the header, before anything is verified: the key to verify with is that
    /// device's. A malformed token, or one neither RS256 nor ES256, is `invalid_token`.
    public static func deviceID(of token: String) throws(PushError) -> String {
        try checkHeader(try split(token)).deviceID
    }

    /// Every check of docs/contracts/push.md on the answer, with the device's key; the answer it carries.
    public static func verify(_ token: String, key: PublicKey, now: Date) throws(PushError) -> PushAnswer {
        let (deviceID, claims, expiresAt) = try verifiedClaims(token, key: key, now: now)
        guard let pushAuthID = claims["pushAuthId"]?.stringValue, !pushAuthID.isEmpty, pushAuthID.utf8.count <= 128,
              let challenge = claims["challenge"]?.stringValue, challenge.utf8.count <= 128
        else {
            throw invalid("pushAuthId and challenge must be strings.")
        }
        let approved: Bool
        switch claims["response"]?.stringValue {
        case "APPROVED": approved = true
        case "DENIED": approved = false
        default: throw invalid("response must be APPROVED or DENIED.")
        }
        let number = try numberChallenge(claims["numberChallenge"])
        return PushAnswer(
            deviceID: deviceID, pushAuthID: pushAuthID, challenge: challenge, approved: approved, numberChallenge: number,
            expiresAt: expiresAt)
    }

    /// The phone's "this wasn't me" to an `ACCOUNT_RECOVERY` push (docs/contracts/accounts.md: every enrolled
    /// device can cancel a waiting recovery): the same JWS as an answer, signed by the device's
    /// key, with the claims `recoveryId`, `response: "DENIED"` and `exp`.
    public static func verifyVeto(_ token: String, key: PublicKey, now: Date) throws(PushError) -> RecoveryVeto {
        let (deviceID, claims, _) = try verifiedClaims(token, key: key, now: now)
        guard let recoveryID = claims["recoveryId"]?.stringValue, !recoveryID.isEmpty, recoveryID.utf8.count <= 128 else {
            throw invalid("recoveryId must be a string.")
        }
        guard claims["response"]?.stringValue == "DENIED" else { throw invalid("A veto's response is DENIED.") }
        return RecoveryVeto(deviceID: deviceID, recoveryID: recoveryID)
    }

    /// What every token a phone signs goes through, in order: the compact form, the header, the
    /// device's algorithm, the signature, the claims object, and `exp`.
    static func verifiedClaims(
        _ token: String, key: PublicKey, now: Date
    ) throws(PushError) -> (deviceID: String, claims: [String: JSONValue], expiresAt: Date) {
        let jws = try split(token)
        let (algorithm, deviceID) = try checkHeader(jws)
        try checkAlgorithm(algorithm, key: key)
        try checkSignature(jws, algorithm: algorithm, key: key)
        let claims = try decodeClaims(jws)
        return (deviceID, claims, try checkExpiry(claims, now: now))
    }

    /// A compact JWS (`PasskeyJOSE`): three canonical base64url parts, at most 8 KiB, a strict
    /// JSON header.
    static func split(_ token: String) throws(PushError) -> JWS {
        do {
            return try JWS(compact: token, maximumSize: maximumSize)
        } catch {
            throw invalid("The token is not a compact JWS: \(error.reason).")
        }
    }

    /// `alg` RS256 or ES256, no `crit` and no key-selecting parameter, a `deviceId`.
    static func checkHeader(_ jws: JWS) throws(PushError) -> (algorithm: JWSAlgorithm, deviceID: String) {
        let algorithm: JWSAlgorithm
        do {
            algorithm = try jws.checkAlgorithm(policy)
            try jws.checkCriticalHeaders(policy)
        } catch {
            throw invalid("\(error.reason).")
        }
        guard let deviceID = jws.header["deviceId"]?.stringValue, !deviceID.isEmpty, deviceID.utf8.count <= 64 else {
            throw invalid("The header has no deviceId.")
        }
        return (algorithm, deviceID)
    }

    /// `alg` is the device's own: RS256 for an RSA key, ES256 for a P-256 key.
    static func checkAlgorithm(_ algorithm: JWSAlgorithm, key: PublicKey) throws(PushError) {
        guard algorithm.rawValue == DeviceKey.jwsAlgorithm(key) else {
            throw invalid("alg \(algorithm.rawValue) is not the device's (\(DeviceKey.jwsAlgorithm(key))).")
        }
    }

    /// The JWS signature over the signing input (`PasskeyJOSE`): RS256 as it is, ES256 as the
    /// 64-byte r ‖ s of RFC 7518 §3.4.
    static func checkSignature(_ jws: JWS, algorithm: JWSAlgorithm, key: PublicKey) throws(PushError) {
        do {
            try jws.checkSignature(key, algorithm: algorithm)
        } catch {
            throw invalid("The signature does not verify with the device's key.")
        }
    }

    /// The payload: a strict JSON object.
    static func decodeClaims(_ jws: JWS) throws(PushError) -> [String: JSONValue] {
        do {
            return try jws.claims()
        } catch {
            throw invalid("The token's claims are not a JSON object.")
        }
    }

    /// `numberChallenge`: a string of at most 16 bytes, or an integer (written as text); nil
    /// when absent.
    static func numberChallenge(_ value: JSONValue?) throws(PushError) -> String? {
        switch value {
        case nil: return nil
        case .string(let text)?:
            guard text.utf8.count <= 16 else { throw invalid("numberChallenge is too long.") }
            return text
        case .integer(let number)?:
            guard String(number).utf8.count <= 16 else { throw invalid("numberChallenge is too long.") }
            return String(number)
        default:
            throw invalid("numberChallenge must be a string or an integer.")
        }
    }

    /// `exp` present, in the future, and at most 10 minutes (plus skew) ahead; else
    /// `token_expired`. An `exp` that is not a number is `invalid_token`.
    static func checkExpiry(_ claims: [String: JSONValue], now: Date) throws(PushError) -> Date {
        let expiry: Date?
        do {
            expiry = try JWTClaims.checkExpiry(claims, now: now, leeway: clockSkew, required: false)
        } catch {
            // A number outside 1970…9999 is out of time, not malformed.
            guard let seconds = claims["exp"]?.numberValue else { throw invalid("exp is not a NumericDate.") }
            throw error.code == .expired || seconds < now.timeIntervalSince1970
                ? expired("The answer has expired.") : expired("exp is more than \(Int(maximumLifetime)) seconds ahead.")
        }
        guard let expiry else { throw expired("exp is missing.") }
        do {
            try JWTClaims.checkLifetime(expiry, now: now, maximumLifetime: maximumLifetime, leeway: clockSkew)
        } catch {
            throw expired("exp is more than \(Int(maximumLifetime)) seconds ahead.")
        }
        return expiry
    }

    static func invalid(_ message: String) -> PushError { PushError(code: "invalid_token", message: message) }
    static func expired(_ message: String) -> PushError { PushError(code: "token_expired", message: message) }
}

/// The states of an authentication request: pending, then once approved, denied, expired or
/// number_mismatch.
public enum PushRequestStatus: String, Sendable, CaseIterable {
    case pending, approved, denied, expired
    case numberMismatch = "number_mismatch"
    /// A newer request for the same account took its place: an answer to it is
    /// `unknown_challenge`, and its browser sees it `expired`.
    case replaced
}

/// What a verified answer does to its pending request.
public enum PushDecision {
    /// The state the answer moves the request to; `unknown_challenge` (nothing changes) when
    /// the answer is for another challenge. An APPROVED without the right number is
    /// `number_mismatch` — a state, and a refusal the caller reports after storing it.
    public static func decide(
        _ answer: PushAnswer, challenge: String, number: Int?, mode: NumberChallenge.Mode
    ) throws(PushError) -> PushRequestStatus {
        guard constantTimeEquals(Array(answer.challenge.utf8), Array(challenge.utf8)) else {
            throw PushError(code: "unknown_challenge", message: "The answer is for another challenge.")
        }
        guard answer.approved else { return .denied }
        guard mode != .off else { return .approved }
        guard let number, let given = answer.numberChallenge, given == String(number) else { return .numberMismatch }
        return .approved
    }
}
