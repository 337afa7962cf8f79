import Foundation
import PasskeyCrypto
import PasskeyJOSE
import PasskeyJSON
import Testing

/// RFC 7515's examples (Appendix A): the ES256 one verifies with its key; the HMAC and the
/// unsecured ones are refused whatever the use allows.
@Suite struct RFC7515Tests {
    static let claims = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"

    /// A.3: ECDSA P-256 SHA-256.
    @Test func appendixA3VerifiesWithItsKey() throws {
        let key = try JWK(.object([
            "kty": .string("EC"), "crv": .string("P-256"),
            "x": .string("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"),
            "y": .string("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"),
        ]))
        let token = "eyJhbGciOiJFUzI1NiJ9.\(Self.claims)."
            + "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
        let jws = try JWS(compact: token)
        #expect(try jws.verify(with: key, policy: JWSPolicy(algorithms: [.es256])) == .es256)
        let claims = try jws.claims()
        #expect(claims["iss"] == .string("joe"))
        #expect(claims["exp"] == .integer(1_300_819_380))
        #expect(claims["http://example.com/is_root"] == .bool(true))
        // The same token is refused where ES256 is not allowed.
        #expect(throws: JOSEError(.algorithmNotAllowed, "alg ES256 is not one of RS256")) {
            try jws.verify(with: key, policy: JWSPolicy(algorithms: [.rs256]))
        }
    }

    /// A.1: HMAC SHA-256 has no case in `JWSAlgorithm`: refused by every policy.
    @Test func appendixA1HMACIsRefused() throws {
        let token = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.\(Self.claims).dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let jws = try JWS(compact: token)
        let error = #expect(throws: JOSEError.self) { try jws.checkAlgorithm(JWSPolicy(algorithms: Set(JWSAlgorithm.allCases))) }
        #expect(error?.code == .algorithmNotAllowed)
    }

    /// A.5: an unsecured JWS (`alg: none`, empty signature) parses, and no use accepts it:
    /// `none` is no algorithm here, and an empty signature never verifies.
    @Test func appendixA5UnsecuredIsRefused() throws {
        let jws = try JWS(compact: "eyJhbGciOiJub25lIn0.\(Self.claims).")
        let error = #expect(throws: JOSEError.self) { try jws.checkAlgorithm(JWSPolicy(algorithms: Set(JWSAlgorithm.allCases))) }
        #expect(error?.code == .algorithmNotAllowed)
        let key = try PrivateKey.generateEC(.p256).publicKey
        let empty = #expect(throws: JOSEError.self) { try jws.checkSignature(key, algorithm: .es256) }
        #expect(empty?.code == .badSignature)
    }
}
