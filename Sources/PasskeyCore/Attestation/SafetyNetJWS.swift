internal import Foundation
internal import PasskeyCrypto

/// A SafetyNet attestation response: a JWS in compact serialization (RFC 7515 §7.1) whose
/// header carries `alg` and the signing chain `x5c`. Parsed strictly; nothing is verified here.
struct SafetyNetJWS {
    let algorithm: COSEAlgorithm
    /// From the header's x5c, leaf first.
    let certificates: [Certificate]
    let payload: Payload
    /// The JWS Signing Input: ASCII(BASE64URL(header) ‖ '.' ‖ BASE64URL(payload)), exactly as sent.
    let signingInput: [UInt8]
    /// The JWS Signature as sent (for ES*, r ‖ s).
    let signature: [UInt8]

    /// The payload members this verifier uses; others are ignored.
    struct Payload: Decodable {
        let nonce: String
        let timestampMs: Int64
        let ctsProfileMatch: Bool
    }

    private struct Header: Decodable {
        let alg: String
        let x5c: [String]
        let crit: [String]?
    }

    /// JWS `alg` values (RFC 7518 §3.1) accepted for SafetyNet, as COSE algorithms.
    static let algorithms: [String: COSEAlgorithm] = [
        "RS256": .rs256, "RS384": .rs384, "RS512": .rs512,
        "PS256": .ps256, "PS384": .ps384, "PS512": .ps512,
        "ES256": .es256, "ES384": .es384, "ES512": .es512,
    ]

    /// Parses `response`: UTF-8 text of exactly three base64url parts (no padding, canonical),
    /// a header that is a JSON object with a supported `alg`, a non-empty `x5c` of standard
    /// base64 DER certificates and no `crit`, and a payload with `nonce`, `timestampMs` and
    /// `ctsProfileMatch`. Every failure is `invalid_attestation`.
    init(compact response: [UInt8]) throws {
        guard let text = String(validating: response, as: UTF8.self) else {
            throw WebAuthnError.invalidAttestation("SafetyNet response is not UTF-8")
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw WebAuthnError.invalidAttestation("SafetyNet response is not a compact JWS (\(parts.count) parts, not 3)")
        }
        let headerBytes = try Self.base64URL(parts[0], "header")
        let payloadBytes = try Self.base64URL(parts[1], "payload")
        signature = try Self.base64URL(parts[2], "signature")
        signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)

        let header: Header = try Self.json(headerBytes, "header")
        guard header.crit == nil else {
            throw WebAuthnError.invalidAttestation("SafetyNet JWS header has crit parameters")
        }
        guard let algorithm = Self.algorithms[header.alg] else {
            throw WebAuthnError.invalidAttestation("SafetyNet JWS alg \"\(header.alg)\" is not supported")
        }
        self.algorithm = algorithm
        guard !header.x5c.isEmpty else {
            throw WebAuthnError.invalidAttestation("SafetyNet JWS header x5c is empty")
        }
        certificates = try header.x5c.map(Self.certificate)
        payload = try Self.json(payloadBytes, "payload")
    }

    /// Base64url without padding, in its one canonical spelling (re-encoding gives it back).
    private static func base64URL(_ part: Substring, _ name: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decodeStrict(String(part)), Base64URL.encode(bytes) == part else {
            throw WebAuthnError.invalidAttestation("SafetyNet JWS \(name) is not base64url")
        }
        return bytes
    }

    /// One x5c entry: standard base64 with padding (RFC 7515 §4.1.6), a DER certificate.
    private static func certificate(_ entry: String) throws -> Certificate {
        guard let data = Data(base64Encoded: entry), data.base64EncodedString() == entry else {
            throw WebAuthnError.invalidAttestation("SafetyNet JWS x5c entry is not base64")
        }
        do { return try Certificate(derEncoded: [UInt8](data)) } catch {
            throw WebAuthnError.invalidAttestation("SafetyNet JWS x5c entry is not a DER certificate: \(error)")
        }
    }

    private static func json<T: Decodable>(_ bytes: [UInt8], _ name: String) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(bytes)) } catch {
            throw WebAuthnError.invalidAttestation("SafetyNet JWS \(name) is not the expected JSON object")
        }
    }
}
