public import Foundation
internal import PasskeyCBOR
internal import PasskeyCrypto

/// `android-safetynet` (WebAuthn L3 §8.5): attStmt = {ver, response}, where response is a
/// SafetyNet attestation JWS signed by a key certified for attest.android.com.
public struct AndroidSafetyNetAttestation: AttestationStatementFormat {
    /// How long before the verification time `timestampMs` may lie.
    public var maximumAge: TimeInterval
    /// How far after the verification time `timestampMs` may lie (clock skew).
    public var maximumFutureSkew: TimeInterval

    public init(maximumAge: TimeInterval = 60, maximumFutureSkew: TimeInterval = 60) {
        self.maximumAge = maximumAge
        self.maximumFutureSkew = maximumFutureSkew
    }

    public var identifier: String { "android-safetynet" }

    /// The host SafetyNet attestations are issued by (SafetyNet documentation, "Verify the
    /// compatibility check response").
    static let attestationHostname = "attest.android.com"

    public func verify(_ input: AttestationInput) throws -> AttestationOutcome {
        let response = try Self.statementResponse(input.statement)
        // Step 2: a well-formed SafetyNet response (the only version there is).
        let jws = try SafetyNetJWS(compact: response)
        let leaf = jws.certificates[0]
        // Step 4: it came from the SafetyNet service.
        try Self.checkSignature(jws, leaf: leaf)
        try Self.checkHostname(leaf)
        // Step 3 and the payload checks of the SafetyNet documentation.
        try Self.checkNonce(jws.payload, input: input)
        try Self.checkCTSProfileMatch(jws.payload)
        try checkTimestamp(jws.payload, now: input.now)
        // Step 5: Basic, trust path x5c.
        return AttestationOutcome(type: .basic, trustPath: jws.certificates)
    }

    /// §8.5 step 1: attStmt is {ver: non-empty text, response: bytes}; returns response.
    static func statementResponse(_ statement: CBORValue) throws -> [UInt8] {
        let members = try AttestationStatement.map(statement, knownKeys: ["ver", "response"])
        guard let ver = members["ver"]?.textValue, !ver.isEmpty else {
            throw WebAuthnError.invalidAttestation("android-safetynet attStmt.ver is missing, empty or not text")
        }
        guard let response = members["response"]?.bytesValue, !response.isEmpty else {
            throw WebAuthnError.invalidAttestation("android-safetynet attStmt.response is missing or not a byte string")
        }
        return response
    }

    /// §8.5 step 4: the JWS signature verifies with the leaf's key under the header's alg
    /// (`PasskeyJOSE`: the key fits the alg, an ES* signature is r ‖ s of its curve).
    static func checkSignature(_ jws: SafetyNetJWS, leaf: Certificate) throws {
        try jws.checkSignature(with: try AttestationStatement.publicKey(of: leaf))
    }

    /// §8.5 step 4: the leaf is issued to attest.android.com — a subjectAltName dNSName when
    /// the certificate has any (RFC 6125 §6.4.4: then the CN is not consulted), else the
    /// subject CN. DNS names compare case-insensitively.
    static func checkHostname(_ leaf: Certificate) throws {
        let dnsNames: [String]
        do { dnsNames = try leaf.subjectAlternativeDNSNames } catch {
            throw WebAuthnError.invalidAttestation("SafetyNet leaf subjectAltName is malformed: \(error)")
        }
        let names = dnsNames.isEmpty ? leaf.subject["CN"] : dnsNames
        guard names.contains(where: { $0.lowercased() == attestationHostname }) else {
            throw WebAuthnError.invalidAttestation("SafetyNet leaf is not issued to \(attestationHostname)")
        }
    }

    /// §8.5 step 3: nonce is the standard base64 (padded) of SHA-256(authenticatorData ‖
    /// clientDataHash).
    static func checkNonce(_ payload: SafetyNetJWS.Payload, input: AttestationInput) throws {
        let expected = Data(Digest.sha256.hash(input.authenticatorData.bytes + input.clientDataHash)).base64EncodedString()
        guard payload.nonce == expected else {
            throw WebAuthnError.invalidAttestation("SafetyNet nonce does not match SHA-256(authData ‖ clientDataHash)")
        }
    }

    /// SafetyNet documentation: the device passed the compatibility test suite profile match.
    static func checkCTSProfileMatch(_ payload: SafetyNetJWS.Payload) throws {
        guard payload.ctsProfileMatch else {
            throw WebAuthnError.invalidAttestation("SafetyNet ctsProfileMatch is false")
        }
    }

    /// SafetyNet documentation: the attestation is fresh — timestampMs no older than
    /// `maximumAge` and no later than `maximumFutureSkew` relative to the verification time.
    func checkTimestamp(_ payload: SafetyNetJWS.Payload, now: Date) throws {
        let timestamp = Date(timeIntervalSince1970: TimeInterval(payload.timestampMs) / 1000)
        guard timestamp <= now.addingTimeInterval(maximumFutureSkew) else {
            throw WebAuthnError.invalidAttestation("SafetyNet timestampMs lies in the future")
        }
        guard timestamp >= now.addingTimeInterval(-maximumAge) else {
            throw WebAuthnError.invalidAttestation("SafetyNet timestampMs is too old")
        }
    }
}
