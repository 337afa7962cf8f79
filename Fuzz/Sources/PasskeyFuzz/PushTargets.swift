import Foundation
import PasskeyCrypto
import PasskeyPush
import PasskeyQR

/// `push-answer`: what a phone sends — the answer JWT (read unverified for its deviceId, then
/// verified with a fixed device key, and as a recovery veto), the enrolment's public key,
/// signature and device token.
///
/// An input is taken whole as the answer token and as the public key text; split at the first
/// NUL it is also `signature NUL deviceToken` for the enrolment check.
enum PushAnswerTarget {
    /// A fixed device key (Wycheproof's first RSA-2048 key): the only signatures that verify are
    /// ones the fuzzer cannot make, so what runs is every check before and around the signature.
    /// Its DER, not a key object: a key made once and kept would count as a leak.
    /// (A single literal: stored in the binary, never allocated.)
    static let deviceKeyDER = "30820122300d06092a864886f70d01010105000382010f003082010a0282010100a2b451a07d0aa5f96e455671513550514a8a5b462ebef717094fa1fee82224e637f9746d3f7cafd31878d80325b6ef5a1700f65903b469429e89d6eac8845097b5ab393189db92512ed8a7711a1253facd20f79c15e8247f3d3e42e46e48c98e254a2fe9765313a03eff8f17e1a029397a1fa26a8dce26f490ed81299615d9814c22da610428e09c7d9658594266f5c021d0fceca08d945a12be82de4d1ece6b4c03145b5d3495d4ed5411eb878daf05fd7afc3e09ada0f1126422f590975a1969816f48698bcbba1b4d9cae79d460d8f9f85e7975005d9bc22c4e5ac0f7c1a45d12569a62807d3b9a02e5a530e773066f453d1f5b4c2e9cf7820283f742b9d50203010001"

    static func deviceKey() -> PublicKey? {
        var der: [UInt8] = []
        var index = deviceKeyDER.startIndex
        while index < deviceKeyDER.endIndex {
            let next = deviceKeyDER.index(index, offsetBy: 2)
            guard let byte = UInt8(deviceKeyDER[index..<next], radix: 16) else { return nil }
            der.append(byte)
            index = next
        }
        return try? PublicKey(subjectPublicKeyInfo: der)
    }

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let deviceID = attempt("answer deviceId", { try AnswerToken.deviceID(of: text) }) {
            expect(!deviceID.isEmpty && deviceID.utf8.count <= 64, "a deviceId outside 1…64 bytes passed")
        }
        if let key = Self.deviceKey() {
            _ = attempt("answer verify") { try AnswerToken.verify(text, key: key, now: Date(timeIntervalSince1970: 1_800_000_000)) }
            _ = attempt("veto verify") { try AnswerToken.verifyVeto(text, key: key, now: Date(timeIntervalSince1970: 1_800_000_000)) }
            if let separator = bytes.firstIndex(of: 0) {
                let signature = String(decoding: bytes[..<separator], as: UTF8.self)
                let token = String(decoding: bytes[(separator + 1)...], as: UTF8.self)
                _ = attempt("enrolment signature") { try Enrolment.checkSignature(signature, challenge: "c", deviceToken: token, key: key) }
            }
        }
        for provider in ["apns", "fcm", "webhook"] {
            guard attempt("device token", { try DeviceToken.check(text, provider: provider) }) != nil else { continue }
            // Whatever passes goes into a request path or a provider's field as it is.
            expect(!text.isEmpty && text.utf8.count <= DeviceToken.maximumFCMLength, "a device token of \(text.utf8.count) bytes passed")
            expect(text.utf8.allSatisfy { $0 < 0x80 && $0 != 0x2f && $0 != 0x3f && $0 != 0x25 && $0 > 0x20 }, "a device token with a path character passed")
            if provider == "apns" { expect(text.utf8.count % 2 == 0, "an APNs token of odd length passed") }
        }
        do {
            let key = try DeviceKey.parse(text)
            let label = DeviceKey.label(key)
            expect(label.hasPrefix("RSA-") || label == "P-256", "a device key that is neither RSA nor P-256 passed: \(label)")
        } catch {
            expect(error.code == "weak_key" || error.code == "invalid_request", "a device key refused with \(error.code)")
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
        let lines = code.text().split(separator: "\n")
        expect(lines.count == (code.width + 5) / 2 && lines.allSatisfy { $0.unicodeScalars.count == code.width + 4 }, "the terminal QR code is not square")
    }
}
