import Foundation
import PasskeyCrypto
import PasskeyJOSE
import PasskeyJSON

/// `jose`: the one JOSE module every JWS of the project goes through.
///
/// An input starting with `{` is a JWK set: `JWKSet(json:)`, each key re-read from the JSON it
/// publishes. Anything else is a compact JWS: parsed, its header checked against every
/// algorithm, its claims run through every JWT claim check, its x5c read, and verified with the
/// test signer's key.
///
/// Checked: a key re-read from its published JSON is the same key; and the fuzzed payload,
/// signed by `JWS.sign` with the test signer's key, parses back to the same payload and verifies.
enum JOSETarget {
    static let everyAlgorithm = JWSPolicy(algorithms: Set(JWSAlgorithm.allCases))

    static func run(_ bytes: [UInt8]) {
        if bytes.first == UInt8(ascii: "{") {
            keySet(bytes)
        } else {
            compact(bytes)
        }
    }

    static func keySet(_ bytes: [UInt8]) {
        guard let set = attempt("key set", { () throws(JOSEError) in try JWKSet(json: bytes) }) else { return }
        for key in set.keys {
            let reread = attempt("re-read key", { () throws(JOSEError) in try JWK(key.json) })
            expect(reread?.publicKey.matches(key.publicKey) == true, "a key re-read from its own JSON differs")
            for algorithm in JWSAlgorithm.allCases { _ = try? key.checkUsable(for: algorithm) }
        }
        _ = set.json.encoded()
    }

    static func compact(_ bytes: [UInt8]) {
        guard let jws = attempt("compact JWS", { () throws(JOSEError) in try JWS(compact: bytes) }) else { return }
        _ = (jws.algorithmName, jws.keyID, try? jws.certificateChain())
        _ = try? jws.checkAlgorithm(everyAlgorithm)
        _ = try? jws.checkCriticalHeaders(JWSPolicy(algorithms: [.es256], understoodCritical: ["b64", "exp"]))
        _ = attempt("verify", { () throws(JOSEError) in try jws.verify(with: Fixtures.metadataSignerKey.publicKey, policy: everyAlgorithm) })
        if let claims = try? jws.claims() { checkClaims(claims) }

        let resigned = attempt("sign", { () throws(JOSEError) in
            try JWS.sign(header: ["kid": .string("fuzz")], payload: jws.payload, key: Fixtures.metadataSignerKey, algorithm: .es256)
        })
        expect(resigned != nil, "the test signer could not sign")
        guard let resigned else { return }
        let reread = attempt("re-read", { () throws(JOSEError) in try JWS(compact: resigned, maximumSize: .max) })
        expect(reread?.payload == jws.payload, "a signed payload does not parse back the same")
        expect((try? reread?.verify(with: Fixtures.metadataSignerKey.publicKey, policy: JWSPolicy(algorithms: [.es256]))) == .es256,
               "a JWS this module signed does not verify")
    }

    static func checkClaims(_ claims: [String: JSONValue]) {
        let now = Fixtures.now
        _ = try? JWTClaims.checkExpiry(claims, now: now, leeway: 30)
        _ = try? JWTClaims.checkNotBefore(claims, now: now, leeway: 30)
        _ = try? JWTClaims.checkIssuedAt(claims, now: now, leeway: 30, required: true, maximumAge: 600)
        _ = try? JWTClaims.checkIssuer(claims, expected: "https://appleid.apple.com")
        _ = try? JWTClaims.checkAudience(claims, accepted: ["com.example.app"])
        _ = try? JWTClaims.string(claims, "sub", required: true)
        if let expiry = try? JWTClaims.numericDate(claims, "exp") {
            _ = try? JWTClaims.checkLifetime(expiry, now: now, maximumLifetime: 600, leeway: 30)
        }
    }
}
