public import PasskeyCore
public import Foundation
public import PasskeyCrypto

/// The phone's key (push.md, enrolment): base64 of a DER SubjectPublicKeyInfo — a PEM body
/// without its armour, line breaks tolerated — of an RSA key of 2048 to 8192 bits with the
/// exponent 65537. Anything else is `weak_key`.
public enum DeviceKey {
    public static let minimumBits = 2048
    /// Larger keys verify slowly enough to be a lever for whoever enrols them.
    public static let maximumBits = 8192
    /// Base64 text longer than this is refused before decoding.
    public static let maximumTextLength = 8192

    public static func parse(_ text: String) throws(PushError) -> PublicKey {
        guard text.utf8.count <= maximumTextLength else { throw weak("The public key is too long.") }
        let compact = String(text.unicodeScalars.filter { !" \t\r\n".unicodeScalars.contains($0) })
        guard !compact.isEmpty, let der = Data(base64Encoded: compact) else {
            throw weak("publicKey is not base64 of a DER SubjectPublicKeyInfo.")
        }
        let key: PublicKey
        do {
            key = try PublicKey(subjectPublicKeyInfo: [UInt8](der))
        } catch {
            throw weak("publicKey is not an RSA key of at least \(minimumBits) bits.")
        }
        try checkStrength(key)
        return key
    }

    /// RSA, 2048–8192 bits, e = 65537.
    public static func checkStrength(_ key: PublicKey) throws(PushError) {
        guard let (modulus, exponent) = key.rsaComponents else { throw weak("publicKey must be an RSA key.") }
        let bits = bitLength(modulus)
        guard (minimumBits...maximumBits).contains(bits) else {
            throw weak("The RSA key has \(bits) bits; \(minimumBits) to \(maximumBits) are accepted.")
        }
        guard exponent == [0x01, 0x00, 0x01] else { throw weak("The RSA key's exponent must be 65537.") }
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 (OpenSSL): the one signature a device makes, for
    /// enrolment and for answers.
    public static func verifies(_ signature: [UInt8], message: [UInt8], key: PublicKey) -> Bool {
        key.isValidSignature(signature, for: message, algorithm: .rsaPKCS1v15(.sha256))
    }

    /// `RSA-2048`, as `GET /me` shows it.
    public static func label(_ key: PublicKey) -> String {
        "RSA-\(bitLength(key.rsaComponents?.modulus ?? []))"
    }

    /// Bits of a big-endian unsigned number, leading zeros not counted.
    static func bitLength(_ bytes: [UInt8]) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        let remaining = bytes.count - first
        return (remaining - 1) * 8 + (8 - bytes[first].leadingZeroBitCount)
    }

    static func weak(_ message: String) -> PushError { PushError(code: "weak_key", message: message) }
}

/// Enrolment's proof of possession: the phone signs `challenge + "." + deviceToken`.
public enum Enrolment {
    /// RSASSA-PKCS1-v1_5 with SHA-256 over the UTF-8 bytes of `challenge.deviceToken`, the
    /// signature in base64 (line breaks tolerated); else `invalid_signature`.
    public static func checkSignature(_ signature: String, challenge: String, deviceToken: String, key: PublicKey) throws(PushError) {
        let compact = String(signature.unicodeScalars.filter { !" \t\r\n".unicodeScalars.contains($0) })
        guard compact.utf8.count <= 4096, let bytes = Data(base64Encoded: compact) else {
            throw PushError(code: "invalid_signature", message: "signature is not base64.")
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
        case seed
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
