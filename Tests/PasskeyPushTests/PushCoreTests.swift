import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyPush
import Testing

/// A phone's key and what it signs, for the tests.
struct TestDevice: Sendable {
    static let shared = TestDevice(id: "5a1a3c1e-0000-4000-8000-000000000001")
    let id: String
    let key: PrivateKey
    /// P-256 devices sign with ECDSA (DER at enrolment, ES256 in answers), others with RSA.
    var isEC: Bool { key.publicKey.kind == .ec(.p256) }

    init(id: String, bits: Int = 2048) {
        self.id = id
        // swiftlint:disable:next force_try
        key = try! PrivateKey.generateRSA(bits: bits)
    }

    init(id: String, curve: EllipticCurve) {
        self.id = id
        // swiftlint:disable:next force_try
        key = try! PrivateKey.generateEC(curve)
    }

    var publicKeyBase64: String { Data(key.publicKey.subjectPublicKeyInfo).base64EncodedString(options: .lineLength64Characters) }

    func sign(_ message: String) -> String {
        let algorithm: SignatureAlgorithm = isEC ? .ecdsa(.sha256) : .rsaPKCS1v15(.sha256)
        return Data((try? key.signature(for: Array(message.utf8), algorithm: algorithm)) ?? []).base64EncodedString()
    }

    /// An answer JWT; `header` and `claims` are merged over the defaults.
    func answer(
        pushAuthID: String = "p1", challenge: String = "c1", response: String = "APPROVED", number: Any? = "42",
        exp: Double? = Date().timeIntervalSince1970 + 300, header: [String: Any] = [:], claims extra: [String: Any] = [:],
        signer: PrivateKey? = nil
    ) -> String {
        var head: [String: Any] = ["alg": isEC ? "ES256" : "RS256", "deviceId": id]
        head.merge(header) { $1 }
        var claims: [String: Any] = ["pushAuthId": pushAuthID, "challenge": challenge, "response": response]
        if let number { claims["numberChallenge"] = number }
        if let exp { claims["exp"] = exp }
        claims.merge(extra) { $1 }
        func encode(_ object: [String: Any]) -> String {
            Base64URL.encode(Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()))
        }
        let input = encode(head) + "." + encode(claims)
        let signing = signer ?? key
        let signature: [UInt8]
        if signing.publicKey.kind == .ec(.p256) {
            let der = (try? signing.signature(for: Array(input.utf8), algorithm: .ecdsa(.sha256))) ?? []
            signature = (try? ECDSASignature.concatenated(der: der, size: 32)) ?? []
        } else {
            signature = (try? signing.signature(for: Array(input.utf8), algorithm: .rsaPKCS1v15(.sha256))) ?? []
        }
        return input + "." + Base64URL.encode(signature)
    }
}

@Suite struct DeviceKeyTests {
    @Test func acceptsRSA2048WithLineBreaks() throws {
        let device = TestDevice.shared
        let key = try DeviceKey.parse(device.publicKeyBase64)
        #expect(DeviceKey.label(key) == "RSA-2048")
        #expect(device.publicKeyBase64.contains("\n"))
    }

    /// The content of an SPKI's BIT STRING, past its unused-bits byte: for RSA, the PKCS#1
    /// RSAPublicKey iOS exports.
    static func pkcs1(_ key: PublicKey) throws -> [UInt8] {
        Array(try DER.parseSequence(key.subjectPublicKeyInfo)[1].content.dropFirst())
    }

    @Test func refusesWeakOrOtherKeysAsWeakKey() throws {
        let small = try PrivateKey.generateRSA(bits: 1024)
        let p384 = try PrivateKey.generateEC(.p384)
        let point = try #require(try PrivateKey.generateEC(.p256).publicKey.ecCoordinates)
        var offCurve = [0x04] + point.x + point.y
        offCurve[64] ^= 0x01
        // Keys that decode but are not accepted: weak_key.
        for text in [
            Data(small.publicKey.subjectPublicKeyInfo).base64EncodedString(),
            Data(try Self.pkcs1(small.publicKey)).base64EncodedString(),
            Data(p384.publicKey.subjectPublicKeyInfo).base64EncodedString(),
            Data(offCurve).base64EncodedString(),
        ] {
            #expect { try DeviceKey.parse(text) } throws: { ($0 as? PushError)?.code == "weak_key" }
        }
        // Text that is not base64, or not one of the three encodings: invalid_request.
        for text in ["not base64!", "", Data([0x30, 0x03, 0x02, 0x01, 0x01]).base64EncodedString(),
                     Data([0x04] + point.x).base64EncodedString(), String(repeating: "A", count: 10000)] {
            #expect { try DeviceKey.parse(text) } throws: { ($0 as? PushError)?.code == "invalid_request" }
        }
        // e = 3 with a 2048-bit modulus.
        let modulus = TestDevice.shared.key.publicKey.rsaComponents?.modulus ?? []
        let three = try PublicKey.rsa(modulus: modulus, exponent: [3])
        #expect { try DeviceKey.checkStrength(three) } throws: { ($0 as? PushError)?.code == "weak_key" }
        // A modulus with the ROCA fingerprint (Wycheproof's JWK test 7): it can be factored.
        let roca = try PublicKey.rsa(modulus: try #require(Base64URL.decodeStrict(Self.rocaModulus)), exponent: [1, 0, 1])
        #expect { try DeviceKey.checkStrength(roca) } throws: { ($0 as? PushError)?.code == "weak_key" }
        #expect(throws: Never.self) { try DeviceKey.checkStrength(TestDevice.shared.key.publicKey) }
    }

    static let rocaModulus = "AanFpofbj7KjD4Lf-N2hVMKR7yewSyXhhbirIMTGpfYEhZ_lnt5UoK98DnKIgArXGTu3MaW_HhFw16HGaTDUHqPrId7fe4r11CqRw09yBFuW79V8sYIwHdzCaWflUI6auImYbVfoN9_nD5n8N8SY9DwXw7mwZM9wREPXoDPgOoIWl6q_MPsp7n0zs3Z5ZaiQWOOzl1S9OhwAfSiiOwz6efnXEaxuTEtPd7BjSx7NaFka8Dx9U7YqXy2RFj1O9PjyaDGuRh7YXsX3iMUSP_wSyHQg_c_qHRtKUsNSGCT7OZg0hzm2KphtjnayKJvC64vAbROBR4Ubg6Bxg9IQVZ-QYyE"

    /// Wycheproof's RSASSA-PKCS1-v1_5 SHA-256 cases through the check both enrolment and answers
    /// use: every valid one verifies, every invalid one is refused.
    @Test func wycheproofPKCS1Vectors() throws {
        let url = try #require(Bundle.module.url(forResource: "Vectors/wycheproof-rsa-pkcs1-2048-sha256", withExtension: "json"))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let groups = try #require(root["testGroups"] as? [[String: Any]])
        var counted = (valid: 0, invalid: 0)
        for group in groups {
            let der = try #require((group["publicKeyDer"] as? String).flatMap(Self.hex))
            // Groups with another exponent than 65537 are verified too, though enrolment refuses them.
            let key = try PublicKey(subjectPublicKeyInfo: der)
            if key.rsaComponents?.exponent != [1, 0, 1] {
                #expect { try DeviceKey.parse(Data(der).base64EncodedString()) } throws: { ($0 as? PushError)?.code == "weak_key" }
            }
            for test in try #require(group["tests"] as? [[String: Any]]) {
                let message = try #require((test["msg"] as? String).flatMap(Self.hex))
                let signature = try #require((test["sig"] as? String).flatMap(Self.hex))
                let verified = DeviceKey.verifies(signature, message: message, key: key)
                switch test["result"] as? String {
                case "valid":
                    #expect(verified, "tcId \(test["tcId"] ?? "?")")
                    counted.valid += 1
                case "invalid":
                    #expect(!verified, "tcId \(test["tcId"] ?? "?")")
                    counted.invalid += 1
                default: break
                }
            }
        }
        #expect(counted.valid >= 7 && counted.invalid >= 240)
    }

    static func hex(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let h = ASCIIHex.value(high), let l = ASCIIHex.value(low) else { return nil }
            bytes.append(h << 4 | l)
        }
        return bytes
    }

    @Test func enrolmentSignatureCoversChallengeAndToken() throws {
        let device = TestDevice.shared
        let key = try DeviceKey.parse(device.publicKeyBase64)
        let signature = device.sign("chal.tok")
        try Enrolment.checkSignature(signature, challenge: "chal", deviceToken: "tok", key: key)
        for (challenge, token) in [("chal", "other"), ("other", "tok"), ("chaltok", "")] {
            #expect { try Enrolment.checkSignature(signature, challenge: challenge, deviceToken: token, key: key) } throws: {
                ($0 as? PushError)?.code == "invalid_signature"
            }
        }
        #expect { try Enrolment.checkSignature("%%%", challenge: "chal", deviceToken: "tok", key: key) } throws: {
            ($0 as? PushError)?.code == "invalid_request"
        }
    }

    /// What `SecKeyCopyExternalRepresentation` gives for an RSA key: PKCS#1, not SPKI.
    @Test func acceptsPKCS1AsAniPhoneExportsRSA() throws {
        let device = TestDevice.shared
        let pkcs1 = try Self.pkcs1(device.key.publicKey)
        #expect(pkcs1.first == 0x30 && pkcs1.count < device.key.publicKey.subjectPublicKeyInfo.count)
        let key = try DeviceKey.parse(Data(pkcs1).base64EncodedString(options: .lineLength64Characters))
        #expect(DeviceKey.label(key) == "RSA-2048")
        #expect(key.subjectPublicKeyInfo == device.key.publicKey.subjectPublicKeyInfo)
        try Enrolment.checkSignature(device.sign("chal.tok"), challenge: "chal", deviceToken: "tok", key: key)
    }

    /// What it gives for a Secure Enclave key: a 65-byte X9.63 point; enrolment signs with DER
    /// ECDSA, answers are ES256.
    @Test func acceptsAP256PointWithDERSignaturesAndES256Answers() throws {
        let device = TestDevice(id: "5a1a3c1e-0000-4000-8000-0000000000ec", curve: .p256)
        let point = try #require(device.key.publicKey.ecCoordinates)
        let x963 = [0x04] + point.x + point.y
        #expect(x963.count == 65)
        let key = try DeviceKey.parse(Data(x963).base64EncodedString())
        #expect(DeviceKey.label(key) == "P-256")
        #expect(DeviceKey.jwsAlgorithm(key) == "ES256")
        try Enrolment.checkSignature(device.sign("chal.tok"), challenge: "chal", deviceToken: "tok", key: key)
        #expect { try Enrolment.checkSignature(device.sign("chal.other"), challenge: "chal", deviceToken: "tok", key: key) } throws: {
            ($0 as? PushError)?.code == "invalid_signature"
        }
        let answer = try AnswerToken.verify(device.answer(), key: key, now: Date())
        #expect(answer.approved && answer.deviceID == device.id)
        // The device's algorithm only: RS256 from a P-256 device, or ES256 from an RSA one, is refused.
        #expect { try AnswerToken.verify(device.answer(header: ["alg": "RS256"]), key: key, now: Date()) } throws: {
            ($0 as? PushError)?.code == "invalid_token"
        }
        let rsa = try DeviceKey.parse(TestDevice.shared.publicKeyBase64)
        #expect { try AnswerToken.verify(TestDevice.shared.answer(header: ["alg": "ES256"]), key: rsa, now: Date()) } throws: {
            ($0 as? PushError)?.code == "invalid_token"
        }
    }

    @Test func numbersAreUniformIn1To100() {
        var seen = Set<Int>()
        for _ in 0..<5000 { seen.insert(NumberChallenge.draw()) }
        #expect(seen.min() == 1)
        #expect(seen.max() == 100)
        #expect(seen.count == 100)
    }
}

@Suite struct AnswerTokenTests {
    let device = TestDevice.shared
    var key: PublicKey { device.key.publicKey }
    let now = Date()

    func code(_ token: String) -> String? {
        do {
            _ = try AnswerToken.verify(token, key: key, now: now)
            return nil
        } catch {
            return error.code.rawValue
        }
    }

    @Test func readsAnApproval() throws {
        let answer = try AnswerToken.verify(device.answer(number: 42), key: key, now: now)
        #expect(answer.deviceID == device.id && answer.pushAuthID == "p1" && answer.challenge == "c1")
        #expect(answer.approved)
        #expect(answer.numberChallenge == "42")
        #expect(try AnswerToken.deviceID(of: device.answer()) == device.id)
        #expect(try AnswerToken.verify(device.answer(response: "DENIED", number: nil), key: key, now: now).approved == false)
    }

    @Test func refusesWhatIsNotAnRS256TokenOfThisDevice() {
        #expect(code("a.b") == "invalid_token")
        #expect(code("...") == "invalid_token")
        #expect(code(device.answer(header: ["alg": "none"])) == "invalid_token")
        #expect(code(device.answer(header: ["alg": "HS256"])) == "invalid_token")
        #expect(code(device.answer(header: ["crit": ["exp"]])) == "invalid_token")
        #expect(code(device.answer(header: ["deviceId": ""])) == "invalid_token")
        let other = TestDevice(id: "x")
        #expect(code(device.answer(signer: other.key)) == "invalid_token")
        #expect(code(device.answer(response: "MAYBE")) == "invalid_token")
        #expect(code(device.answer(claims: ["pushAuthId": 5])) == "invalid_token")
        #expect(code(String(repeating: "a", count: 9000)) == "invalid_token")
    }

    /// The seed's server checked only that `exp` had not passed: a token could be good for years.
    @Test func expiryIsRequiredAndAtMostTenMinutesAhead() {
        let seconds = now.timeIntervalSince1970
        #expect(code(device.answer(exp: nil)) == "token_expired")
        #expect(code(device.answer(exp: seconds - 120)) == "token_expired")
        #expect(code(device.answer(exp: seconds + 86400 * 365)) == "token_expired")
        #expect(code(device.answer(exp: seconds + 700)) == "token_expired")
        #expect(code(device.answer(exp: seconds + 590)) == nil)
        #expect(code(device.answer(claims: ["exp": "soon"])) == "invalid_token")
        #expect(code(device.answer(claims: ["exp": 1e308])) == "token_expired")
        #expect(code(device.answer(claims: ["exp": -1])) == "token_expired")
    }

    @Test func theDecisionMatchesTheNumberAndTheChallenge() throws {
        func decide(_ token: String, number: Int? = 42, mode: NumberChallenge.Mode = .inPush) throws -> PushRequestStatus {
            try PushDecision.decide(try AnswerToken.verify(token, key: key, now: now), challenge: "c1", number: number, mode: mode)
        }
        #expect(try decide(device.answer(number: 42)) == .approved)
        #expect(try decide(device.answer(number: "42")) == .approved)
        #expect(try decide(device.answer(number: 41)) == .numberMismatch)
        #expect(try decide(device.answer(number: nil)) == .numberMismatch)
        #expect(try decide(device.answer(number: " 42")) == .numberMismatch)
        #expect(try decide(device.answer(number: 41), mode: .typeIn) == .numberMismatch)
        #expect(try decide(device.answer(number: nil), number: nil, mode: .off) == .approved)
        #expect(try decide(device.answer(response: "DENIED", number: nil)) == .denied)
        #expect { try decide(device.answer(challenge: "c2")) } throws: { ($0 as? PushError)?.code == "unknown_challenge" }
    }
}

/// docs/contracts/push.md: the `deviceToken` forms each provider can address.
@Suite struct DeviceTokenTests {
    static let apns = String(repeating: "0123456789abcdef", count: 4)  // 32 bytes, as iOS gives today
    static let fcm = "dQw4w9WgXcQ:APA91bH-" + String(repeating: "x_Y-z", count: 30)

    @Test func anAPNsTokenIsHexOf32To100Bytes() throws {
        for token in [Self.apns, Self.apns.uppercased(), String(repeating: "ab", count: 100)] {
            #expect(DeviceToken.isAPNs(token), "\(token)")
            try DeviceToken.check(token, provider: "apns")
        }
        for token in ["", String(Self.apns.dropLast()), String(repeating: "ab", count: 31), String(repeating: "ab", count: 101),
                      Self.apns.replacingOccurrences(of: "a", with: "g"), "<" + Self.apns.dropFirst(2) + ">", Self.apns + " ",
                      String(Self.apns.prefix(32)) + " " + String(Self.apns.suffix(31)), Self.fcm] {
            #expect(!DeviceToken.isAPNs(token), "\(token)")
            #expect { try DeviceToken.check(token, provider: "apns") } throws: { ($0 as? PushError)?.code == "invalid_request" }
        }
    }

    @Test func anFCMTokenIsItsOwnOpaqueForm() throws {
        try DeviceToken.check(Self.fcm, provider: "fcm")
        try DeviceToken.check(Self.apns, provider: "fcm")  // hex is within FCM's alphabet
        for token in ["", "a b", "tok/../x", "tok?x=1", "tok\u{0}", "é", String(repeating: "a", count: 4097)] {
            #expect { try DeviceToken.check(token, provider: "fcm") } throws: { ($0 as? PushError)?.code == "invalid_request" }
        }
    }

    @Test func anOwnGatewayTakesEitherForm() throws {
        for provider in ["log", "webhook"] {
            try DeviceToken.check(Self.apns, provider: provider)
            try DeviceToken.check(Self.fcm, provider: provider)
            #expect { try DeviceToken.check("not a token", provider: provider) } throws: { ($0 as? PushError)?.code == "invalid_request" }
        }
    }
}
