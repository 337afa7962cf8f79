import Foundation
import PasskeyAccounts
import PasskeyCrypto

/// `sealed-ceremony`: a sign-in's challenge as a client sends it back. The input is opened as it
/// is (a forged challenge: never a ceremony), then sealed as a plaintext under the server's key
/// and opened, so the reader of the sealed fields sees every input. Consistency: a ceremony
/// that reads back is a sign-in's, and sealing it again opens to the same fields.
enum SealedCeremonyTarget {
    static let secret = [UInt8](repeating: 0x5A, count: 32)
    static let seal = SealedCeremony(serverSecret: secret)
    /// The key `SealedCeremony` derives from the secret (checked on the first input).
    static let key = HMAC.sha256(key: secret, data: Array("passkey ceremony seal v1".utf8))

    static func run(_ bytes: [UInt8]) {
        expect(seal.open(bytes) == nil, "a forged challenge opened")
        let iv = [UInt8](repeating: 0x11, count: 12)
        guard let (ciphertext, tag) = try? AESGCM.seal(plaintext: bytes, key: key, iv: iv, aad: [1]) else { return }
        let challenge = [1] + iv + ciphertext + tag
        guard let ceremony = seal.open(challenge) else { return }
        expect(ceremony.kind == .authentication && ceremony.challenge == challenge, "not a sign-in's ceremony, or not its challenge")
        let again = attempt("sealing what was read", { try seal.seal(ceremony) })
        var reopened = again.flatMap(seal.open)
        reopened?.challenge = challenge
        expect(reopened == ceremony, "sealed again, the ceremony reads back differently")
    }
}
