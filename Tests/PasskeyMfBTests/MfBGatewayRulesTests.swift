import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyJSON
import PasskeyMfB
import Testing

/// Seed 001's gateway rules and seed 000's device error tables, as pure functions.
@Suite struct MfBGatewayRulesTests {
    @Test func eachAnswerHasSeed001sMeaningAndOnlyServerErrorsAreRetried() {
        #expect(MfBGateway.meaning(ofStatus: 404) == "The request failed to recognize the destination-id value.")
        #expect(MfBGateway.meaning(ofStatus: 401) == "The request lacks Authorization header.")
        #expect(MfBGateway.meaning(ofStatus: 403) == "The request failed to validate the Authorization header field.")
        #expect(MfBGateway.meaning(ofStatus: 400) == "The request lacks required field or was malformed.")
        #expect(MfBGateway.meaning(ofStatus: 500) == "A server error occurred.")
        for status in [400, 401, 403, 404, 200] { #expect(!MfBGateway.isRetryable(status: status), "\(status)") }
        for status in [500, 503] as [Int?] + [nil] { #expect(MfBGateway.isRetryable(status: status), "\(String(describing: status))") }
    }

    @Test func theHeadersAreSeed001sInItsOrder() {
        let routing = MfBGateway.Routing(messageID: "m", sourceID: "s", destinationID: "d", capabilities: ["auth", "list"], deviceAgent: "iPhone")
        let headers = MfBGateway.headers(routing, authorization: "Bearer x", mspAgent: "agent")
        #expect(headers.map(\.name) == ["id", "source-id", "destination-id", "version", "capabilities", "device-agent", "msp-agent", "auto-reply", "Authorization"])
        #expect(headers.map(\.value) == ["m", "s", "d", "1.0", "auth,list", "iPhone", "agent", "true", "Bearer x"])
        // Unknown capabilities and agent: left out, not sent empty.
        let bare = MfBGateway.headers(MfBGateway.Routing(messageID: "m", sourceID: "s", destinationID: "d"), authorization: "a", mspAgent: "g")
        #expect(!bare.contains { $0.name == "capabilities" || $0.name == "device-agent" })
        #expect(MfBGateway.supportsAuthentication(["list", " auth"]) && !MfBGateway.supportsAuthentication(["authentication", "list"]))
    }

    @Test func theMSPsJWTIsHS256WithItsIdAndTheTime() throws {
        let secret = Array("secret".utf8)
        let token = MfBGateway.authorization(mspID: "msp-1", secret: secret, issuedAt: Date(timeIntervalSince1970: 1_800_000_000.7))
        let parts = token.dropFirst("Bearer ".count).split(separator: ".").map(String.init)
        try #require(parts.count == 3 && token.hasPrefix("Bearer "))
        #expect(Base64URL.encode(HMAC.sha256(key: secret, data: Array((parts[0] + "." + parts[1]).utf8))) == parts[2])
        #expect(String(decoding: Base64URL.decode(parts[0]) ?? [], as: UTF8.self) == #"{"alg":"HS256"}"#)
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(parts[1]) ?? [])) as? [String: Any])
        #expect(claims["aud"] as? String == "msp-1" && (claims["iat"] as? NSNumber)?.intValue == 1_800_000_000)
    }

    /// Every row of seed 000's two tables, by domain and code.
    @Test func deviceErrorsAreNamedAsSeed000Does() {
        let cryptor = "com.apple.icloud.messages.business.cryptor"
        let rows: [(Int, String?, String?, String)] = [
            (1, "com.apple.icloud.messages.business", nil, "BCTokenMissingError"),
            (2, "com.apple.icloud.messages.business", nil, "BCEmptyDataReceivedError"),
            (3, "com.apple.icloud.messages.business.authentication", nil, "BCAccessTokenMissingFromResponseError"),
            (1, cryptor, nil, "BCPublicKeyIsEmptyError"),
            (2, cryptor, "Key is not UTF8", "BCPublicKeyIsNotUTF8Error"),
            (3, cryptor, "Public key is invalid", "BCPublicKeyIsInvalidError"),
            (3, cryptor, "Failed reading key", "BCPublicKeyInternalError"),
            (4, cryptor, nil, "BCEncryptionError"),
        ]
        for (code, domain, message, name) in rows {
            let known = MfBDeviceErrors.known(code: code, domain: domain, message: message)
            #expect(known?.name == name, "\(code) \(domain ?? "")")
            #expect(known?.advice.isEmpty == false)
        }
        #expect(MfBDeviceErrors.known(code: 99, domain: cryptor, message: nil) == nil)
        #expect(MfBDeviceErrors.known(code: nil, domain: cryptor, message: nil) == nil)
        // A reply's name and advice are the server's, whatever the device wrote in them.
        let decoded = try? JSONDecoder().decode(MfBReply.DeviceError.self, from: Data(#"{"code":4,"domain":"x.cryptor","name":"forged","advice":"x"}"#.utf8))
        #expect(decoded?.name == "BCEncryptionError" && decoded?.advice != "x")
    }
}
