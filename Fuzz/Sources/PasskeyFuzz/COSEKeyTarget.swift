import PasskeyCore
import PasskeyCrypto

/// `cose-key`: `COSEKey(bytes:)` (RFC 9052 §7) and, when it parses, a signature check with
/// fixed messages and signatures of every shape an algorithm might take, so that the key import
/// (EC point, Edwards key, RSA modulus and exponent) and the verification paths run on it.
enum COSEKeyTarget {
    static let message = Array("passkey-fuzz message".utf8)

    static let signatures: [[UInt8]] = [
        // DER ECDSA-Sig-Value with r = s = 1, and with 32-byte r and s.
        [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],
        [0x30, 0x44, 0x02, 0x20] + [UInt8](repeating: 0x5A, count: 32) + [0x02, 0x20] + [UInt8](repeating: 0x3C, count: 32),
        // Raw r ‖ s for P-256, an Ed25519 and an Ed448 signature.
        [UInt8](repeating: 0x11, count: 64),
        [UInt8](repeating: 0x22, count: 114),
        // RSA-2048 sized.
        [UInt8](repeating: 0x01, count: 256),
    ]

    static func run(_ bytes: [UInt8]) {
        guard let key = attempt("COSE key", { try COSEKey(bytes: bytes) }) else { return }
        _ = (key.keyType, key.algorithmIdentifier, key.algorithm?.signatureAlgorithm, key.algorithm?.digest)
        if let publicKey = key.publicKey {
            _ = publicKey.kind
            _ = publicKey.subjectPublicKeyInfo.count
            _ = publicKey.ecCoordinates
            _ = publicKey.edwardsRaw
            expect(publicKey.matches(publicKey), "a public key does not match itself")
            // Re-importing the key's own SubjectPublicKeyInfo gives the same key.
            if let again = try? PublicKey(subjectPublicKeyInfo: publicKey.subjectPublicKeyInfo) {
                expect(again.matches(publicKey), "SubjectPublicKeyInfo round trip changed the key")
            }
        }
        var candidates = signatures
        if let modulus = key.publicKey?.rsaComponents?.modulus {
            // A signature as long as the modulus reaches the RSA verification itself.
            candidates.append([UInt8](repeating: 0x01, count: modulus.count))
        }
        for signature in candidates {
            let valid = key.isValidSignature(signature, for: message)
            note("\(signature.count)-byte signature valid: \(valid)")
        }
    }
}
