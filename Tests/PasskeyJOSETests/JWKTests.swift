import Foundation
import PasskeyCrypto
import PasskeyJOSE
import PasskeyJSON
import Testing

@Suite struct JWKTests {
    static let rsa = try! PrivateKey.generateRSA(bits: 2048)

    static func rsaJWK(_ extra: [String: JSONValue] = [:], exponent: [UInt8] = [1, 0, 1]) -> JSONValue {
        let (n, _) = rsa.publicKey.rsaComponents!
        return .object(["kty": .string("RSA"), "n": .string(Base64URL.encode(n.drop(while: { $0 == 0 }))),
                        "e": .string(Base64URL.encode(exponent))].merging(extra) { $1 })
    }

    static func code(_ body: () throws(JOSEError) -> Void) -> JOSEError.Code? {
        do { try body() } catch { return error.code }
        return nil
    }

    @Test func aKeyIsReadStrictly() {
        #expect(Self.code { () throws(JOSEError) in _ = try JWK(Self.rsaJWK()) } == nil)
        #expect(Self.code { () throws(JOSEError) in _ = try JWK(Self.rsaJWK(exponent: [3])) } == .invalidKey)
        #expect(Self.code { () throws(JOSEError) in _ = try JWK(Self.rsaJWK(["d": .string("AQAB")])) } == .invalidKey)
        #expect(Self.code { () throws(JOSEError) in _ = try JWK(Self.rsaJWK(["kid": .integer(1)])) } == .invalidKey)
        #expect(Self.code { () throws(JOSEError) in _ = try JWK(Self.rsaJWK(["key_ops": .string("verify")])) } == .invalidKey)
        #expect(Self.code { () throws(JOSEError) in _ = try JWK(.object(["kty": .string("oct"), "k": .string("AAAA")])) } == .invalidKey)
        #expect(Self.code { () throws(JOSEError) in _ = try JWK(.object(["kty": .string("EC"), "crv": .string("secp256k1")])) } == .invalidKey)
        #expect(Self.code { () throws(JOSEError) in _ = try JWK(.string("RSA")) } == .invalidKey)
        let small = try! PrivateKey.generateRSA(bits: 1024).publicKey.rsaComponents!.modulus
        #expect(Self.code { () throws(JOSEError) in
            _ = try JWK(.object(["kty": .string("RSA"), "n": .string(Base64URL.encode(small)), "e": .string("AQAB")]))
        } == .invalidKey)
        // A point off the curve.
        let p256 = try! PrivateKey.generateEC(.p256).publicKey.ecCoordinates!
        var y = p256.y
        y[31] ^= 1
        #expect(Self.code { () throws(JOSEError) in
            _ = try JWK(.object(["kty": .string("EC"), "crv": .string("P-256"), "x": .string(Base64URL.encode(p256.x)),
                                 "y": .string(Base64URL.encode(y))]))
        } == .invalidKey)
    }

    @Test func checkUsableHonoursAlgUseAndKeyOps() throws {
        #expect(Self.code { () throws(JOSEError) in try JWK(Self.rsaJWK()).checkUsable(for: .rs256) } == nil)
        #expect(Self.code { () throws(JOSEError) in try JWK(Self.rsaJWK(["alg": .string("RS256")])).checkUsable(for: .rs256) } == nil)
        #expect(Self.code { () throws(JOSEError) in try JWK(Self.rsaJWK(["alg": .string("RS256")])).checkUsable(for: .ps256) } == .keyMismatch)
        #expect(Self.code { () throws(JOSEError) in try JWK(Self.rsaJWK(["use": .string("enc")])).checkUsable(for: .rs256) } == .keyMismatch)
        #expect(Self.code { () throws(JOSEError) in try JWK(Self.rsaJWK(["key_ops": .array([.string("encrypt")])])).checkUsable(for: .rs256) } == .keyMismatch)
        #expect(Self.code { () throws(JOSEError) in try JWK(Self.rsaJWK(["key_ops": .array([.string("verify")])])).checkUsable(for: .rs256) } == nil)
        #expect(Self.code { () throws(JOSEError) in try JWK(Self.rsaJWK()).checkUsable(for: .es256) } == .keyMismatch)
    }

    @Test func aKeySetKeepsTheFirstOfARepeatedKidAndSaysWhatItSkipped() throws {
        let other = try PrivateKey.generateRSA(bits: 2048).publicKey
        let set: JSONValue = .object(["keys": .array([
            Self.rsaJWK(["kid": .string("a")]),
            JWK(publicKey: other, keyID: "a", algorithm: .rs256).json,
            .object(["kty": .string("oct"), "kid": .string("h"), "k": .string("AAAA")]),
            JWK(publicKey: other, keyID: "b", algorithm: .rs256).json,
        ])])
        let keys = try JWKSet(json: set.encoded())
        #expect(keys.keys.map(\.keyID) == ["a", "b"])
        #expect(keys.key(id: "a")?.publicKey.matches(Self.rsa.publicKey) == true)
        #expect(keys.key(id: "c") == nil)
        #expect(keys.skipped.count == 2)
        let many: JSONValue = .object(["keys": .array(Array(repeating: Self.rsaJWK(), count: 33))])
        #expect(Self.code { () throws(JOSEError) in _ = try JWKSet(json: many.encoded()) } == .malformed)
        #expect(Self.code { () throws(JOSEError) in _ = try JWKSet(json: set.encoded(), maximumSize: 100) } == .malformed)
        #expect(Self.code { () throws(JOSEError) in _ = try JWKSet(json: Array(#"{"keys":{}}"#.utf8)) } == .malformed)
    }

    /// RFC 7638 §3: the hash input is the required members only, sorted, without white space.
    @Test func thumbprintsFollowRFC7638() throws {
        let (n, e) = Self.rsa.publicKey.rsaComponents!
        let text = #"{"e":""# + Base64URL.encode(e.drop(while: { $0 == 0 })) + #"","kty":"RSA","n":""#
            + Base64URL.encode(n.drop(while: { $0 == 0 })) + #""}"#
        let expected = Base64URL.encode(Digest.sha256.hash(Array(text.utf8)))
        let key = try JWK(Self.rsaJWK(["kid": .string("ignored"), "alg": .string("RS256"), "use": .string("sig")]))
        #expect(key.thumbprint == expected)
        let ec = try PrivateKey.generateEC(.p256).publicKey
        let (x, y) = ec.ecCoordinates!
        let ecText = #"{"crv":"P-256","kty":"EC","x":""# + Base64URL.encode(x) + #"","y":""# + Base64URL.encode(y) + #""}"#
        #expect(JWK(publicKey: ec, keyID: "k", algorithm: .es256).thumbprint == Base64URL.encode(Digest.sha256.hash(Array(ecText.utf8))))
    }
}
