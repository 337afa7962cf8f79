import PasskeyJSON
import Foundation
import PasskeyApple
import PasskeyJOSE
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import Testing

/// docs/contracts/siwa.md's check table, row by row: each test refuses with the row's code what only that
/// row's check catches, so removing the check fails the test.
@Suite struct IdentityTokenVerifierTests {
    @Test func acceptsAValidToken() async throws {
        let claims = try #require(try await verify(identityToken()).accepted)
        #expect(claims.issuer == AppleClaims.issuer)
        #expect(claims.subject == AppleClaims.subject)
        #expect(claims.audience == AppleClaims.clientID)
        #expect(claims.email == AppleClaims.email)
        #expect(claims.emailVerified)
        #expect(claims.isPrivateEmail)
        #expect(claims.nonce == nil)
        #expect(claims.issuedAt == Date(timeIntervalSince1970: 1_750_000_000 - 10))
        #expect(claims.expiresAt == Date(timeIntervalSince1970: 1_750_000_000 - 10 + 86400))
    }

    /// `auth_time` is read (a NumericDate); one that is not a number is `invalid_token`.
    @Test func readsAuthTime() async throws {
        let claims = try #require(try await verify(identityToken()).accepted)
        #expect(claims.authTime == Date(timeIntervalSince1970: 1_750_000_000 - 10))
        #expect(try await verify(identityToken(["auth_time": NSNull()])).accepted?.authTime == nil)
        #expect(try await verify(identityToken(["auth_time": "yesterday"])).code == "invalid_token")
    }

    // MARK: c_hash (OpenID Connect Core 3.3.2.11)

    /// OpenID Connect Core's own example (A.4): the code and its c_hash for RS256.
    static let specCode = "Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk"
    static let specCodeHash = "LDktKdoQak3Pk0cnXxCltA"

    @Test func theCodeMustBeTheOneTheTokensCHashNames() async throws {
        let token = identityToken(["c_hash": Self.specCodeHash])
        #expect(try await verify(token, code: Self.specCode).accepted != nil)
        #expect(try await verify(token, code: Self.specCode, requireCodeHash: true).accepted != nil)
        #expect(try await verify(token, code: Self.specCode + "x").code == "c_hash_mismatch")
        #expect(try await verify(token, code: "").code == "c_hash_mismatch")
        #expect(try await verify(identityToken(["c_hash": 7]), code: Self.specCode).code == "c_hash_mismatch")
        // The full hash, or the right half, is not the left half.
        let full = Base64URL.encode(Digest.sha256.hash(Array(Self.specCode.utf8)))
        #expect(try await verify(identityToken(["c_hash": full]), code: Self.specCode).code == "c_hash_mismatch")
        // No code: nothing to bind.
        #expect(try await verify(identityToken(["c_hash": "anything"])).accepted != nil)
    }

    /// The web flow (`code id_token`) requires the claim; a native app's token may lack it.
    @Test func aTokenWithoutCHashIsRefusedOnlyWhereItIsRequired() async throws {
        let token = identityToken()
        #expect(try await verify(token, code: Self.specCode).accepted != nil)
        #expect(try await verify(token, code: Self.specCode, requireCodeHash: true).code == "c_hash_mismatch")
        #expect(try await verify(token, requireCodeHash: true).accepted != nil)
    }

    // MARK: Row 1: compact form

    @Test func refusesWhatIsNotACompactJWS() async throws {
        let token = identityToken()
        let parts = token.split(separator: ".").map(String.init)
        let malformed = [
            "", "a.b", parts[0] + "." + parts[1], token + ".", token + "=", parts[0] + "=." + parts[1] + "." + parts[2],
            parts[0] + "." + parts[1] + "." + parts[2].replacingOccurrences(of: "_", with: "/").replacingOccurrences(of: "-", with: "+") + "+",
            " " + token, token + String(repeating: "A", count: 9000),
        ]
        for text in malformed {
            #expect(try await verify(text).code == "invalid_token", "\(text.prefix(40))")
        }
    }

    @Test func refusesHeaderOrClaimsThatAreNotStrictJSONObjects() async throws {
        let validHeader = Array(#"{"alg":"RS256","kid":"apple-test-1"}"#.utf8)
        let validClaims = Array(TestJSON.encode(AppleClaims.identity(now: testNow)).utf8)
        let hostile: [([UInt8], [UInt8])] = [
            (Array("[1]".utf8), validClaims),
            (validHeader, Array("\"claims\"".utf8)),
            (Array(#"{"alg":"RS256","kid":"apple-test-1","kid":"apple-test-2"}"#.utf8), validClaims),
            (validHeader, Array(#"{"sub":"a","sub":"b"}"#.utf8)),
            ([0xEF, 0xBB, 0xBF] + validHeader, validClaims),
            (validHeader, Array(#"{"exp":1e400}"#.utf8)),
            (validHeader, validClaims + Array(" x".utf8)),
        ]
        for (header, claims) in hostile {
            let token = appleKeys.token(rawHeader: header, rawPayload: claims, signing: .key("apple-test-1"))
            #expect(try await verify(token).code == "invalid_token")
        }
    }

    @Test func refusesATokenOverEightKiB() async throws {
        let token = identityToken(["padding": String(repeating: "x", count: 6200)])
        #expect(token.utf8.count > 8192)
        #expect(try await verify(token).code == "invalid_token")
        #expect(try await verify(identityToken(["padding": String(repeating: "x", count: 4000)])).code == nil)
    }

    // MARK: Row 2: header

    @Test func refusesAlgNone() async throws {
        for alg in ["none", "None", "NONE"] {
            let token = appleKeys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: testNow), alg: alg, signing: .unsigned)
            #expect(try await verify(token).code == "invalid_token")
        }
    }

    /// GHSA-88q6-jcjg-hvmw / CVE-2022-29217: HS256 keyed with the RSA public key the verifier
    /// holds must not verify, whatever form of the key is used as the secret.
    @Test func refusesHS256KeyedWithThePublicKey() async throws {
        let publicKey = appleKeys.privateKey("apple-test-1").publicKey
        let secrets: [[UInt8]] = [
            Array(appleKeys.publicKeyPEM("apple-test-1").utf8), publicKey.subjectPublicKeyInfo,
            publicKey.rsaComponents?.modulus ?? [],
        ]
        for secret in secrets {
            let token = appleKeys.token(
                kid: "apple-test-1", claims: AppleClaims.identity(now: testNow), alg: "HS256", signing: .hmacSHA256(secret: secret))
            #expect(try await verify(token).code == "invalid_token")
        }
    }

    @Test func refusesEveryAlgButRS256EvenWhenTheSignatureIsRS256() async throws {
        // Signed RS256 with the right key: only the alg check can refuse these.
        for alg in ["RS384", "RS512", "PS256", "ES256", "HS256", "rs256", "RS256 ", ""] {
            let token = appleKeys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: testNow), alg: alg)
            #expect(try await verify(token).code == "invalid_token", "alg \(alg)")
        }
        for alg: Any in [["RS256"], 256, NSNull()] {
            let token = appleKeys.token(kid: "apple-test-1", claims: AppleClaims.identity(now: testNow), header: ["alg": alg])
            #expect(try await verify(token).code == "invalid_token")
        }
        let noAlg = appleKeys.token(
            rawHeader: Array(#"{"kid":"apple-test-1"}"#.utf8), rawPayload: Array(TestJSON.encode(AppleClaims.identity(now: testNow)).utf8),
            signing: .key("apple-test-1"))
        #expect(try await verify(noAlg).code == "invalid_token")
    }

    @Test func refusesHeadersThatNameTheirOwnKeyOrCriticalExtensions() async throws {
        let jwk = appleKeys.jwk("apple-test-1")
        let members: [String: Any] = [
            "jku": "https://attacker.example/keys", "x5u": "https://attacker.example/cert.pem", "jwk": jwk, "crit": ["exp"],
        ]
        for (name, value) in members {
            let token = identityToken(header: [name: value])
            #expect(try await verify(token).code == "invalid_token", "\(name)")
        }
        // Even null counts as present.
        #expect(try await verify(identityToken(header: ["jku": NSNull()])).code == "invalid_token")
    }

    @Test func refusesAMissingOrEmptyKid() async throws {
        #expect(try await verify(identityToken(kid: nil)).code == "invalid_token")
        let empty = appleKeys.token(kid: "", claims: AppleClaims.identity(now: testNow), signing: .key("apple-test-1"))
        #expect(try await verify(empty).code == "invalid_token")
        let number = appleKeys.token(kid: nil, claims: AppleClaims.identity(now: testNow), header: ["kid": 1], signing: .key("apple-test-1"))
        #expect(try await verify(number).code == "invalid_token")
    }

    @Test func checkHeaderReturnsTheKid() throws {
        let jws = try CompactJWS(identityToken())
        #expect(try IdentityTokenVerifier.checkHeader(jws) == "apple-test-1")
        #expect(jws.algorithm == "RS256")
        #expect(jws.keyID == "apple-test-1")
        #expect(jws.refusedParametersPresent.isEmpty)
    }

    // MARK: Row 3: kid names a key

    @Test func refusesAnUnknownKid() async throws {
        let token = appleKeys.token(kid: "apple-test-3", claims: AppleClaims.identity(now: testNow))
        let result = try await verify(token)
        #expect(result.code == "invalid_token")
    }

    /// The key is the one `kid` names, never the first (or any other) key of the set.
    @Test func refusesASignatureByAnotherKeyOfTheSet() async throws {
        let claims = AppleClaims.identity(now: testNow)
        let byB = appleKeys.token(kid: "apple-test-1", claims: claims, signing: .key("apple-test-2"))
        #expect(try await verify(byB).code == "invalid_token")
        let byA = appleKeys.token(kid: "apple-test-2", claims: claims, signing: .key("apple-test-1"))
        #expect(try await verify(byA).code == "invalid_token")
        #expect(try await verify(appleKeys.token(kid: "apple-test-2", claims: claims)).code == nil)
    }

    // MARK: Row 4: the key and the signature

    @Test func refusesA1024BitKey() async throws {
        let weak = try AppleTestKeys(kids: ["weak"], bits: 1024)
        let set = try AppleKeySet.parse(weak.jwks())
        let token = weak.token(kid: "weak", claims: AppleClaims.identity(now: testNow))
        #expect(try await verify(token, verifier: makeVerifier(keys: set)).code == "invalid_token")
        // The JWK reader never keeps it.
        #expect(set.key(id: "weak") == nil)
    }

    @Test func refusesAnExponentOtherThan65537() throws {
        let publicKey = appleKeys.privateKey("apple-test-1").publicKey
        for exponent: [UInt8] in [[3], [0x01, 0x00, 0x03], [0x01, 0x00, 0x01, 0x00], [1]] {
            let entry = AppleTestKeys.jwk(kid: "k", publicKey: publicKey, exponent: exponent)
            #expect(try AppleKeySet.parse(AppleTestKeys.jwks(entries: [entry])).key(id: "k") == nil, "\(exponent)")
        }
        // Leading zero bytes do not change the number.
        let padded = AppleTestKeys.jwk(kid: "k", publicKey: publicKey, exponent: [0, 1, 0, 1])
        let key = try #require(try AppleKeySet.parse(AppleTestKeys.jwks(entries: [padded])).key(id: "k"))
        #expect(try IdentityTokenVerifier.usableKey(key, kid: "k").rsaComponents?.exponent == [1, 0, 1])
    }

    @Test func refusesAKeyThatIsNotRSAOrNotForRS256() async throws {
        let publicKey = appleKeys.privateKey("apple-test-1").publicKey
        let ecKey = try PrivateKey.generateEC(.p256).publicKey
        let wrongKty = JWK(publicKey: ecKey, keyID: "apple-test-1", algorithm: nil)
        #expect(throws: SIWAError.self) { try IdentityTokenVerifier.usableKey(wrongKty, kid: "apple-test-1") }
        // Nor the key of another kid than the token names.
        let otherKid = JWK(publicKey: publicKey, keyID: "apple-test-9", algorithm: nil)
        #expect(throws: SIWAError.self) { try IdentityTokenVerifier.usableKey(otherKid, kid: "apple-test-1") }
        // A key published for another algorithm is not used for RS256, even if the signature fits.
        let other = AppleTestKeys.jwk(kid: "apple-test-1", publicKey: publicKey, alg: "RS512")
        let set = try AppleKeySet.parse(AppleTestKeys.jwks(entries: [other]))
        #expect(try await verify(identityToken(), verifier: makeVerifier(keys: set)).code == "invalid_token")
        // Without alg the key is used.
        let bare = AppleTestKeys.jwk(kid: "apple-test-1", publicKey: publicKey, alg: nil)
        let bareSet = try AppleKeySet.parse(AppleTestKeys.jwks(entries: [bare]))
        #expect(try await verify(identityToken(), verifier: makeVerifier(keys: bareSet)).code == nil)
    }

    @Test func refusesABadSignature() async throws {
        let token = identityToken()
        var parts = token.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[signature.count / 2] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        #expect(try await verify(parts.joined(separator: ".")).code == "invalid_token")
        // The claims of another token under this token's signature.
        let other = identityToken(["sub": "someone-else"]).split(separator: ".").map(String.init)
        #expect(try await verify([parts[0], other[1], token.split(separator: ".").map(String.init)[2]].joined(separator: ".")).code == "invalid_token")
        // A truncated signature.
        parts[2] = Base64URL.encode(signature.dropLast())
        #expect(try await verify(parts.joined(separator: ".")).code == "invalid_token")
    }

    // MARK: Row 5: issuer

    @Test func refusesAnotherIssuer() async throws {
        for issuer: Any in ["https://appleid.apple.com/", "https://APPLEID.apple.com", "https://evil.example", 1, NSNull()] {
            #expect(try await verify(identityToken(["iss": issuer])).code == "issuer_mismatch", "\(issuer)")
        }
        #expect(try await verify(identityToken(["iss": NSNull()])).code == "issuer_mismatch")
    }

    @Test func checksIssuerBeforeAudience() async throws {
        let token = identityToken(["iss": "https://evil.example", "aud": "com.other.app"])
        #expect(try await verify(token).code == "issuer_mismatch")
    }

    // MARK: Row 6: audience

    @Test func refusesAnotherAudience() async throws {
        for audience: Any in ["com.other.app", "com.example.app ", "", [String](), ["com.other.app"], [1], ["com.example.app", 1], 7] {
            #expect(try await verify(identityToken(["aud": audience])).code == "audience_mismatch", "\(audience)")
        }
        #expect(try await verify(identityToken(["aud": NSNull()])).code == "audience_mismatch")
    }

    @Test func acceptsAnArrayAudienceNamingAConfiguredClientID() async throws {
        let claims = try #require(try await verify(identityToken(["aud": ["com.other.app", AppleClaims.clientID]])).accepted)
        #expect(claims.audience == AppleClaims.clientID)
    }

    @Test func acceptsAnyConfiguredClientIDAndReportsWhichOne() async throws {
        let verifier = try makeVerifier(clientIDs: ["com.example.web", AppleClaims.clientID])
        let claims = try #require(try await verify(identityToken(), verifier: verifier).accepted)
        #expect(claims.audience == AppleClaims.clientID)
    }

    /// With no client ID configured nothing is accepted: the audience is never skipped.
    @Test func alwaysChecksTheAudience() async throws {
        #expect(try await verify(identityToken(), verifier: makeVerifier(clientIDs: [])).code == "audience_mismatch")
    }

    // MARK: Row 7: times

    @Test func refusesAnExpiredToken() async throws {
        // Issued 5 minutes ago, expired 61 s ago: past the 60 s skew.
        let expired = identityToken(["iat": 1_750_000_000 - 300, "exp": 1_750_000_000 - 61])
        #expect(try await verify(expired).code == "token_expired")
        let withinSkew = identityToken(["iat": 1_750_000_000 - 300, "exp": 1_750_000_000 - 59])
        #expect(try await verify(withinSkew).code == nil)
        #expect(try await verify(identityToken(["exp": NSNull()])).code == "token_expired")
    }

    @Test func refusesATokenIssuedInTheFuture() async throws {
        #expect(try await verify(identityToken(["iat": 1_750_000_000 + 61])).code == "token_expired")
        #expect(try await verify(identityToken(["iat": 1_750_000_000 + 59])).code == nil)
        #expect(try await verify(identityToken(["iat": NSNull()])).code == "token_expired")
    }

    /// Apple's tokens live 24 hours; the server takes them only for `tokenMaxAge` after issue.
    @Test func refusesATokenOlderThanTheMaximumAgeWhateverExpSays() async throws {
        #expect(try await verify(identityToken(["iat": 1_750_000_000 - 601])).code == "token_expired")
        #expect(try await verify(identityToken(["iat": 1_750_000_000 - 599])).code == nil)
    }

    @Test func refusesTimesThatAreNotNumbers() async throws {
        let hostile: [Any] = ["1750000000", true, NSNull(), [1_750_000_000], -1, 1e300, RawJSON("1e308"), 253_402_300_800]
        for value in hostile {
            #expect(try await verify(identityToken(["exp": value])).code == (value is NSNull ? "token_expired" : "invalid_token"), "exp \(value)")
            #expect(try await verify(identityToken(["iat": value])).code == (value is NSNull ? "token_expired" : "invalid_token"), "iat \(value)")
        }
        // Fractional NumericDates are numbers.
        #expect(try await verify(identityToken(["iat": 1_749_999_990.5])).code == nil)
    }

    // MARK: Row 8: subject

    @Test func refusesAMissingOrEmptySubject() async throws {
        for subject: Any in ["", 12, NSNull(), ["a"], String(repeating: "s", count: 256)] {
            #expect(try await verify(identityToken(["sub": subject])).code == "invalid_token", "\(subject)")
        }
        #expect(try await verify(identityToken(["sub": NSNull()])).code == "invalid_token")
    }

    // MARK: Row 9: nonce

    @Test func acceptsTheNonceRawOrAsItsSHA256() async throws {
        let raw = "dGhlIG5vbmNlIGlzc3VlZCBieSB0aGUgc2VydmVy"
        let digest = Digest.sha256.hash(Array(raw.utf8))
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        for claim in [raw, hex, Base64URL.encode(digest)] {
            let claims = try #require(try await verify(identityToken(["nonce": claim]), nonce: raw).accepted)
            #expect(claims.nonce == claim)
        }
        for claim in [hex.uppercased(), raw + "x", String(raw.dropLast()), "", Base64URL.encode(Digest.sha256.hash(Array(hex.utf8)))] {
            #expect(try await verify(identityToken(["nonce": claim]), nonce: raw).code == "nonce_mismatch", "\(claim)")
        }
    }

    @Test func refusesAMissingNonceWhenTheRequestNamesOne() async throws {
        #expect(try await verify(identityToken(), nonce: "n-0123456789").code == "nonce_mismatch")
        #expect(try await verify(identityToken(["nonce": 5]), nonce: "5").code == "nonce_mismatch")
        // Without an expected nonce the claim is kept but not compared.
        #expect(try await verify(identityToken(["nonce": "whatever"])).accepted?.nonce == "whatever")
    }

    @Test func nonceMatchesComparesAllThreeForms() {
        #expect(IdentityTokenVerifier.nonceMatches(claim: "abc", raw: "abc"))
        #expect(IdentityTokenVerifier.nonceMatches(
            claim: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", raw: "abc"))
        #expect(IdentityTokenVerifier.nonceMatches(claim: "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0", raw: "abc"))
        #expect(!IdentityTokenVerifier.nonceMatches(claim: "", raw: ""))
        #expect(!IdentityTokenVerifier.nonceMatches(claim: "abd", raw: "abc"))
    }

    // MARK: Profile claims

    @Test func readsEmailFlagsAsBooleansOrTrueFalseStrings() async throws {
        let cases: [(Any, Bool)] = [(true, true), (false, false), ("true", true), ("false", false)]
        for (value, expected) in cases {
            let claims = try #require(try await verify(identityToken(["email_verified": value, "is_private_email": value])).accepted)
            #expect(claims.emailVerified == expected)
            #expect(claims.isPrivateEmail == expected)
        }
        let absent = try #require(try await verify(identityToken(["email_verified": NSNull(), "is_private_email": NSNull()])).accepted)
        #expect(!absent.emailVerified)
        #expect(!absent.isPrivateEmail)
    }

    @Test func refusesEmailFlagsThatAreNeitherTrueNorFalse() async throws {
        for value: Any in ["yes", "TRUE", "1", 1, 0, RawJSON("null"), ["true"]] {
            #expect(try await verify(identityToken(["email_verified": value])).code == "invalid_token", "\(value)")
            #expect(try await verify(identityToken(["is_private_email": value])).code == "invalid_token", "\(value)")
        }
        #expect(try await verify(identityToken(["email": 1])).code == "invalid_token")
    }

    // MARK: Explain

    @Test func explainHearsEveryStepInOrder() async throws {
        let steps = StepLog()
        let verifier = try makeVerifier()
        _ = try await verifier.verify(identityToken(["nonce": "n"]), now: testNow, expectedNonce: "n", explain: steps.record)
        #expect(steps.names == ["compact form", "header", "key", "signature", "issuer", "audience", "times", "subject", "nonce", "code hash", "claims"])
        #expect(steps.all.allSatisfy { $0.passed })

        let failing = StepLog()
        let error = await refusal { () async throws(SIWAError) in
            try await verifier.verify(identityToken(["aud": "com.other.app"]), now: testNow, expectedNonce: nil, explain: failing.record)
        }
        #expect(error?.code == "audience_mismatch")
        #expect(failing.names == ["compact form", "header", "key", "signature", "issuer", "audience"])
        #expect(failing.all.last?.passed == false)
        #expect(failing.all.last?.detail.contains("com.other.app") == true)
    }
}

/// Collects the steps an `explain` closure hears.
final class StepLog: @unchecked Sendable {
    private let lock = NSLock()
    private var steps: [VerificationStep] = []

    var record: @Sendable (VerificationStep) -> Void { { step in self.lock.withLock { self.steps.append(step) } } }
    var all: [VerificationStep] { lock.withLock { steps } }
    var names: [String] { all.map(\.name) }
}
