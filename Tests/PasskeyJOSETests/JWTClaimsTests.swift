import Foundation
import PasskeyJOSE
import PasskeyJSON
import Testing

@Suite struct JWTClaimsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func code(_ body: () throws(JOSEError) -> Void) -> JOSEError.Code? {
        do { try body() } catch { return error.code }
        return nil
    }

    @Test func expiryWithLeeway() {
        let at: (Double) -> [String: JSONValue] = { ["exp": .double(1_800_000_000 + $0)] }
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkExpiry(at(1), now: Self.now, leeway: 0) } == nil)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkExpiry(at(0), now: Self.now, leeway: 0) } == .expired)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkExpiry(at(-29), now: Self.now, leeway: 30) } == nil)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkExpiry(at(-30), now: Self.now, leeway: 30) } == .expired)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkExpiry([:], now: Self.now, leeway: 30) } == .invalidClaim)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkExpiry([:], now: Self.now, leeway: 30, required: false) } == nil)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkExpiry(["exp": .string("1800000001")], now: Self.now, leeway: 0) } == .invalidClaim)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkExpiry(["exp": .double(-1)], now: Self.now, leeway: 0) } == .invalidClaim)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkExpiry(["exp": .double(1e300)], now: Self.now, leeway: 0) } == .invalidClaim)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkExpiry(["exp": .bool(true)], now: Self.now, leeway: 0) } == .invalidClaim)
    }

    @Test func notBeforeAndIssuedAt() {
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkNotBefore(["nbf": .integer(1_800_000_030)], now: Self.now, leeway: 30) } == nil)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkNotBefore(["nbf": .integer(1_800_000_031)], now: Self.now, leeway: 30) } == .notYetValid)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkNotBefore([:], now: Self.now, leeway: 0) } == nil)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkIssuedAt(["iat": .integer(1_800_000_031)], now: Self.now, leeway: 30) } == .notYetValid)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkIssuedAt([:], now: Self.now, leeway: 30, required: true) } == .invalidClaim)
        #expect(Self.code { () throws(JOSEError) in
            try JWTClaims.checkIssuedAt(["iat": .integer(1_799_999_000)], now: Self.now, leeway: 0, maximumAge: 600)
        } == .expired)
        #expect(Self.code { () throws(JOSEError) in
            try JWTClaims.checkIssuedAt(["iat": .integer(1_799_999_500)], now: Self.now, leeway: 0, maximumAge: 600)
        } == nil)
        #expect(Self.code { () throws(JOSEError) in
            try JWTClaims.checkLifetime(Self.now.addingTimeInterval(661), now: Self.now, maximumLifetime: 600, leeway: 60)
        } == .invalidClaim)
    }

    @Test func audienceIsAStringOrAnArrayOfStrings() throws {
        #expect(try JWTClaims.checkAudience(["aud": .string("a")], accepted: ["a"]) == "a")
        #expect(try JWTClaims.checkAudience(["aud": .array([.string("x"), .string("b")])], accepted: ["a", "b"]) == "b")
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkAudience(["aud": .string("x")], accepted: ["a"]) } == .audienceMismatch)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkAudience(["aud": .array([])], accepted: ["a"]) } == .invalidClaim)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkAudience(["aud": .array([.string("a"), .integer(1)])], accepted: ["a"]) } == .invalidClaim)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkAudience([:], accepted: ["a"]) } == .invalidClaim)
    }

    @Test func issuerIsExact() throws {
        #expect(try JWTClaims.checkIssuer(["iss": .string("https://id.example")], expected: "https://id.example") == "https://id.example")
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkIssuer(["iss": .string("https://id.example/")], expected: "https://id.example") } == .issuerMismatch)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkIssuer(["iss": .integer(1)], expected: "x") } == .invalidClaim)
        #expect(Self.code { () throws(JOSEError) in try JWTClaims.checkIssuer([:], expected: "x") } == .invalidClaim)
    }

    @Test func stringClaims() throws {
        #expect(try JWTClaims.string(["sub": .string("ada")], "sub", required: true) == "ada")
        #expect(try JWTClaims.string([:], "nonce", required: false) == nil)
        #expect(Self.code { () throws(JOSEError) in _ = try JWTClaims.string(["sub": .string("")], "sub", required: true) } == .invalidClaim)
        #expect(Self.code { () throws(JOSEError) in _ = try JWTClaims.string(["sub": .integer(1)], "sub", required: true) } == .invalidClaim)
        #expect(Self.code { () throws(JOSEError) in _ = try JWTClaims.string(["sub": .string("abc")], "sub", required: true, maximumLength: 2) } == .invalidClaim)
    }

    @Test func numericDatesThisServerWrites() {
        #expect(JWTClaims.numericDate(Self.now.addingTimeInterval(0.9)) == 1_800_000_000)
        #expect(JWTClaims.numericDate(Date(timeIntervalSince1970: -1)) == nil)
        #expect(JWTClaims.numericDate(Date(timeIntervalSince1970: 253_402_300_800)) == nil)
    }
}
