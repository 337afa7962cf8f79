import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyApp
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyStorage
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// Refused requests answer the contract's JSON error and change nothing but the spent challenge.
@Suite struct RefusalTests {
    @Test func refusedRegistrationStoresNothing() async throws {
        try await withServer { server, ceremonies, _ in
            let (refused, credential, _) = try await ceremonies.register("erin") { $0.clientData.origin = "http://localhost.evil.com" }
            #expect(refused.status == 400)
            #expect(refused.error == "origin_mismatch")
            #expect(refused.setCookie == nil)
            #expect(try await server.app.store.user(nameKey: "erin") == nil)
            #expect(try await server.app.store.credential(id: credential.id) == nil)
            // The name is still free.
            #expect(try await ceremonies.register("erin").result.status == 200)
        }
    }

    @Test func eachCeremonyCheckAnswersItsCode() async throws {
        try await withServer { _, ceremonies, _ in
            let cases: [(String, (inout RegistrationBuilder) -> Void)] = [
                ("type_mismatch", { $0.clientData.type = "webauthn.get" }),
                ("origin_mismatch", { $0.clientData.crossOrigin = true }),
                ("rp_id_mismatch", { $0.authData.rpIDHash = Digest.sha256.hash(Array("example.com".utf8)) }),
                ("user_presence_required", { $0.authData.flags &= ~AuthDataBuilder.up }),
                ("invalid_request", { $0.authData.flags |= AuthDataBuilder.bs }),
                ("invalid_attestation", { $0.format = "unknown" }),
                ("invalid_request", { $0.rawID = [1, 2, 3] }),
            ]
            for (index, (code, adjust)) in cases.enumerated() {
                let (result, _, _) = try await ceremonies.register("user\(index)", adjust: adjust)
                #expect(result.status == 400)
                #expect(result.error == code)
                #expect((result.json["message"] as? String)?.isEmpty == false)
            }
        }
    }

    @Test func userVerificationRequiredIsEnforced() async throws {
        try await withServer({ $0.userVerification = .required }) { _, ceremonies, _ in
            let (result, _, options) = try await ceremonies.register("uv") { $0.authData.flags &= ~AuthDataBuilder.uv }
            #expect((options["authenticatorSelection"] as? [String: Any])?["userVerification"] as? String == "required")
            #expect(result.error == "user_verification_required")
        }
    }

    @Test func malformedRequestsSpendNoChallenge() async throws {
        try await withServer { server, _, client in
            let initialize = try await client.get("/registration_initialize?user_name=frank")
            let options = initialize.json["publicKey"] as! [String: Any]
            let challenge = Base64URL.decode(options["challenge"] as! String)!
            let handle = Base64URL.decode((options["user"] as! [String: Any])["id"] as! String)!
            let builder = RegistrationBuilder(credential: try TestCredential(userHandle: handle), rpID: "localhost", origin: server.origin, challenge: challenge)
            // The same response with a broken attestationObject, then as bare garbage: both are
            // refused as invalid_request without spending the challenge…
            var broken = builder
            broken.authData.trailing = [0xff]
            #expect(try await client.post("/registration_finalize", bytes: broken.json()).error == "invalid_request")
            #expect(try await client.post("/registration_finalize", bytes: Array("{\"rawId\": 5}".utf8)).error == "invalid_request")
            // …so the real response still succeeds.
            #expect(try await client.post("/registration_finalize", bytes: builder.json()).status == 200)
        }
    }

    @Test func replayedAndCrossKindChallengesAreUnknown() async throws {
        try await withServer { _, ceremonies, client in
            // Replay: the same body twice.
            let initialize = try await client.get("/registration_initialize?user_name=gina")
            let options = initialize.json["publicKey"] as! [String: Any]
            let challenge = Base64URL.decode(options["challenge"] as! String)!
            let handle = Base64URL.decode((options["user"] as! [String: Any])["id"] as! String)!
            let credential = try TestCredential(userHandle: handle)
            let body = try RegistrationBuilder(credential: credential, rpID: "localhost", origin: ceremonies.server.origin, challenge: challenge).json()
            #expect(try await client.post("/registration_finalize", bytes: body).status == 200)
            let replay = try await client.post("/registration_finalize", bytes: body)
            #expect(replay.error == "unknown_challenge")

            // An authentication challenge used for a registration.
            let auth = try await client.get("/authentication_initialize")
            let authChallenge = Base64URL.decode((auth.json["publicKey"] as! [String: Any])["challenge"] as! String)!
            let crossKind = try RegistrationBuilder(credential: try TestCredential(), rpID: "localhost", origin: ceremonies.server.origin, challenge: authChallenge).json()
            #expect(try await client.post("/registration_finalize", bytes: crossKind).error == "unknown_challenge")
            // …and the authentication ceremony still works with it afterwards.
            let assertion = try AssertionBuilder(credential: credential, rpID: "localhost", origin: ceremonies.server.origin, challenge: authChallenge, signCount: 0).json()
            #expect(try await client.post("/authentication_finalize", bytes: assertion).status == 200)

            // A challenge that was never issued.
            let forged = try RegistrationBuilder(credential: try TestCredential(), rpID: "localhost", origin: ceremonies.server.origin, challenge: SecureRandom.bytes(32)).json()
            #expect(try await client.post("/registration_finalize", bytes: forged).error == "unknown_challenge")
        }
    }

    /// A sign-in's challenge is spent by the write that signs in: the same body again (whose
    /// count no longer rises) is `unknown_challenge`, and marks nothing, records nothing and
    /// opens no session. A refused body's replay is alike.
    @Test func aReplayedSignInChangesNothing() async throws {
        try await withServer { server, ceremonies, client in
            let (_, credential, _) = try await ceremonies.register("jade")
            let initialize = try await client.get("/authentication_initialize")
            let challenge = Base64URL.decode((initialize.json["publicKey"] as! [String: Any])["challenge"] as! String)!
            let body = try AssertionBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge, signCount: 5).json()
            #expect(try await client.post("/authentication_finalize", bytes: body).status == 200)
            let owner = try #require(try await server.app.store.credential(id: credential.id)).userHandle
            let sessions = try await server.app.store.sessions(userHandle: owner, now: Date()).count
            let events = try await server.app.store.events(userHandle: owner, before: nil, limit: 50).count
            for _ in 0 ..< 2 {
                #expect(try await client.post("/authentication_finalize", bytes: body).error == "unknown_challenge")
            }
            let after = try #require(try await server.app.store.credential(id: credential.id))
            #expect(after.signCount == 5)
            #expect(!after.possiblyCloned)
            #expect(try await server.app.store.sessions(userHandle: owner, now: Date()).count == sessions)
            #expect(try await server.app.store.events(userHandle: owner, before: nil, limit: 50).count == events)

            // Refused (its signature broken), then replayed: spent by the refusal.
            let again = try await client.get("/authentication_initialize")
            let second = Base64URL.decode((again.json["publicKey"] as! [String: Any])["challenge"] as! String)!
            var broken = AssertionBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: second, signCount: 6)
            broken.signature = [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00]
            let refused = try broken.json()
            #expect(try await client.post("/authentication_finalize", bytes: refused).error == "invalid_signature")
            let refusedEvents = try await server.app.store.events(userHandle: owner, before: nil, limit: 50).count
            #expect(try await client.post("/authentication_finalize", bytes: refused).error == "unknown_challenge")
            #expect(try await server.app.store.events(userHandle: owner, before: nil, limit: 50).count == refusedEvents)
        }
    }

    @Test func expiredChallengesAndSessionsAreRefused() async throws {
        try await withServer({ $0.challengeTTL = 60; $0.sessionTTL = 3600 }) { server, ceremonies, client in
            let (first, credential, _) = try await ceremonies.register("hugo")
            let token = try #require(first.json["session"] as? String)
            let initialize = try await client.get("/authentication_initialize")
            let challenge = Base64URL.decode((initialize.json["publicKey"] as! [String: Any])["challenge"] as! String)!
            server.clock.advance(61)
            let late = try AssertionBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge, signCount: 0).json()
            #expect(try await client.post("/authentication_finalize", bytes: late).error == "unknown_challenge")
            #expect(try await client.get("/me", bearer: token).status == 200)
            server.clock.advance(3600)
            #expect(try await client.get("/me", bearer: token).status == 401)
            // On PostgreSQL a round that finds another sweep holding the lock (this server's
            // background sweeper) is skipped and reports 0: rounds until one did the work.
            var sessions = 0
            for _ in 0..<20 where sessions == 0 {
                sessions += try await server.app.service.sweep().sessions
                if sessions == 0 { try await Task.sleep(for: .milliseconds(250)) }
            }
            #expect(sessions == 1)
        }
    }

    @Test func credentialIDsAreUniqueAcrossUsers() async throws {
        try await withServer { server, ceremonies, _ in
            let (_, alice, _) = try await ceremonies.register("alice")
            let copy = try TestCredential(id: alice.id)
            let (result, _, _) = try await ceremonies.register("bob", credential: copy)
            #expect(result.status == 409)
            #expect(result.error == "credential_exists")
            #expect(try await server.app.store.user(nameKey: "bob") == nil)
        }
    }

    // A refused counter marks the credential possibly cloned, never updates the count, and
    // later good assertions still pass with the mark kept.
    @Test func counterRegressionMarksCloneAndChangesNothingElse() async throws {
        try await withServer { server, ceremonies, client in
            let (_, credential, _) = try await ceremonies.register("ivan")
            #expect(try await ceremonies.signIn("ivan", credential: credential, signCount: 5).result.status == 200)
            let before = try #require(try await server.app.store.credential(id: credential.id))
            let (regressed, _) = try await ceremonies.signIn("ivan", credential: credential, signCount: 3)
            #expect(regressed.error == "counter_regression")
            let (zero, _) = try await ceremonies.signIn("ivan", credential: credential, signCount: 0)
            #expect(zero.error == "counter_regression")
            let after = try #require(try await server.app.store.credential(id: credential.id))
            #expect(after.signCount == 5)
            #expect(after.lastUsedAt == before.lastUsedAt)
            #expect(after.possiblyCloned)
            let (good, _) = try await ceremonies.signIn("ivan", credential: credential, signCount: 6)
            #expect(good.status == 200)
            let token = try #require(good.json["session"] as? String)
            let listed = try #require(((try await client.get("/me", bearer: token)).json["credentials"] as? [[String: Any]])?.first)
            #expect(listed["possibly_cloned"] as? Bool == true)
            #expect(listed["sign_count"] as? Int == 6)
        }
    }

    @Test func invalidSignatureChangesNothing() async throws {
        try await withServer { server, ceremonies, _ in
            let (_, credential, _) = try await ceremonies.register("judy")
            let (result, _) = try await ceremonies.signIn("judy", credential: credential, signCount: 9) {
                $0.signature = [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00]
            }
            #expect(result.error == "invalid_signature")
            let stored = try #require(try await server.app.store.credential(id: credential.id))
            #expect(stored.signCount == 0 && stored.lastUsedAt == nil && !stored.possiblyCloned)
        }
    }

    @Test func unknownCredentialIsRefused() async throws {
        try await withServer { _, ceremonies, _ in
            let (result, _) = try await ceremonies.signIn(nil, credential: try TestCredential(), signCount: 0)
            #expect(result.error == "unknown_credential")
        }
    }
}
