public import PasskeyCore
public import PasskeyCrypto

/// The token a Messages for Business device returns, encrypted to the request's P-384 key with
/// Apple's `eciesEncryptionCofactorVariableIVX963SHA256AESGCM` (docs/contracts/mfb.md, "Decrypting a token"):
///
///     token = E (97 bytes: 0x04 || X || Y) || C (ciphertext) || T (16-byte GCM tag)
///     Z = ECDH(d, E)                                    48 bytes (cofactor 1 on P-384)
///     K || IV = X9.63-KDF-SHA256(Z, SharedInfo = E)     32 + 16 bytes
///     plaintext = AES-256-GCM-Open(K, IV, C, T), no AAD
///
/// Only this variable-IV variant is accepted; the legacy zero-IV variant is never tried.
public enum MfBToken {
    /// Every intermediate value of one decryption, as the seed's exercise lists them (for
    /// `passkey-server mfb decrypt --explain`).
    public struct Steps: Sendable, Equatable {
        /// E: bytes 0…96 of the token.
        public let ephemeralPublicKey: [UInt8]
        /// E's affine coordinates, 48 bytes each, big-endian.
        public let x: [UInt8]
        public let y: [UInt8]
        /// Z, the ECDH shared secret (48 bytes).
        public let sharedKey: [UInt8]
        /// The AES-256 key: the KDF output's first 32 bytes.
        public let derivedKey: [UInt8]
        /// The GCM IV: the KDF output's last 16 bytes.
        public let iv: [UInt8]
        public let ciphertext: [UInt8]
        public let tag: [UInt8]
        public let plaintext: [UInt8]
    }

    static let curve = EllipticCurve.p384
    /// 0x04 || X || Y on P-384.
    static let ephemeralKeyLength = 1 + 2 * 48
    static let tagLength = 16
    static let keyLength = 32
    static let ivLength = 16

    /// The ephemeral key and the tag, with an empty ciphertext.
    public static let minimumLength = 97 + 16
    /// Far above any access token or authorization code; bounds the work one request can cause.
    public static let maximumLength = 64 * 1024

    /// Decrypts `token` with the request's P-384 private key. Every failure — length, point,
    /// key agreement, tag — is `MfBError.decryptFailed`, with no detail and no plaintext.
    public static func decrypt(token: [UInt8], privateKey: ECPrivateKey) throws(MfBError) -> [UInt8] {
        try decryptWithSteps(token: token, privateKey: privateKey).plaintext
    }

    /// `decrypt` with every intermediate value.
    public static func decryptWithSteps(token: [UInt8], privateKey: ECPrivateKey) throws(MfBError) -> Steps {
        guard privateKey.curve == curve else { throw .decryptFailed }
        // 1. Length, then E = bytes 0…96: 0x04 and exactly 96 bytes (the point check is the
        //    ECDH import's), the tag = the last 16 bytes, the ciphertext between.
        guard (minimumLength...maximumLength).contains(token.count) else { throw .decryptFailed }
        let ephemeral = Array(token[0..<ephemeralKeyLength])
        guard ephemeral.first == 0x04 else { throw .decryptFailed }
        let tagStart = token.count - tagLength
        let ciphertext = Array(token[ephemeralKeyLength..<tagStart])
        let tag = Array(token[tagStart...])
        do {
            // 2. Z = ECDH(d, E); refuses points off the curve and non-uncompressed encodings.
            let shared = try privateKey.sharedSecret(withUncompressedPoint: ephemeral)
            // 3. 48 bytes of X9.63 KDF with SHA-256 and SharedInfo = E: AES key || IV.
            let derived = try X963KDF.sha256(sharedSecret: shared, sharedInfo: ephemeral, length: keyLength + ivLength)
            let key = Array(derived[0..<keyLength])
            let iv = Array(derived[keyLength...])
            // 4. AES-256-GCM, no AAD; the tag verifies before any plaintext comes back.
            let plaintext = try AESGCM.open(ciphertext: ciphertext, tag: tag, key: key, iv: iv)
            return Steps(
                ephemeralPublicKey: ephemeral,
                x: Array(ephemeral[1...48]), y: Array(ephemeral[49...]),
                sharedKey: shared, derivedKey: key, iv: iv,
                ciphertext: ciphertext, tag: tag, plaintext: plaintext)
        } catch {
            throw .decryptFailed
        }
    }

    /// The device's side, for tests and the simulated device: a fresh ephemeral P-384 key,
    /// ECDH with the recipient's uncompressed point, the KDF with SharedInfo = the ephemeral
    /// point, AES-256-GCM with the 16-byte IV. Returns E || C || T. Throws if the recipient's
    /// point is not an uncompressed P-384 point, or `MfBError` `mfb_token_too_long` if the
    /// token would exceed `maximumLength`.
    public static func encrypt(plaintext: [UInt8], recipientPublicPoint: [UInt8]) throws -> [UInt8] {
        guard plaintext.count <= maximumLength - minimumLength else {
            throw MfBError(code: "mfb_token_too_long", message: "A token holds at most \(maximumLength - minimumLength) bytes of plaintext.")
        }
        let ephemeral = try ECPrivateKey.generate(curve)
        let shared = try ephemeral.sharedSecret(withUncompressedPoint: recipientPublicPoint)
        let derived = try X963KDF.sha256(sharedSecret: shared, sharedInfo: ephemeral.publicPoint, length: keyLength + ivLength)
        let sealed = try AESGCM.seal(plaintext: plaintext, key: Array(derived[0..<keyLength]), iv: Array(derived[keyLength...]))
        return ephemeral.publicPoint + sealed.ciphertext + sealed.tag
    }
}
