import Foundation
import PasskeyCrypto
import PasskeyPush
import PasskeyQR

/// `push-answer`: what a phone sends — the answer JWT (read unverified for its deviceId, then
/// verified with a fixed device key), the enrolment's public key and signature.
///
/// An input is taken whole as the answer token and as the public key text; split at the first
/// NUL it is also `signature NUL deviceToken` for the enrolment check.
enum PushAnswerTarget {
    /// A fixed device key: the only signatures that verify are ones the fuzzer cannot make, so
    /// what runs is every check before and around the signature.
    static let deviceKey: PrivateKey? = try? PrivateKey.generateRSA(bits: 2048)

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let deviceID = attempt("answer deviceId", { try AnswerToken.deviceID(of: text) }) {
            expect(!deviceID.isEmpty && deviceID.utf8.count <= 64, "a deviceId outside 1…64 bytes passed")
        }
        if let key = deviceKey?.publicKey {
            _ = attempt("answer verify") { try AnswerToken.verify(text, key: key, now: Date(timeIntervalSince1970: 1_800_000_000)) }
            if let separator = bytes.firstIndex(of: 0) {
                let signature = String(decoding: bytes[..<separator], as: UTF8.self)
                let token = String(decoding: bytes[(separator + 1)...], as: UTF8.self)
                _ = attempt("enrolment signature") { try Enrolment.checkSignature(signature, challenge: "c", deviceToken: token, key: key) }
            }
        }
        if let key = attempt("device key", { try DeviceKey.parse(text) }) {
            expect(DeviceKey.label(key).hasPrefix("RSA-"), "a device key that is not RSA passed")
        }
    }
}

/// `qr`: any text into a QR code, and the code into SVG; the SVG must hold no unescaped markup
/// from the text.
enum QRTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let code = attempt("qr", { try QRCode(text) }) else { return }
        expect((21...177).contains(code.width) && code.modules.count == code.width * code.width, "a QR matrix of the wrong size")
        let svg = code.svg(title: text)
        expect(svg.hasPrefix("<svg ") && svg.hasSuffix("</svg>"), "the SVG is not one element")
        expect(svg.components(separatedBy: "<title>").count <= 2, "the title broke out of its element")
    }
}
