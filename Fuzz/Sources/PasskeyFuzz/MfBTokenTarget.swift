import Foundation
import PasskeyCrypto
import PasskeyMfB

/// `mfb-token`: the Messages for Business token decryption (`MfBToken.decrypt`) with a fixed
/// P-384 key (the seed's, from Apple's exercise), and ECDH on the token's first 97 bytes.
///
/// An input takes one of two forms:
/// - raw: the bytes are the token.
/// - structured (the first byte is 0x00, never a valid point prefix): `0x00 || scalar (48) ||
///   position (2) || plaintext`. The target encrypts the plaintext to the fixed key with the
///   scalar as the ephemeral key (when it is a valid one), so the tag verifies and the whole
///   path runs; then flips one bit at `position` (modulo the token's length).
///
/// Consistency checks: an accepted token's plaintext is 113 bytes shorter than the token and
/// its steps are the token's own bytes; a token built here decrypts to its plaintext, and with
/// one bit flipped is refused with the one decryption error.
enum MfBTokenTarget {
    static let privateKey: ECPrivateKey = {
        guard let scalar = Data(base64Encoded: "pX/BvdXXUdpC79mW/jWi10Z6PJb5SBY2+aqkR/qYOjqgakKsqZFKnl0kz10Ve+BP"),
              let key = try? ECPrivateKey(curve: .p384, scalar: [UInt8](scalar))
        else { fatalError("mfb-token: cannot load the seed's private key") }
        return key
    }()

    static func run(_ bytes: [UInt8]) {
        if bytes.first == 0x00 {
            structured(Array(bytes.dropFirst()))
        }
        raw(bytes)
    }

    static func raw(_ token: [UInt8]) {
        let point = Array(token.prefix(97))
        if let secret = attempt("ECDH on the first 97 bytes", { try privateKey.sharedSecret(withUncompressedPoint: point) }) {
            expect(point.count == 97 && point.first == 0x04, "ECDH accepted a \(point.count)-byte point starting \(point.first ?? 0)")
            expect(secret.count == 48, "ECDH gave \(secret.count) bytes")
        }
        let result = Result { () throws(MfBError) in try MfBToken.decryptWithSteps(token: token, privateKey: privateKey) }
        switch result {
        case .success(let steps):
            note("decrypt: accepted")
            check(steps, of: token)
        case .failure(let error):
            note("decrypt: \(error)")
            expect(error == .decryptFailed, "decrypt failed with \(error)")
        }
    }

    static func structured(_ bytes: [UInt8]) {
        guard bytes.count >= 50 else { return }
        let scalar = Array(bytes[0..<48])
        let position = Int(bytes[48]) << 8 | Int(bytes[49])
        let plaintext = Array(bytes[50...].prefix(MfBToken.maximumLength - MfBToken.minimumLength))
        guard let ephemeral = attempt("ephemeral scalar", { try ECPrivateKey(curve: .p384, scalar: scalar) }) else { return }
        guard let z = attempt("ECDH with the fixed key", { try ephemeral.sharedSecret(withUncompressedPoint: privateKey.publicPoint) }),
              let derived = attempt("KDF", { try X963KDF.sha256(sharedSecret: z, sharedInfo: ephemeral.publicPoint, length: 48) }),
              let sealed = attempt("seal", { try AESGCM.seal(plaintext: plaintext, key: Array(derived.prefix(32)), iv: Array(derived.suffix(16))) })
        else {
            expect(false, "could not encrypt to the fixed key")
            return
        }
        let token = ephemeral.publicPoint + sealed.ciphertext + sealed.tag
        let decrypted = Result { () throws(MfBError) in try MfBToken.decryptWithSteps(token: token, privateKey: privateKey) }
        guard case .success(let steps) = decrypted else {
            expect(false, "a token made for the fixed key was refused")
            return
        }
        check(steps, of: token)
        expect(steps.plaintext == plaintext, "decrypt changed the plaintext")
        expect(steps.ephemeralPublicKey == ephemeral.publicPoint && steps.sharedKey == z, "decrypt used another key agreement")
        var tampered = token
        let index = position % tampered.count
        tampered[index] ^= UInt8(1) << UInt8(position >> 13)
        let refused = Result { () throws(MfBError) in try MfBToken.decrypt(token: tampered, privateKey: privateKey) }
        guard case .failure(let error) = refused else {
            expect(false, "a token with byte \(index) changed was accepted")
            return
        }
        expect(error == .decryptFailed, "a changed token failed with \(error)")
    }

    /// What holds for any accepted token.
    static func check(_ steps: MfBToken.Steps, of token: [UInt8]) {
        expect(steps.plaintext.count == token.count - MfBToken.minimumLength, "plaintext of \(steps.plaintext.count) bytes from \(token.count)")
        expect(steps.ephemeralPublicKey == Array(token.prefix(97)), "the ephemeral key is not the first 97 bytes")
        expect(steps.x.count == 48 && steps.y.count == 48, "coordinates of \(steps.x.count) and \(steps.y.count) bytes")
        expect(steps.tag == Array(token.suffix(16)), "the tag is not the last 16 bytes")
        expect(steps.ciphertext.count == steps.plaintext.count, "ciphertext and plaintext lengths differ")
        expect(steps.derivedKey.count == 32 && steps.iv.count == 16 && steps.sharedKey.count == 48, "derived lengths")
    }
}
