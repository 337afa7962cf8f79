import PasskeyJSON
import Foundation
import PasskeyApple
import PasskeyCore
import PasskeyCrypto
import Testing

@Suite struct AppleClientSecretTests {
    @Test func makesAnES256JWTThatVerifiesWithTheKey() throws {
        let key = try PrivateKey.generateEC(.p256)
        let secret = try AppleClientSecret.make(
            teamID: "TEAM123456", keyID: "KEY1234567", clientID: "com.example.web", privateKey: key, now: testNow, lifetime: 3600)
        let parts = secret.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)

        let header = try #require(Base64URL.decodeStrict(parts[0]))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256","kid":"KEY1234567"}"#)
        let claims = try #require(Base64URL.decodeStrict(parts[1]))
        #expect(String(decoding: claims, as: UTF8.self)
            == #"{"aud":"https://appleid.apple.com","exp":1750003600,"iat":1750000000,"iss":"TEAM123456","sub":"com.example.web"}"#)

        let raw = try #require(Base64URL.decodeStrict(parts[2]))
        #expect(raw.count == 64)
        let der = try ECDSASignature.der(raw: raw, curve: .p256)
        #expect(key.publicKey.isValidSignature(der, for: Array((parts[0] + "." + parts[1]).utf8), algorithm: .ecdsa(.sha256)))
        #expect(!key.publicKey.isValidSignature(der, for: Array((parts[0] + ".x").utf8), algorithm: .ecdsa(.sha256)))
    }

    @Test func refusesALifetimeApplesEndpointsWouldRefuse() throws {
        let key = try PrivateKey.generateEC(.p256)
        for lifetime in [0, -1, 15_777_001, .infinity, .nan] as [TimeInterval] {
            #expect(throws: AppleClientSecret.Failure.self) {
                try AppleClientSecret.make(teamID: "T", keyID: "K", clientID: "C", privateKey: key, now: testNow, lifetime: lifetime)
            }
        }
        _ = try AppleClientSecret.make(teamID: "T", keyID: "K", clientID: "C", privateKey: key, now: testNow, lifetime: 15_777_000)
    }

    @Test func refusesAKeyThatIsNotP256() throws {
        let key = try PrivateKey.generateEC(.p384)
        #expect(throws: AppleClientSecret.Failure.self) {
            try AppleClientSecret.make(teamID: "T", keyID: "K", clientID: "C", privateKey: key, now: testNow)
        }
    }

    @Test func escapesWhatItWritesIntoJSON() throws {
        let key = try PrivateKey.generateEC(.p256)
        let secret = try AppleClientSecret.make(teamID: "T\"1", keyID: "K\\", clientID: "C", privateKey: key, now: testNow)
        let header = try #require(Base64URL.decodeStrict(String(secret.split(separator: ".")[0])))
        try StrictJSON.validate(header)
    }

    @Test func refusesAClockOutsideNumericDates() throws {
        let key = try PrivateKey.generateEC(.p256)
        #expect(throws: AppleClientSecret.Failure.self) {
            try AppleClientSecret.make(teamID: "T", keyID: "K", clientID: "C", privateKey: key, now: .distantPast)
        }
    }
}
