internal import CPasskeyOpenSSL

/// AES-256-GCM (NIST SP 800-38D) through OpenSSL's EVP cipher API, with IVs of any length the
/// mode allows (Messages for Business uses 16 bytes, not the usual 12) and a 16-byte tag.
public enum AESGCM {
    public static let keySize = 32
    public static let tagSize = 16
    /// OpenSSL's limit on a GCM IV (GCM_IV_MAX_SIZE, 1024 bits).
    public static let maximumIVLength = 128
    /// Upper bound on plaintext, ciphertext and AAD (OpenSSL counts them in `int`).
    public static let maximumInputLength = 1 << 30

    /// Decrypts and authenticates. The tag is checked (EVP_DecryptFinal_ex) before anything is
    /// returned: on a mismatch the decrypted bytes are wiped and `.authenticationFailed` is
    /// thrown. Key 32 bytes, IV 1…128 bytes, tag 16 bytes.
    public static func open(ciphertext: [UInt8], tag: [UInt8], key: [UInt8], iv: [UInt8], aad: [UInt8] = []) throws -> [UInt8] {
        try checkParameters(key: key, iv: iv, text: ciphertext, aad: aad)
        guard tag.count == tagSize else {
            throw CryptoError(.authenticationFailed, "AES-GCM tag must be \(tagSize) bytes, got \(tag.count)")
        }
        defer { OpenSSLErrorQueue.clear() }
        let context = try Context(encrypting: false, key: key, iv: iv)
        try context.addAAD(aad)
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        try context.update(ciphertext, into: &plaintext)
        var expectedTag = tag
        let tagSet = expectedTag.withUnsafeMutableBytes {
            EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_SET_TAG, Int32(tagSize), $0.baseAddress)
        }
        guard tagSet == 1 else {
            throw CryptoError.openSSL(.internalFailure, "AES-GCM: cannot set the tag")
        }
        // GCM is a stream mode: Final writes nothing, it only compares the tag.
        var scratch = [UInt8](repeating: 0, count: 16)
        var finalLength: Int32 = 0
        guard EVP_DecryptFinal_ex(context.pointer, &scratch, &finalLength) == 1, finalLength == 0 else {
            plaintext.withUnsafeMutableBytes { wipe($0) }
            throw CryptoError(.authenticationFailed, "AES-GCM tag does not verify")
        }
        return plaintext
    }

    /// Encrypts; returns the ciphertext (as long as the plaintext) and the 16-byte tag.
    public static func seal(plaintext: [UInt8], key: [UInt8], iv: [UInt8], aad: [UInt8] = []) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        try checkParameters(key: key, iv: iv, text: plaintext, aad: aad)
        defer { OpenSSLErrorQueue.clear() }
        let context = try Context(encrypting: true, key: key, iv: iv)
        try context.addAAD(aad)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        try context.update(plaintext, into: &ciphertext)
        var scratch = [UInt8](repeating: 0, count: 16)
        var finalLength: Int32 = 0
        guard EVP_EncryptFinal_ex(context.pointer, &scratch, &finalLength) == 1, finalLength == 0 else {
            throw CryptoError.openSSL(.internalFailure, "AES-GCM: EVP_EncryptFinal_ex failed")
        }
        var tag = [UInt8](repeating: 0, count: tagSize)
        let tagRead = tag.withUnsafeMutableBytes {
            EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_GET_TAG, Int32(tagSize), $0.baseAddress)
        }
        guard tagRead == 1 else {
            throw CryptoError.openSSL(.internalFailure, "AES-GCM: cannot read the tag")
        }
        return (ciphertext, tag)
    }

    private static func checkParameters(key: [UInt8], iv: [UInt8], text: [UInt8], aad: [UInt8]) throws {
        guard key.count == keySize else {
            throw CryptoError(.invalidKey, "AES-256-GCM key must be \(keySize) bytes, got \(key.count)")
        }
        guard (1...maximumIVLength).contains(iv.count) else {
            throw CryptoError(.unsupported, "AES-GCM IV of \(iv.count) bytes outside 1...\(maximumIVLength)")
        }
        guard text.count <= maximumInputLength, aad.count <= maximumInputLength else {
            throw CryptoError(.unsupported, "AES-GCM input longer than \(maximumInputLength) bytes")
        }
    }

    private static func wipe(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        OPENSSL_cleanse(base, bytes.count)
    }

    /// One EVP_CIPHER_CTX set up for AES-256-GCM with the IV length set before key and IV.
    private final class Context {
        /// Owned; freed in deinit.
        let pointer: OpaquePointer
        private let encrypting: Bool

        init(encrypting: Bool, key: [UInt8], iv: [UInt8]) throws {
            guard let pointer = EVP_CIPHER_CTX_new() else {
                throw CryptoError.openSSL(.internalFailure, "EVP_CIPHER_CTX_new failed")
            }
            self.pointer = pointer
            self.encrypting = encrypting
            let initialise = encrypting ? EVP_EncryptInit_ex : EVP_DecryptInit_ex
            // The IV length must be set before the key and IV are.
            guard initialise(pointer, fetchedAES256GCM, nil, nil, nil) == 1,
                  EVP_CIPHER_CTX_ctrl(pointer, EVP_CTRL_AEAD_SET_IVLEN, Int32(iv.count), nil) == 1,
                  initialise(pointer, nil, nil, key, iv) == 1
            else {
                throw CryptoError.openSSL(.internalFailure, "AES-GCM set-up failed")
            }
        }

        deinit {
            EVP_CIPHER_CTX_free(pointer)
        }

        func addAAD(_ aad: [UInt8]) throws {
            guard !aad.isEmpty else { return }
            var length: Int32 = 0
            let update = encrypting ? EVP_EncryptUpdate : EVP_DecryptUpdate
            guard update(pointer, nil, &length, aad, Int32(aad.count)) == 1 else {
                throw CryptoError.openSSL(.internalFailure, "AES-GCM: cannot add the AAD")
            }
        }

        /// `output` has input's length; GCM writes exactly that much.
        func update(_ input: [UInt8], into output: inout [UInt8]) throws {
            guard !input.isEmpty else { return }
            var length: Int32 = 0
            let update = encrypting ? EVP_EncryptUpdate : EVP_DecryptUpdate
            guard output.count == input.count,
                  update(pointer, &output, &length, input, Int32(input.count)) == 1,
                  length == Int32(input.count)
            else {
                throw CryptoError.openSSL(.internalFailure, "AES-GCM update failed")
            }
        }
    }
}

/// Whether AES-GCM's cipher is one fetched from a provider (for the tests).
var aesGCMIsFetched: Bool {
    EVP_CIPHER_get0_provider(fetchedAES256GCM) != nil
}

// Fetched from libcrypto's providers once, as the digests are (Digest.swift): the legacy
// `EVP_aes_256_gcm()` is looked up again at every initialisation.
nonisolated(unsafe) private let fetchedAES256GCM: OpaquePointer? = {
    guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else {
        OpenSSLErrorQueue.clear()
        return EVP_aes_256_gcm()
    }
    return cipher
}()
