public import PasskeyCore
public import Foundation
public import PasskeyCrypto

/// The phone's key (docs/contracts/push.md, enrolment): base64 (line breaks tolerated) of one of the forms
/// phones export — a DER SubjectPublicKeyInfo (a PEM body), a PKCS#1 `RSAPublicKey` (iOS's
/// `SecKeyCopyExternalRepresentation` for RSA) or a 65-byte X9.63 uncompressed P-256 point (the
/// same call for EC, the only key a Secure Enclave makes). RSA needs 2048 to 8192 bits and the
/// exponent 65537; EC must be P-256 with its point on the curve. A key that decodes but is none
/// of these is `weak_key`; text that is not base64 or not one of the encodings is
/// `invalid_request`.
public enum DeviceKey {
    public static let minimumBits = 2048
    /// Larger keys verify slowly enough to be a lever for whoever enrols them.
    public static let maximumBits = 8192
    /// Base64 text longer than this is refused before decoding.
    public static let maximumTextLength = 8192

    public static func parse(_ text: String) throws(PushError) -> PublicKey {
        guard text.utf8.count <= maximumTextLength else { throw invalidRequest("publicKey is too long.") }
        let compact = String(text.unicodeScalars.filter { !" \t\r\n".unicodeScalars.contains($0) })
        guard !compact.isEmpty, let bytes = Data(base64Encoded: compact).map([UInt8].init) else {
            throw invalidRequest("publicKey is not base64.")
        }
        let key = try decode(bytes)
        try checkStrength(key)
        return key
    }

    /// The key in whichever of the three encodings `bytes` is.
    static func decode(_ bytes: [UInt8]) throws(PushError) -> PublicKey {
        if bytes.count == 65, bytes[0] == 0x04 {
            do {
                return try PublicKey.ec(curve: .p256, x: Array(bytes[1..<33]), y: Array(bytes[33..<65]))
            } catch {
                throw weak("The P-256 point is not on the curve.")
            }
        }
        guard let elements = try? DER.parseSequence(bytes), elements.count == 2 else {
            throw invalidRequest("publicKey is not a SubjectPublicKeyInfo, a PKCS#1 RSAPublicKey or an X9.63 P-256 point.")
        }
        if elements[0].tag == 0x30, elements[1].tag == 0x03 {
            // SubjectPublicKeyInfo: any key it holds decodes, and the strength check decides.
            if let key = try? PublicKey(subjectPublicKeyInfo: bytes) { return key }
            throw weak("publicKey is a key this server does not accept (RSA of at least \(minimumBits) bits, or P-256).")
        }
        if elements[0].tag == 0x02, elements[1].tag == 0x02 {
            // PKCS#1 RSAPublicKey: modulus and public exponent.
            // Any size imports; `checkStrength` then decides, as for the other encodings.
            let modulus = Array(elements[0].content.drop { $0 == 0 })
            let exponent = Array(elements[1].content.drop { $0 == 0 })
            do {
                return try PublicKey.rsa(modulus: modulus, exponent: exponent, minimumBits: 0)
            } catch {
                throw weak("The RSA key is not acceptable.")
            }
        }
        throw invalidRequest("publicKey is not a SubjectPublicKeyInfo, a PKCS#1 RSAPublicKey or an X9.63 P-256 point.")
    }

    /// RSA of 2048–8192 bits with e = 65537, or P-256.
    public static func checkStrength(_ key: PublicKey) throws(PushError) {
        if key.kind == .ec(.p256) { return }
        guard let (modulus, exponent) = key.rsaComponents else { throw weak("publicKey must be an RSA or a P-256 key.") }
        let bits = bitLength(modulus)
        guard (minimumBits...maximumBits).contains(bits) else {
            throw weak("The RSA key has \(bits) bits; \(minimumBits) to \(maximumBits) are accepted.")
        }
        guard exponent == [0x01, 0x00, 0x01] else { throw weak("The RSA key's exponent must be 65537.") }
        guard !ROCAFingerprint.matches(modulus: modulus) else {
            throw weak("The RSA key has the ROCA fingerprint (CVE-2017-15361): it can be factored.")
        }
    }

    /// The JWS algorithm of the device's answers: RS256 for an RSA key, ES256 for P-256.
    public static func jwsAlgorithm(_ key: PublicKey) -> String {
        key.kind == .ec(.p256) ? "ES256" : "RS256"
    }

    /// The device's signature over `message` with SHA-256: RSASSA-PKCS1-v1_5 for RSA, ECDSA
    /// (DER, as iOS's `ecdsaSignatureMessageX962SHA256` gives) for P-256.
    public static func verifies(_ signature: [UInt8], message: [UInt8], key: PublicKey) -> Bool {
        let algorithm: SignatureAlgorithm = key.kind == .ec(.p256) ? .ecdsa(.sha256) : .rsaPKCS1v15(.sha256)
        return key.isValidSignature(signature, for: message, algorithm: algorithm)
    }

    /// `RSA-2048` or `P-256`, as `GET /me` shows it.
    public static func label(_ key: PublicKey) -> String {
        key.kind == .ec(.p256) ? "P-256" : "RSA-\(bitLength(key.rsaComponents?.modulus ?? []))"
    }

    /// Bits of a big-endian unsigned number, leading zeros not counted.
    static func bitLength(_ bytes: [UInt8]) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        let remaining = bytes.count - first
        return (remaining - 1) * 8 + (8 - bytes[first].leadingZeroBitCount)
    }

    static func weak(_ message: String) -> PushError { PushError(code: "weak_key", message: message) }
    static func invalidRequest(_ message: String) -> PushError { PushError(code: "invalid_request", message: message) }
}

/// Enrolment's proof of possession: the phone signs `challenge + "." + deviceToken`.
public enum Enrolment {
    /// The device's signature (`DeviceKey.verifies`) over the UTF-8 bytes of
    /// `challenge.deviceToken`, in base64 (line breaks tolerated): not base64 is
    /// `invalid_request`, a signature that does not verify `invalid_signature`.
    public static func checkSignature(_ signature: String, challenge: String, deviceToken: String, key: PublicKey) throws(PushError) {
        let compact = String(signature.unicodeScalars.filter { !" \t\r\n".unicodeScalars.contains($0) })
        guard compact.utf8.count <= 4096, let bytes = Data(base64Encoded: compact) else {
            throw PushError(code: "invalid_request", message: "signature is not base64.")
        }
        let message = Array((challenge + "." + deviceToken).utf8)
        guard DeviceKey.verifies([UInt8](bytes), message: message, key: key) else {
            throw PushError(code: "invalid_signature", message: "signature does not verify with publicKey over challenge.deviceToken.")
        }
    }
}

/// The number the user matches between the page and the phone (push fatigue's remedy).
public enum NumberChallenge {
    /// How the number travels (`--push-number-challenge`).
    public enum Mode: String, Sendable, CaseIterable {
        /// No number.
        case off
        /// In the push and on the page: the user picks the matching one on the phone.
        case inPush = "in-push"
        /// Only on the page: the user types it on the phone.
        case typeIn = "type-in"
    }

    /// Uniform in 1…100 from the CSPRNG (rejection sampling: no modulo bias).
    public static func draw() -> Int {
        while true {
            let byte = Int(SecureRandom.bytes(1)[0])
            // 200 of 256 values map evenly onto 1…100.
            if byte < 200 { return byte % 100 + 1 }
        }
    }
}
