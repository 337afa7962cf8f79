import Foundation
import PasskeyCrypto
import PasskeyJOSE
import PasskeyJSON
import Testing

/// Each check of `PasskeyJOSE` refusing what it exists to refuse, and what it signs verifying.
@Suite struct JWSTests {
    static let p256 = try! PrivateKey.generateEC(.p256)
    static let p384 = try! PrivateKey.generateEC(.p384)
    static let p521 = try! PrivateKey.generateEC(.p521)
    static let rsa = try! PrivateKey.generateRSA(bits: 2048)
    static let ed25519 = try! PrivateKey.generateEdwards(.ed25519)
    static let all = JWSPolicy(algorithms: Set(JWSAlgorithm.allCases))

    static func token(header: [String: JSONValue], payload: String = #"{"sub":"x"}"#, signature: [UInt8] = [1, 2, 3]) -> String {
        Base64URL.encode(JSONValue.object(header).encoded()) + "." + Base64URL.encode(Array(payload.utf8)) + "."
            + Base64URL.encode(signature)
    }

    static func code(_ body: () throws(JOSEError) -> Void) -> JOSEError.Code? {
        do { try body() } catch { return error.code }
        return nil
    }

    @Test(arguments: [
        (JWSAlgorithm.es256, "p256"), (.es384, "p384"), (.es512, "p521"), (.rs256, "rsa"), (.rs384, "rsa"), (.rs512, "rsa"),
        (.ps256, "rsa"), (.ps384, "rsa"), (.ps512, "rsa"), (.edDSA, "ed25519"),
    ])
    func whatItSignsVerifies(_ algorithm: JWSAlgorithm, _ keyName: String) throws {
        let key = [
            "p256": Self.p256, "p384": Self.p384, "p521": Self.p521, "rsa": Self.rsa, "ed25519": Self.ed25519,
        ][keyName]!
        let token = try JWS.sign(header: ["kid": .string("k1")], claims: ["sub": .string("ada"), "n": .integer(1)], key: key, algorithm: algorithm)
        let jws = try JWS(compact: token)
        #expect(jws.header == ["alg": .string(algorithm.rawValue), "kid": .string("k1")])
        #expect(String(decoding: jws.payload, as: UTF8.self) == #"{"n":1,"sub":"ada"}"#)
        #expect(try jws.verify(with: key.publicKey, policy: JWSPolicy(algorithms: [algorithm])) == algorithm)
        // The public JWK of the key verifies it too, and names the algorithm.
        let published = JWK(publicKey: key.publicKey, keyID: "k1", algorithm: algorithm)
        let reread = try JWK(published.json)
        #expect(try jws.verify(with: reread, policy: JWSPolicy(algorithms: [algorithm])) == algorithm)
        if let curve = algorithm.curve { #expect(jws.signature.count == 2 * curve.coordinateSize) }
    }

    @Test func signingRefusesAKeyThatDoesNotFit() {
        #expect(Self.code { () throws(JOSEError) in _ = try JWS.sign(payload: [], key: Self.p384, algorithm: .es256) } == .keyMismatch)
        #expect(Self.code { () throws(JOSEError) in _ = try JWS.sign(payload: [], key: Self.p256, algorithm: .rs256) } == .keyMismatch)
    }

    @Test func checkAlgorithmRefusesNoneHMACUnknownAndUnallowed() throws {
        for alg in ["none", "HS256", "RS1", "es256", ""] {
            let jws = try JWS(compact: Self.token(header: ["alg": .string(alg)]))
            #expect(Self.code { () throws(JOSEError) in _ = try jws.checkAlgorithm(Self.all) } == .algorithmNotAllowed, "\(alg)")
        }
        let missing = try JWS(compact: Self.token(header: ["typ": .string("JWT")]))
        #expect(Self.code { () throws(JOSEError) in _ = try missing.checkAlgorithm(Self.all) } == .algorithmNotAllowed)
        let notString = try JWS(compact: Self.token(header: ["alg": .integer(1)]))
        #expect(Self.code { () throws(JOSEError) in _ = try notString.checkAlgorithm(Self.all) } == .algorithmNotAllowed)
        let es256 = try JWS(compact: Self.token(header: ["alg": .string("ES256")]))
        #expect(Self.code { () throws(JOSEError) in _ = try es256.checkAlgorithm(JWSPolicy(algorithms: [.rs256])) } == .algorithmNotAllowed)
        #expect(try es256.checkAlgorithm(JWSPolicy(algorithms: [.es256])) == .es256)
    }

    @Test func checkCriticalHeadersFollowsRFC7515Section4_1_11() throws {
        func check(_ header: [String: JSONValue], understood: Set<String> = ["exp"]) throws -> JOSEError.Code? {
            let jws = try JWS(compact: Self.token(header: ["alg": .string("ES256")].merging(header) { $1 }))
            return Self.code { () throws(JOSEError) in try jws.checkCriticalHeaders(JWSPolicy(algorithms: [.es256], understoodCritical: understood)) }
        }
        #expect(try check([:]) == nil)
        #expect(try check(["crit": .array([.string("exp")]), "exp": .integer(1)]) == nil)
        #expect(try check(["crit": .array([.string("exp")]), "exp": .integer(1)], understood: []) == .headerRefused)
        #expect(try check(["crit": .array([.string("exp")])]) == .headerRefused)  // not in the header
        #expect(try check(["crit": .array([])]) == .headerRefused)
        #expect(try check(["crit": .string("exp"), "exp": .integer(1)]) == .headerRefused)
        #expect(try check(["crit": .array([.integer(1)])]) == .headerRefused)
        #expect(try check(["crit": .array([.string("exp"), .string("exp")]), "exp": .integer(1)]) == .headerRefused)
        #expect(try check(["crit": .array([.string("kid")]), "kid": .string("k")], understood: ["kid"]) == .headerRefused)
        for parameter in ["jku", "jwk", "x5u"] {
            #expect(try check([parameter: .null]) == .headerRefused, "\(parameter)")
        }
    }

    @Test func checkKeyRefusesKeysThatDoNotFitTheAlgorithm() throws {
        let small = try PrivateKey.generateRSA(bits: 1024)
        #expect(Self.code { () throws(JOSEError) in try JWS.checkKey(small.publicKey, fits: .rs256) } == .keyMismatch)
        #expect(Self.code { () throws(JOSEError) in try JWS.checkKey(Self.p384.publicKey, fits: .es256) } == .keyMismatch)
        #expect(Self.code { () throws(JOSEError) in try JWS.checkKey(Self.p256.publicKey, fits: .es512) } == .keyMismatch)
        #expect(Self.code { () throws(JOSEError) in try JWS.checkKey(Self.rsa.publicKey, fits: .edDSA) } == .keyMismatch)
        #expect(Self.code { () throws(JOSEError) in try JWS.checkKey(Self.ed25519.publicKey, fits: .es256) } == .keyMismatch)
        #expect(Self.code { () throws(JOSEError) in try JWS.checkKey(Self.rsa.publicKey, fits: .ps256) } == nil)
    }

    @Test func checkSignatureRefusesDERAndTamperedSignatures() throws {
        let token = try JWS.sign(payload: Array("hello".utf8), key: Self.p256, algorithm: .es256)
        let jws = try JWS(compact: token)
        #expect(Self.code { () throws(JOSEError) in try jws.checkSignature(Self.p256.publicKey, algorithm: .es256) } == nil)
        // The same signature in DER, as OpenSSL makes it, is not a JWS signature.
        let der = try ECDSASignature.der(raw: jws.signature, curve: .p256)
        var parts = token.split(separator: ".").map(String.init)
        parts[2] = Base64URL.encode(der)
        let derToken = try JWS(compact: parts.joined(separator: "."))
        #expect(Self.code { () throws(JOSEError) in try derToken.checkSignature(Self.p256.publicKey, algorithm: .es256) } == .badSignature)
        // One bit of the payload changed.
        parts = token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array("hellp".utf8))
        let tampered = try JWS(compact: parts.joined(separator: "."))
        #expect(Self.code { () throws(JOSEError) in try tampered.checkSignature(Self.p256.publicKey, algorithm: .es256) } == .badSignature)
        // Another key.
        let other = try PrivateKey.generateEC(.p256)
        #expect(Self.code { () throws(JOSEError) in try jws.checkSignature(other.publicKey, algorithm: .es256) } == .badSignature)
    }

    @Test func parsingRefusesWhatIsNotOneCanonicalCompactJWS() throws {
        let good = Self.token(header: ["alg": .string("ES256")])
        #expect(throws: Never.self) { try JWS(compact: good) }
        let parts = good.split(separator: ".").map(String.init)
        let cases: [String] = [
            "", "a.b", parts.joined(separator: ".") + ".x", parts[0] + "=." + parts[1] + "." + parts[2],
            "." + parts[1] + "." + parts[2],
            Base64URL.encode(Array(#"{"alg":"ES256","alg":"RS256"}"#.utf8)) + "." + parts[1] + "." + parts[2],
            Base64URL.encode(Array("[1]".utf8)) + "." + parts[1] + "." + parts[2],
            parts[0].replacingOccurrences(of: "J", with: "+") + "." + parts[1] + "." + parts[2],
            // "AQI" is [1, 2]; "AQJ" sets a spare bit: the same bytes, another spelling.
            parts[0] + "." + parts[1] + ".AQJ",
        ]
        for token in cases {
            #expect(Self.code { () throws(JOSEError) in _ = try JWS(compact: token) } == .malformed, "\(token)")
        }
        let large = String(repeating: "a", count: 100)
        #expect(Self.code { () throws(JOSEError) in _ = try JWS(compact: good + large, maximumSize: good.utf8.count) } == .malformed)
    }

    @Test func theCertificateChainIsCanonicalStandardBase64() throws {
        let der: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x01]
        let standard = Data(der).base64EncodedString()
        let jws = try JWS(compact: Self.token(header: ["alg": .string("RS256"), "x5c": .array([.string(standard)])]))
        #expect(try jws.certificateChain() == [der])
        let unpadded = Base64URL.encode(der), urlSafe = "MA_CAQE="
        for bad: JSONValue in [.array([]), .string(standard), .array([.string(unpadded)]), .array([.string(urlSafe)]), .array([.integer(1)])] {
            let token = try JWS(compact: Self.token(header: ["alg": .string("RS256"), "x5c": bad]))
            #expect(Self.code { () throws(JOSEError) in _ = try token.certificateChain() } == .malformed)
        }
        #expect(try JWS(compact: Self.token(header: ["alg": .string("RS256")])).certificateChain() == nil)
    }
}
