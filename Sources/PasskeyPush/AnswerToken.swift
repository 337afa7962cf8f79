internal import PasskeyJSON
public import Foundation
public import PasskeyCrypto
public import PasskeyCore

/// The phone's answer to a push (push.md): a compact JWS, header `alg: RS256` and `deviceId`,
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

public enum AnswerToken {
    /// `exp` may be at most this far ahead (the seed's 10 minutes): a token signed today must not
    /// stay good for years.
    public static let maximumLifetime: TimeInterval = 600
    public static let clockSkew: TimeInterval = 30
    public static let maximumSize = 8192

    /// The parts of a token, nothing verified.
    struct Parts {
        let header: Header
        let claimBytes: [UInt8]
        let signingInput: [UInt8]
        let signature: [UInt8]
    }

    struct Header: Decodable {
        let alg: String
        let deviceId: String?
        let crit: [String]?
    }

    struct Claims: Decodable {
        let pushAuthId: String?
        let challenge: String?
        let response: String?
        let numberChallenge: NumberOrText?
        let exp: Double?
    }

    /// A JSON string, or an integer written as text.
    enum NumberOrText: Decodable {
        case text(String)
        case number(Int)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        var text: String {
            switch self {
            case .text(let text): text
            case .number(let number): String(number)
            }
        }
    }

    /// The `deviceId` of the header, before anything is verified: the key to verify with is that
    /// device's. A malformed token, or one neither RS256 nor ES256, is `invalid_token`.
    public static func deviceID(of token: String) throws(PushError) -> String {
        let parts = try split(token)
        return try checkHeader(parts.header)
    }

    /// Every check of push.md on the answer, with the device's key; the answer it carries.
    public static func verify(_ token: String, key: PublicKey, now: Date) throws(PushError) -> PushAnswer {
        let parts = try split(token)
        let deviceID = try checkHeader(parts.header)
        try checkAlgorithm(parts.header, key: key)
        try checkSignature(parts, key: key)
        let claims = try decodeClaims(parts.claimBytes)
        let expiresAt = try checkExpiry(claims.exp, now: now)
        guard let pushAuthID = claims.pushAuthId, !pushAuthID.isEmpty, pushAuthID.utf8.count <= 128,
              let challenge = claims.challenge, challenge.utf8.count <= 128
        else {
            throw invalid("pushAuthId and challenge must be strings.")
        }
        let approved: Bool
        switch claims.response {
        case "APPROVED": approved = true
        case "DENIED": approved = false
        default: throw invalid("response must be APPROVED or DENIED.")
        }
        let number = claims.numberChallenge?.text
        if let number, number.utf8.count > 16 { throw invalid("numberChallenge is too long.") }
        return PushAnswer(
            deviceID: deviceID, pushAuthID: pushAuthID, challenge: challenge, approved: approved, numberChallenge: number,
            expiresAt: expiresAt)
    }

    /// Three base64url parts, at most 8 KiB, a strict JSON header.
    static func split(_ token: String) throws(PushError) -> Parts {
        guard token.utf8.count <= maximumSize else { throw invalid("The token is larger than \(maximumSize) bytes.") }
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3, let header = Base64URL.decodeStrict(String(pieces[0])),
              let claims = Base64URL.decodeStrict(String(pieces[1])), let signature = Base64URL.decodeStrict(String(pieces[2]))
        else {
            throw invalid("The token is not a compact JWS of three base64url parts.")
        }
        let decoded: Header
        do {
            try StrictJSON.validate(header)
            decoded = try JSONDecoder().decode(Header.self, from: Data(header))
        } catch {
            throw invalid("The token's header is not the expected JSON object.")
        }
        return Parts(header: decoded, claimBytes: claims, signingInput: Array((pieces[0] + "." + pieces[1]).utf8), signature: signature)
    }

    /// `alg` RS256 or ES256 (never `none`, never HMAC), no `crit`, a `deviceId`.
    static func checkHeader(_ header: Header) throws(PushError) -> String {
        guard header.alg == "RS256" || header.alg == "ES256" else {
            throw invalid("alg must be RS256 or ES256, not \(header.alg.prefix(16)).")
        }
        guard header.crit == nil else { throw invalid("crit is not supported.") }
        guard let deviceID = header.deviceId, !deviceID.isEmpty, deviceID.utf8.count <= 64 else {
            throw invalid("The header has no deviceId.")
        }
        return deviceID
    }

    /// `alg` is the device's own: RS256 for an RSA key, ES256 for a P-256 key.
    static func checkAlgorithm(_ header: Header, key: PublicKey) throws(PushError) {
        guard header.alg == DeviceKey.jwsAlgorithm(key) else {
            throw invalid("alg \(header.alg) is not the device's (\(DeviceKey.jwsAlgorithm(key))).")
        }
    }

    /// The JWS signature over the signing input: RS256 as it is, ES256 as the 64-byte R || S
    /// of RFC 7518 §3.4 (turned into DER for the check).
    static func checkSignature(_ parts: Parts, key: PublicKey) throws(PushError) {
        var signature = parts.signature
        if key.kind == .ec(.p256) {
            guard signature.count == 64, let der = try? ECDSASignature.der(concatenated: signature) else {
                throw invalid("An ES256 signature is 64 bytes.")
            }
            signature = der
        }
        guard DeviceKey.verifies(signature, message: parts.signingInput, key: key) else {
            throw invalid("The signature does not verify with the device's key.")
        }
    }

    static func decodeClaims(_ bytes: [UInt8]) throws(PushError) -> Claims {
        do {
            try StrictJSON.validate(bytes)
            return try JSONDecoder().decode(Claims.self, from: Data(bytes))
        } catch {
            throw invalid("The token's claims are not the expected JSON object.")
        }
    }

    /// `exp` present, in the future, and at most 10 minutes (plus skew) ahead; else
    /// `token_expired`.
    static func checkExpiry(_ exp: Double?, now: Date) throws(PushError) -> Date {
        guard let exp, exp.isFinite else { throw expired("exp is missing.") }
        let nowSeconds = now.timeIntervalSince1970
        guard exp > nowSeconds - clockSkew else { throw expired("The answer has expired.") }
        guard exp <= nowSeconds + maximumLifetime + clockSkew else {
            throw expired("exp is more than \(Int(maximumLifetime)) seconds ahead.")
        }
        return Date(timeIntervalSince1970: exp)
    }

    static func invalid(_ message: String) -> PushError { PushError(code: "invalid_token", message: message) }
    static func expired(_ message: String) -> PushError { PushError(code: "token_expired", message: message) }
}

/// The states of an authentication request: pending, then once approved, denied, expired or
/// number_mismatch.
public enum PushRequestStatus: String, Sendable, CaseIterable {
    case pending, approved, denied, expired
    case numberMismatch = "number_mismatch"
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
