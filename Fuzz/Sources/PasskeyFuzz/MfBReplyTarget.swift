import Foundation
import PasskeyCore
import PasskeyMfB

/// `mfb-reply`: the device's reply as the messaging provider posts it (`MfBReply.parse`), and
/// the authorization endpoint's `responseEncryptionKey` parameter (`MfBKeyAudit.point`) on the
/// same bytes read as text.
///
/// Consistency checks: an accepted reply has a request identifier of 1 to 64 bytes, an
/// authenticated one a non-empty token, a failed one at most 16 errors whose texts hold no
/// control character and at most 512 bytes; a refusal is `invalid_request`. An accepted key is
/// 97 bytes starting 0x04 and the constant-time comparison agrees with `==`.
enum MfBReplyTarget {
    static func run(_ bytes: [UInt8]) {
        reply(bytes)
        key(String(decoding: bytes.prefix(256), as: UTF8.self))
    }

    static func reply(_ bytes: [UInt8]) {
        let result = Result { () throws(MfBError) in try MfBReply.parse(bytes) }
        switch result {
        case .failure(let error):
            note("reply: \(error)")
            expect(error.code == "invalid_request", "the reply parser failed with \(error.code)")
        case .success(let reply):
            note("reply: accepted")
            let length = reply.requestIdentifier.utf8.count
            expect(length >= 1 && length <= 64, "a request identifier of \(length) bytes")
            switch reply.outcome {
            case .authenticated(let token):
                expect(!token.isEmpty, "an authenticated reply without a token")
            case .failed(let errors):
                expect(errors.count <= MfBReply.maximumErrors, "\(errors.count) errors kept")
                for text in errors.flatMap({ [$0.domain, $0.message] }).compactMap({ $0 }) {
                    expect(text.utf8.count <= MfBReply.maximumTextLength, "an error text of \(text.utf8.count) bytes")
                    expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control }, "a control character kept")
                }
            }
        }
    }

    static func key(_ text: String) {
        guard let point = MfBKeyAudit.point(fromParameter: text) else { return }
        expect(point.count == 97 && point.first == 0x04, "a key of \(point.count) bytes starting \(point.first ?? 0)")
        var other = point
        expect(MfBKeyAudit.matches(presented: point, requested: other), "a key does not match itself")
        other[Int(point[1]) % 97] ^= 0x80
        expect(!MfBKeyAudit.matches(presented: point, requested: other), "a changed key matches")
        expect(!MfBKeyAudit.matches(presented: point, requested: Array(point.prefix(96))), "a shorter key matches")
    }
}
