import Foundation
import PasskeyApp
@testable import PasskeyAccounts
import PasskeyCrypto
import PasskeyJOSE
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// Sender-constrained tokens (RFC 9449; docs/contracts/identity.md, "Machine and agent clients"): proofs
/// made here as a client makes them, against the real server, on both stores.
@Suite struct DPoPTests {
    /// A client's DPoP key and the proofs it signs.
    struct Prover {
        let key: PrivateKey
        let algorithm: JWSAlgorithm
        let server: TestServer

        init(_ server: TestServer, algorithm: JWSAlgorithm = .es256) throws {
            self.server = server
            self.algorithm = algorithm
            switch algorithm {
            case .edDSA: key = try PrivateKey.generateEdwards(.ed25519)
            case .ps256, .rs256: key = try PrivateKey.generateRSA(bits: 2048)
            default: key = try PrivateKey.generateEC(.p256)
            }
        }

        var thumbprint: String { JWK(publicKey: key.publicKey, keyID: nil, algorithm: nil).thumbprint }

        func proof(
            _ method: String, _ path: String, nonce: String?, token: String? = nil, _ change: (inout [String: JSONValue]) -> Void = { _ in }
        ) throws -> String {
            var claims: [String: JSONValue] = [
                "jti": .string(Base64URL.encode(SecureRandom.bytes(16))), "htm": .string(method), "htu": .string(server.origin + path),
                "iat": .integer(Int64(server.clock.now().timeIntervalSince1970)),
            ]
            if let nonce { claims["nonce"] = .string(nonce) }
            if let token { claims["ath"] = .string(Base64URL.encode(Digest.sha256.hash(Array(token.utf8)))) }
            change(&claims)
            let header: [String: JSONValue] = ["typ": .string("dpop+jwt"), "jwk": JWK(publicKey: key.publicKey, keyID: nil, algorithm: nil).json]
            return try JWS.sign(header: header, claims: claims, key: key, algorithm: algorithm)
        }
    }

    static func token(_ rp: TestRelyingParty, _ parameters: [(String, String)], proof: String?) async throws -> HTTPResult {
        var headers: [String: String] = ["Authorization": MachineClientTests.basic(rp)]
        if let proof { headers["DPoP"] = proof }
        return try await rp.raw("POST", "/oauth/token", headers: headers, body: TestRelyingParty.form(parameters))
    }

    static func userinfo(_ rp: TestRelyingParty, _ token: String, scheme: String = "DPoP", proof: String?) async throws -> HTTPResult {
        var headers = ["Authorization": "\(scheme) \(token)"]
        if let proof { headers["DPoP"] = proof }
        return try await rp.raw("GET", "/oauth/userinfo", headers: headers)
    }

    /// The first proof has no nonce: `use_dpop_nonce`, with the nonce to use.
    static func nonce(_ rp: TestRelyingParty, _ prover: Prover) async throws -> String {
        let first = try await token(rp, [("grant_type", "client_credentials")], proof: try prover.proof("POST", "/oauth/token", nonce: nil))
        #expect(first.status == 400)
        #expect(first.error == "use_dpop_nonce")
        return try #require(first.header("DPoP-Nonce"))
    }

    @Test(arguments: [JWSAlgorithm.es256, .ps256, .edDSA])
    func aProvenTokenRequestGetsABoundTokenThatUserinfoAndIntrospectionHonour(_ algorithm: JWSAlgorithm) async throws {
        try await withServer { server, ceremonies, _ in
            let app = try await TestRelyingParty.register(server, id: "app") { $0.introspection = true }
            let prover = try Prover(server, algorithm: algorithm)
            let nonce = try await Self.nonce(app, prover)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let code = try #require(TestRelyingParty.answer(try await app.authorize(app.authorizationParameters(), session: ada.session))["code"])
            let tokens = try await Self.token(
                app, [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestRelyingParty.redirectURI), ("code_verifier", app.verifier)],
                proof: try prover.proof("POST", "/oauth/token", nonce: nonce))
            #expect(tokens.status == 200, "\(String(decoding: tokens.body, as: UTF8.self))")
            #expect(tokens.json["token_type"] as? String == "DPoP")
            #expect(tokens.header("DPoP-Nonce") != nil)
            let access = try #require(tokens.json["access_token"] as? String)
            let claims = try await app.verified(access, typ: "at+jwt")
            #expect(claims["cnf"]?.objectValue?["jkt"]?.stringValue == prover.thumbprint)

            // Userinfo: the DPoP scheme and a proof naming the token.
            let info = try await Self.userinfo(app, access, proof: try prover.proof("GET", "/oauth/userinfo", nonce: nonce, token: access))
            #expect(info.status == 200, "\(String(decoding: info.body, as: UTF8.self))")
            #expect(info.json["sub"] as? String == ada.userID)
            // As Bearer it is refused; without a proof, with another key's, or without ath too.
            let asBearer = try await Self.userinfo(app, access, scheme: "Bearer", proof: nil)
            #expect(asBearer.status == 401 && asBearer.header("WWW-Authenticate") == "Bearer error=\"invalid_token\"")
            let unproven = try await Self.userinfo(app, access, proof: nil)
            #expect(unproven.status == 401 && unproven.error == "invalid_dpop_proof")
            #expect(unproven.header("WWW-Authenticate")?.hasPrefix("DPoP error=\"invalid_dpop_proof\", algs=\"ES256") == true)
            let thief = try Prover(server)
            #expect(try await Self.userinfo(app, access, proof: try thief.proof("GET", "/oauth/userinfo", nonce: nonce, token: access)).error == "invalid_dpop_proof")
            #expect(try await Self.userinfo(app, access, proof: try prover.proof("GET", "/oauth/userinfo", nonce: nonce)).error == "invalid_dpop_proof")

            // Introspection tells the resource server the key, for it to check the proof itself.
            let seen = try await OpenIDBackendTests.introspect(app, access)
            #expect((seen.json["cnf"] as? [String: Any])?["jkt"] as? String == prover.thumbprint)
        }
    }

    @Test(arguments: ["wrong htm", "wrong htu", "old iat", "future iat", "no jti", "stale nonce", "private key in jwk", "HS256", "two headers", "replayed", "typ JWT"])
    func aBadProofIsRefusedAndIssuesNothing(_ flaw: String) async throws {
        try await withServer { server, _, _ in
            let reports = try await MachineClientTests.reportingClient(server)
            let prover = try Prover(server)
            let nonce = try await Self.nonce(reports, prover)
            let now = Int64(server.clock.now().timeIntervalSince1970)
            var proofs: [String] = []
            switch flaw {
            case "wrong htm": proofs = [try prover.proof("GET", "/oauth/token", nonce: nonce)]
            case "wrong htu": proofs = [try prover.proof("POST", "/oauth/userinfo", nonce: nonce)]
            case "old iat": proofs = [try prover.proof("POST", "/oauth/token", nonce: nonce) { $0["iat"] = .integer(now - 120) }]
            case "future iat": proofs = [try prover.proof("POST", "/oauth/token", nonce: nonce) { $0["iat"] = .integer(now + 120) }]
            case "no jti": proofs = [try prover.proof("POST", "/oauth/token", nonce: nonce) { $0["jti"] = nil }]
            case "stale nonce":
                server.clock.advance(601)
                proofs = [try prover.proof("POST", "/oauth/token", nonce: nonce)]
            case "private key in jwk":
                let key = try PrivateKey.generateEC(.p256)
                var jwk = JWK(publicKey: key.publicKey, keyID: nil, algorithm: nil).json.objectValue ?? [:]
                jwk["d"] = .string(Base64URL.encode(SecureRandom.bytes(32)))
                proofs = [try JWS.sign(
                    header: ["typ": .string("dpop+jwt"), "jwk": .object(jwk)],
                    claims: ["jti": .string("j"), "htm": .string("POST"), "htu": .string(server.origin + "/oauth/token"), "iat": .integer(now),
                             "nonce": .string(nonce)], key: key, algorithm: .es256)]
            case "HS256":
                let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"dpop+jwt"}"#.utf8))
                let claims = Base64URL.encode(Array(#"{"jti":"j","htm":"POST","htu":"\#(server.origin)/oauth/token","iat":\#(now),"nonce":"\#(nonce)"}"#.utf8))
                proofs = [header + "." + claims + "." + Base64URL.encode(SecureRandom.bytes(32))]
            case "typ JWT":
                let now = Int64(server.clock.now().timeIntervalSince1970)
                proofs = [try JWS.sign(
                    header: ["typ": .string("JWT"), "jwk": JWK(publicKey: prover.key.publicKey, keyID: nil, algorithm: nil).json],
                    claims: ["jti": .string("j"), "htm": .string("POST"), "htu": .string(server.origin + "/oauth/token"), "iat": .integer(now),
                             "nonce": .string(nonce)], key: prover.key, algorithm: .es256)]
            case "two headers":
                proofs = [try prover.proof("POST", "/oauth/token", nonce: nonce), try prover.proof("POST", "/oauth/token", nonce: nonce)]
            default:
                let once = try prover.proof("POST", "/oauth/token", nonce: nonce)
                #expect(try await Self.token(reports, [("grant_type", "client_credentials")], proof: once).status == 200)
                proofs = [once]
            }
            let before = try await server.app.store.events(userHandle: nil, since: nil, after: nil, limit: 100).filter { $0.type == "oauth_token_issued" }.count
            var headers: [(String, String)] = [("Authorization", MachineClientTests.basic(reports))]
            headers += proofs.map { ("DPoP", $0) }
            let refused = try await RawHTTP.request(
                port: server.port, "POST", "/oauth/token", headers: headers, form: TestRelyingParty.form([("grant_type", "client_credentials")]))
            #expect(refused.status == 400)
            #expect(refused.error == (flaw == "stale nonce" ? "use_dpop_nonce" : "invalid_dpop_proof"), "\(String(decoding: refused.body, as: UTF8.self))")
            #expect(refused.header("DPoP-Nonce") != nil)
            let after = try await server.app.store.events(userHandle: nil, since: nil, after: nil, limit: 100).filter { $0.type == "oauth_token_issued" }.count
            #expect(after == before)
        }
    }

    @Test func aClientThatRequiresDPoPAndAPublicClientsBoundRefreshToken() async throws {
        try await withServer { server, ceremonies, _ in
            let strict = try await MachineClientTests.reportingClient(server, id: "strict") { $0.requireDPoP = true }
            let unproven = try await strict.token([("grant_type", "client_credentials")])
            #expect(unproven.status == 400 && unproven.error == "invalid_dpop_proof")
            let prover = try Prover(server)
            let nonce = try await Self.nonce(strict, prover)
            let bound = try await Self.token(strict, [("grant_type", "client_credentials")], proof: try prover.proof("POST", "/oauth/token", nonce: nonce))
            #expect(bound.json["token_type"] as? String == "DPoP")

            // A public client's refresh token is bound to the key its code was redeemed with.
            let app = try await TestRelyingParty.register(server, id: "spa") {
                $0.isPublic = true
                $0.redirectURIs = ["http://127.0.0.1/cb"]
                $0.scopes = ["openid", "profile"]
                $0.refresh = true
            }
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let code = try #require(TestRelyingParty.answer(try await app.authorize(
                app.authorizationParameters([("redirect_uri", "http://127.0.0.1/cb"), ("scope", "openid profile")]), session: ada.session))["code"])
            func publicToken(_ parameters: [(String, String)], proof: String?) async throws -> HTTPResult {
                var headers: [String: String] = [:]
                if let proof { headers["DPoP"] = proof }
                return try await app.raw("POST", "/oauth/token", headers: headers, body: TestRelyingParty.form(parameters + [("client_id", "spa")]))
            }
            let tokens = try await publicToken(
                [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "http://127.0.0.1/cb"), ("code_verifier", app.verifier)],
                proof: try prover.proof("POST", "/oauth/token", nonce: nonce))
            #expect(tokens.status == 200, "\(String(decoding: tokens.body, as: UTF8.self))")
            let refresh = try #require(tokens.json["refresh_token"] as? String)
            #expect(try await publicToken([("grant_type", "refresh_token"), ("refresh_token", refresh)], proof: nil).error == "invalid_dpop_proof")
            let thief = try Prover(server)
            #expect(try await publicToken([("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                          proof: try thief.proof("POST", "/oauth/token", nonce: nonce)).error == "invalid_dpop_proof")
            let renewed = try await publicToken([("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                                proof: try prover.proof("POST", "/oauth/token", nonce: nonce))
            #expect(renewed.status == 200, "\(String(decoding: renewed.body, as: UTF8.self))")
            #expect(renewed.json["token_type"] as? String == "DPoP")
        }
    }

    /// RFC 9449 §10: a code asked for with `dpop_jkt` is redeemed only with a proof by that key;
    /// a `dpop_jkt` that is no thumbprint is refused at the authorization endpoint.
    @Test func aCodeAskedForWithDPoPJKTIsRedeemedOnlyByThatKey() async throws {
        try await withServer { server, ceremonies, _ in
            let app = try await TestRelyingParty.register(server, id: "app")
            let prover = try Prover(server), thief = try Prover(server)
            let nonce = try await Self.nonce(app, prover)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let malformed = try await app.authorize(app.authorizationParameters([("dpop_jkt", "short")]), session: ada.session)
            #expect(TestRelyingParty.answer(malformed)["error"] == "invalid_request")
            func code() async throws -> String {
                try #require(TestRelyingParty.answer(try await app.authorize(
                    app.authorizationParameters([("dpop_jkt", prover.thumbprint)]), session: ada.session))["code"])
            }
            func redeem(_ code: String, proof: String?) async throws -> HTTPResult {
                try await Self.token(
                    app, [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestRelyingParty.redirectURI),
                          ("code_verifier", app.verifier)], proof: proof)
            }
            let first = try await code()
            #expect(try await redeem(first, proof: nil).error == "invalid_dpop_proof")
            #expect(try await redeem(first, proof: try thief.proof("POST", "/oauth/token", nonce: nonce)).error == "invalid_dpop_proof")
            // Refused before it was spent: the right key still redeems it.
            let redeemed = try await redeem(first, proof: try prover.proof("POST", "/oauth/token", nonce: nonce))
            #expect(redeemed.status == 200, "\(String(decoding: redeemed.body, as: UTF8.self))")
            #expect(redeemed.json["token_type"] as? String == "DPoP")
        }
    }

    @Test func discoveryListsTheProofAlgorithms() async throws {
        try await withServer { _, _, client in
            let document = try await client.get("/.well-known/openid-configuration").json
            #expect(document["dpop_signing_alg_values_supported"] as? [String] == ["ES256", "RS256", "PS256", "EdDSA"])
        }
    }
}
