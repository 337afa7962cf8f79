public import Foundation
public import PasskeyCBOR
public import PasskeyCrypto

/// Attestation types (WebAuthn L3 §6.5.3), as stored per credential.
public enum AttestationType: String, Sendable {
    case none, `self`, basic, attCA = "attca", anonCA = "anonca"
}

/// What a format's verification procedure is given (§7.1 step 22).
public struct AttestationInput: Sendable {
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData
    public let clientDataHash: [UInt8]
    public let now: Date

    /// Public so a format can be run on its own (tests, a format configured with a non-default
    /// policy such as `AndroidKeyAttestation(requireHardwareEnforced: false)`). Refuses
    /// authenticator data without attested credential data, as `AttestationObject` does.
    public init(statement: CBORValue, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], now: Date) throws {
        guard authenticatorData.attestedCredentialData != nil else {
            throw WebAuthnError.invalidRequest("authenticator data in a registration has no attested credential data (AT flag)")
        }
        self.statement = statement
        self.authenticatorData = authenticatorData
        self.clientDataHash = clientDataHash
        self.now = now
    }

    public var credential: AuthenticatorData.AttestedCredentialData {
        // `init` refuses authenticator data without attested credential data.
        authenticatorData.attestedCredentialData!
    }
}

/// What a format's verification procedure returns: the attestation type and the trust path
/// (leaf first) whose trustworthiness is assessed afterwards (§7.1 steps 23–24).
public struct AttestationOutcome: Sendable {
    public let type: AttestationType
    public let trustPath: [Certificate]
    /// `compound` (§8.9) only: each sub-statement's format and outcome, in statement order.
    /// A compound outcome has no trust path of its own; each sub-outcome's path is assessed
    /// against the anchors of its own format. Empty for every other format.
    public let subOutcomes: [SubOutcome]

    public struct SubOutcome: Sendable {
        public let format: String
        public let outcome: AttestationOutcome
    }

    public init(type: AttestationType, trustPath: [Certificate], subOutcomes: [SubOutcome] = []) {
        self.type = type
        self.trustPath = trustPath
        self.subOutcomes = subOutcomes
    }
}

/// One attestation statement format (WebAuthn L3 §8). Each format is one type; new formats are
/// added to `AttestationFormats.supported`.
public protocol AttestationStatementFormat: Sendable {
    /// The format identifier matched case-sensitively against `fmt` (§7.1 step 21).
    var identifier: String { get }
    /// The format's verification procedure: signature and certificate requirements. Throws
    /// `invalid_attestation` when the statement does not verify.
    func verify(_ input: AttestationInput) throws -> AttestationOutcome
}

public enum AttestationFormats {
    public static let supported: [any AttestationStatementFormat] = [
        NoneAttestation(), PackedAttestation(), FIDOU2FAttestation(), TPMAttestation(), AndroidKeyAttestation(),
        AppleAttestation(), AndroidSafetyNetAttestation(), CompoundAttestation(),
    ]

    /// §7.1 step 21: USASCII case-sensitive match of `fmt` against the supported formats.
    public static func format(for identifier: String) -> (any AttestationStatementFormat)? {
        supported.first { $0.identifier == identifier }
    }
}

/// Helpers shared by the x5c-carrying formats.
enum AttestationStatement {
    /// The statement's members that the format defines (`knownKeys`). Members it does not define
    /// are skipped: real authenticators add some (iPhones send `alg` in `apple` statements), and
    /// WebAuthn §8 lets formats grow. Keys must still be text (CDDL `tstr` member names), and the
    /// decoder has already refused duplicates.
    static func map(_ statement: CBORValue, knownKeys: Set<String>) throws -> [String: CBORValue] {
        guard let entries = statement.mapEntries else { throw WebAuthnError.invalidAttestation("attStmt is not a map") }
        var result: [String: CBORValue] = [:]
        for entry in entries {
            guard let key = entry.key.textValue else {
                throw WebAuthnError.invalidAttestation("attStmt has a member whose name is not text")
            }
            if knownKeys.contains(key) { result[key] = entry.value }
        }
        return result
    }

    /// The attestation key can sign with the statement's `alg` (an ES256 `alg` with a P-384
    /// certificate key is refused, as is an RSA `alg` with an EC key).
    static func checkKeyFitsAlgorithm(_ key: PublicKey, _ algorithm: COSEAlgorithm, format: String) throws {
        guard algorithm.fits(key.kind) else {
            throw WebAuthnError.invalidAttestation("\(format) attestation key (\(key.kind)) cannot sign with alg \(algorithm.name)")
        }
    }

    static func signature(_ members: [String: CBORValue]) throws -> [UInt8] {
        guard let sig = members["sig"]?.bytesValue, !sig.isEmpty else {
            throw WebAuthnError.invalidAttestation("attStmt.sig is missing or not a byte string")
        }
        return sig
    }

    /// Parses `x5c`: a non-empty array of DER certificates, leaf first.
    static func certificates(_ members: [String: CBORValue]) throws -> [Certificate]? {
        guard let x5c = members["x5c"] else { return nil }
        guard let array = x5c.arrayValue, !array.isEmpty else {
            throw WebAuthnError.invalidAttestation("attStmt.x5c is not a non-empty array")
        }
        return try array.map { item in
            guard let der = item.bytesValue else { throw WebAuthnError.invalidAttestation("x5c entry is not a byte string") }
            do { return try Certificate(derEncoded: der) } catch {
                throw WebAuthnError.invalidAttestation("x5c entry is not a DER certificate: \(error)")
            }
        }
    }

    static func publicKey(of certificate: Certificate) throws -> PublicKey {
        do { return try certificate.publicKey } catch {
            throw WebAuthnError.invalidAttestation("attestation certificate key unusable: \(error)")
        }
    }
}
