import Foundation
import PasskeyApple
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import PasskeyJOSE
import PasskeyJSON
import Testing

@Suite struct JWKSetTests {
    @Test func readsTheRSAKeysOfASet() throws {
        let set = try keySet()
        #expect(set.keys.map(\.keyID) == ["apple-test-1", "apple-test-2", "apple-test-3"])
        let key = try #require(set.key(id: "apple-test-2"))
        #expect(key.algorithm == "RS256")
        #expect(key.publicKey.rsaComponents?.exponent == [1, 0, 1])
        #expect(try IdentityTokenVerifier.usableKey(key, kid: "apple-test-2").matches(appleKeys.privateKey("apple-test-2").publicKey))
        #expect(set.key(id: "apple-test-4") == nil)
    }

    /// Apple's set is pretty-printed and names `use` and `alg`; members it may add are ignored.
    @Test func readsASetWrittenLikeApples() throws {
        let key = appleKeys.jwk("apple-test-1")
        let json = """
        {
          "keys": [
            {
              "kty": "RSA",
              "kid": "pggnQeNCOY",
              "use": "sig",
              "alg": "RS256",
              "n": "\(key["n"] as? String ?? "")",
              "e": "AQAB",
              "x-future": {"anything": [1, 2.5, null]}
            }
          ],
          "x-future": true
        }
        """
        let set = try AppleKeySet.parse(Array(json.utf8))
        #expect(set.keys.map(\.keyID) == ["pggnQeNCOY"])
        #expect(try IdentityTokenVerifier.usableKey(set.keys[0], kid: "pggnQeNCOY").kind == .rsa(bits: 2048))
    }

    @Test func skipsEntriesThatAreNotRSASigningKeys() throws {
        var entries: [[String: Any]] = [
            ["kty": "EC", "kid": "ec", "crv": "P-256", "x": "AA", "y": "AA"],
            ["kty": "RSA", "n": "AQAB", "e": "AQAB"],
            ["kty": "RSA", "kid": "", "n": "AQAB", "e": "AQAB"],
            ["kty": "RSA", "kid": "no-n", "e": "AQAB"],
            ["kty": "RSA", "kid": "bad-n", "n": "not base64!", "e": "AQAB"],
            ["kty": "RSA", "kid": "padded-e", "n": "AQAB", "e": "AQAB=="],
            ["kty": "RSA", "kid": "enc", "use": "enc", "n": "AQAB", "e": "AQAB"],
            ["kty": "RSA", "kid": "alg-number", "alg": 1, "n": "AQAB", "e": "AQAB"],
            ["kty": "RSA", "kid": 5, "n": "AQAB", "e": "AQAB"],
        ]
        entries.append(appleKeys.jwk("apple-test-1"))
        let set = try AppleKeySet.parse(AppleTestKeys.jwks(entries: entries))
        #expect(AppleKeySet.tokenKeys(of: set).map(\.keyID) == ["apple-test-1"])
    }

    /// A later entry with the same kid cannot replace the first.
    @Test func keepsTheFirstOfTwoEntriesWithOneKid() throws {
        let first = appleKeys.jwk("apple-test-1")
        let second = AppleTestKeys.jwk(kid: "apple-test-1", publicKey: appleKeys.privateKey("apple-test-2").publicKey)
        let set = try AppleKeySet.parse(AppleTestKeys.jwks(entries: [first, second]))
        #expect(set.keys.count == 1)
        let kept = try #require(set.key(id: "apple-test-1"))
        #expect(try IdentityTokenVerifier.usableKey(kept, kid: "apple-test-1").matches(appleKeys.privateKey("apple-test-1").publicKey))
    }

    @Test func refusesWhatIsNotAJWKS() throws {
        let hostile: [[UInt8]] = [
            [], Array("[]".utf8), Array("{}".utf8), Array(#"{"keys":{}}"#.utf8), Array(#"{"keys":[],"keys":[]}"#.utf8),
            Array(#"{"keys":[]} x"#.utf8), [0xEF, 0xBB, 0xBF] + Array(#"{"keys":[]}"#.utf8),
            Array(#"{"keys":["#.utf8) + Array(repeating: UInt8(ascii: " "), count: 70000) + Array("]}".utf8),
            AppleTestKeys.jwks(entries: Array(repeating: ["kty": "oct"], count: 33)),
        ]
        for json in hostile {
            #expect(throws: SIWAError.self) { try AppleKeySet.parse(json) }
        }
        #expect(try AppleKeySet.parse(Array(#"{"keys":[]}"#.utf8)).keys.isEmpty)
    }
}

@Suite struct CompactJWSTests {
    @Test func splitsAndDecodesAToken() throws {
        let token = identityToken()
        let jws = try CompactJWS(token)
        let parts = token.split(separator: ".")
        #expect(jws.signingInput == Array((parts[0] + "." + parts[1]).utf8))
        #expect(jws.signature.count == 256)
        #expect(jws.header["alg"] == .string("RS256"))
        #expect(jws.claims["sub"] == .string(AppleClaims.subject))
        #expect(jws.payload == Base64URL.decode(String(parts[1])))
    }

    @Test func reportsTheRefusedHeaderParameters() throws {
        let jws = try CompactJWS(identityToken(header: ["jku": "https://x", "crit": ["b64"]]))
        #expect(jws.refusedParametersPresent == ["jku", "crit"])
    }

    @Test func keepsBooleansAndNumbersApart() throws {
        let jws = try CompactJWS(identityToken(["flag": true, "one": 1, "half": 0.5, "nothing": RawJSON("null")]))
        #expect(jws.claims["flag"] == .bool(true))
        #expect(jws.claims["one"] == .integer(1))
        #expect(jws.claims["half"] == .double(0.5))
        #expect(jws.claims["nothing"] == .null)
    }

    @Test func refusesNonCanonicalBase64() throws {
        let token = identityToken()
        var parts = token.split(separator: ".").map(String.init)
        // Spare bits set in the last character of the signature: decodes to the same bytes
        // leniently, but is not the canonical spelling.
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(Base64URL.encode(signature) == parts[2])
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try #require(parts[2].last.flatMap { alphabet.firstIndex(of: $0) })
        #expect(signature.count % 3 == 1)   // the last character carries 4 spare bits
        parts[2] = String(parts[2].dropLast()) + String(alphabet[last ^ 1])
        #expect(throws: SIWAError.self) { try CompactJWS(parts.joined(separator: ".")) }
    }
}
