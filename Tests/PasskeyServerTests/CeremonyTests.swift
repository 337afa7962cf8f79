import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyStorage
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// Whole ceremonies over HTTP against the real server on a free port.
@Suite struct CeremonyTests {
    @Test func registerSignInMeAndLogout() async throws {
        try await withServer { server, ceremonies, client in
            let (registered, credential, options) = try await ceremonies.register("alice")
            #expect(registered.status == 200)
            #expect(registered.json["status"] as? String == "ok")
            #expect(registered.json["user_name"] as? String == "alice")
            #expect(registered.json["credential_id"] as? String == Base64URL.encode(credential.id))
            let cookie = try #require(registered.setCookie)
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"))
            #expect(!cookie.contains("Secure"))
            let token = try #require(registered.json["session"] as? String)
            #expect(cookie.hasPrefix("session=\(token);"))

            // Options as parseCreationOptionsFromJSON takes them.
            let user = try #require(options["user"] as? [String: Any])
            #expect((Base64URL.decode(user["id"] as! String) ?? []).count >= 16)
            #expect(user["id"] as? String != Base64URL.encode(Array("alice".utf8)))
            #expect((Base64URL.decode(options["challenge"] as! String) ?? []).count == 38)  // 6 bytes of time, 32 random
            let algs = (options["pubKeyCredParams"] as? [[String: Any]] ?? []).compactMap { $0["alg"] as? Int }
            #expect(algs.first == -7 && algs == COSEAlgorithm.defaultOffered.map(\.rawValue))
            #expect((options["extensions"] as? [String: Any])?["credProps"] as? Bool == true)
            #expect((options["rp"] as? [String: Any])?["id"] as? String == "localhost")

            // The session works as a cookie and as a Bearer token.
            let me = try await client.get("/me", cookie: token)
            #expect(me.status == 200)
            #expect(me.json["user_name"] as? String == "alice")
            #expect(me.json["display_name"] as? String == "alice")
            let listed = try #require((me.json["credentials"] as? [[String: Any]])?.first)
            #expect(listed["credential_id"] as? String == Base64URL.encode(credential.id))
            #expect(listed["sign_count"] as? Int == 0)
            #expect(listed["last_used_at"] is NSNull)
            #expect(listed["aaguid"] as? String == "00000000-0000-0000-0000-000000000000")
            #expect(listed["possibly_cloned"] as? Bool == false)
            #expect(listed["transports"] as? [String] == ["internal"])
            #expect((listed["created_at"] as? String)?.hasSuffix("Z") == true)
            #expect(try await client.get("/me", bearer: token).status == 200)

            // Sign in with the name.
            let (signedIn, request) = try await ceremonies.signIn("alice", credential: credential, signCount: 1)
            #expect(signedIn.status == 200)
            #expect(signedIn.json["user_name"] as? String == "alice")
            let allow = (request["allowCredentials"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(allow == [Base64URL.encode(credential.id)])
            #expect(request["rpId"] as? String == "localhost")
            #expect(request["userVerification"] as? String == "preferred")
            let newToken = try #require(signedIn.json["session"] as? String)
            let after = try await client.get("/me", bearer: newToken)
            let updated = try #require((after.json["credentials"] as? [[String: Any]])?.first)
            #expect(updated["sign_count"] as? Int == 1)
            #expect(updated["last_used_at"] is String)

            // Logout ends that session only.
            #expect(try await client.send("POST", "/logout", bearer: newToken).status == 200)
            #expect(try await client.get("/me", bearer: newToken).status == 401)
            #expect(try await client.get("/me", bearer: token).status == 200)
            #expect(try await client.send("POST", "/logout").status == 200)
            _ = server
        }
    }

    @Test func usernamelessSignInNeedsTheOwnersUserHandle() async throws {
        try await withServer { _, ceremonies, _ in
            let (_, credential, _) = try await ceremonies.register("carol")
            let (ok, options) = try await ceremonies.signIn(nil, credential: credential, signCount: 0)
            #expect(ok.status == 200)
            #expect(options["allowCredentials"] == nil)
            let (missing, _) = try await ceremonies.signIn(nil, credential: credential, signCount: 0) { $0.userHandle = nil }
            #expect(missing.error == "user_handle_mismatch")
        }
    }

    // YSA-2026-02: an assertion by Mallory's credential carrying Alice's user handle must not
    // sign in as Alice, in either kind of ceremony.
    @Test func assertionForAnotherUsersCredentialIsRefused() async throws {
        try await withServer { _, ceremonies, _ in
            let (_, alice, _) = try await ceremonies.register("alice")
            let (_, mallory, _) = try await ceremonies.register("mallory")
            let (usernameless, _) = try await ceremonies.signIn(nil, credential: mallory, signCount: 0) { $0.userHandle = alice.userHandle }
            #expect(usernameless.status == 400)
            #expect(usernameless.error == "user_handle_mismatch")
            let (named, _) = try await ceremonies.signIn("alice", credential: mallory, signCount: 0)
            #expect(named.error == "unknown_credential")
        }
    }

    @Test func namesAreUniqueCaseInsensitivelyAndSignedInUsersAddPasskeys() async throws {
        try await withServer { _, ceremonies, client in
            let (first, _, _) = try await ceremonies.register("Alice")
            let token = try #require(first.json["session"] as? String)
            let taken = try await client.get("/registration_initialize?user_name=%20alice%20")
            #expect(taken.status == 409)
            #expect(taken.error == "user_exists")

            let (second, _, options) = try await ceremonies.register("alice", session: token)
            #expect(second.status == 200)
            #expect((options["excludeCredentials"] as? [Any])?.count == 1)
            let me = try await client.get("/me", bearer: token)
            #expect((me.json["credentials"] as? [Any])?.count == 2)
            #expect(me.json["user_name"] as? String == "Alice")

            // Another user's session does not unlock the name.
            let (bob, _, _) = try await ceremonies.register("bob")
            let bobToken = try #require(bob.json["session"] as? String)
            #expect(try await client.get("/registration_initialize?user_name=alice", bearer: bobToken).error == "user_exists")
        }
    }

    @Test func userNamesAreValidated() async throws {
        try await withServer { _, _, client in
            for bad in ["", "%20%20", String(repeating: "x", count: 65), "a%00b", "a%0Ab", "%E2%80%AEevil"] {
                let result = try await client.get("/registration_initialize?user_name=\(bad)")
                #expect(result.status == 400, "\(bad)")
                #expect(result.error == "invalid_request")
            }
            #expect(try await client.get("/registration_initialize").error == "invalid_request")
            #expect(try await client.get("/registration_initialize?user_name=\(String(repeating: "é", count: 64).addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)").status == 200)
            let post = try await client.post("/registration_initialize", json: ["user_name": "dora", "display_name": "Dora D."])
            #expect(post.status == 200)
            #expect(((post.json["publicKey"] as? [String: Any])?["user"] as? [String: Any])?["displayName"] as? String == "Dora D.")
            #expect(try await client.post("/registration_initialize", json: ["user_name": 5]).error == "invalid_request")
        }
    }

    @Test func unknownNamesLookLikeKnownOnes() async throws {
        try await withServer { _, ceremonies, client in
            _ = try await ceremonies.register("alice")
            let known = try await client.get("/authentication_initialize?user_name=alice")
            let unknown1 = try await client.get("/authentication_initialize?user_name=nobody")
            let unknown2 = try await client.get("/authentication_initialize?user_name=NOBODY")
            #expect(known.status == unknown1.status)
            func allow(_ r: HTTPResult) -> [String] {
                ((r.json["publicKey"] as? [String: Any])?["allowCredentials"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            #expect((1...3).contains(allow(unknown1).count))
            #expect(allow(unknown1) == allow(unknown2))
            #expect(allow(unknown1) != allow(known))
            #expect(Set((known.json["publicKey"] as? [String: Any] ?? [:]).keys) == Set((unknown1.json["publicKey"] as? [String: Any] ?? [:]).keys))
            // The sealed challenge is as long for either, beside the list it carries (two bytes
            // of length and the id, each).
            func rest(_ r: HTTPResult) -> Int? {
                guard let challenge = ((r.json["publicKey"] as? [String: Any])?["challenge"] as? String).flatMap(Base64URL.decode) else { return nil }
                return challenge.count - allow(r).compactMap(Base64URL.decode).reduce(0) { $0 + 2 + $1.count }
            }
            #expect(rest(known) != nil)
            #expect(rest(known) == rest(unknown1))
        }
    }
}
