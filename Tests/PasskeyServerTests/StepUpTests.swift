import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// Step-up (docs/contracts/accounts.md, "Recent authentication for sensitive actions"): adding or deleting a
/// passkey needs a user-verified passkey ceremony in this session within `--reauth-window`; the
/// `{"reauthenticate": true}` ceremony renews the current session instead of opening another.
@Suite struct StepUpTests {
    /// `{"reauthenticate": true}` → the authenticator → finalize, for `session`.
    static func reauthenticate(
        _ server: TestServer, _ session: String, credential: TestCredential, signCount: UInt32, flags: UInt8 = AuthDataBuilder.up | AuthDataBuilder.uv
    ) async throws -> (initialize: HTTPResult, finalize: HTTPResult) {
        let client = Client(base: server.base)
        let initialize = try await client.post("/authentication_initialize", json: ["reauthenticate": true], bearer: session)
        guard initialize.status == 200, let options = initialize.json["publicKey"] as? [String: Any],
              let challenge = Base64URL.decode(options["challenge"] as? String ?? "")
        else { return (initialize, initialize) }
        let builder = AssertionBuilder(
            credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge, signCount: signCount, flags: flags)
        return (initialize, try await client.post("/authentication_finalize", bytes: try builder.json()))
    }

    @Test func aStaleSessionMustStepUpAndTheCeremonyRenewsIt() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let id = Base64URL.encode(ada.credential.id)
            server.clock.advance(301)
            // Adding a passkey is refused at initialize, before any ceremony; deleting one at the request.
            let add = try await client.get("/registration_initialize?user_name=ada", bearer: ada.session)
            #expect(add.status == 401)
            #expect(add.json["error"] as? String == "reauthentication_required")
            let delete = try await client.send("DELETE", "/credentials/\(id)", bearer: ada.session)
            #expect(delete.status == 401 && delete.json["error"] as? String == "reauthentication_required")
            #expect(try await server.app.store.credential(id: ada.credential.id) != nil)

            let (initialize, finalize) = try await Self.reauthenticate(server, ada.session, credential: ada.credential, signCount: 1)
            let options = try #require(initialize.json["publicKey"] as? [String: Any])
            #expect(options["userVerification"] as? String == "required")
            #expect((options["allowCredentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [id])
            #expect(finalize.status == 200, "\(String(decoding: finalize.body, as: UTF8.self))")
            #expect(finalize.json["reauthenticated"] as? Bool == true)
            #expect(finalize.json["session"] == nil)
            #expect(finalize.setCookie == nil)
            // The same session, renewed: no second one, and it may now add a passkey.
            let sessions = try await SessionListTests.sessions(client, ada.session)
            #expect(sessions.count == 1)
            #expect(sessions.first?["auth_time"] as? String != sessions.first?["created_at"] as? String)
            #expect(try await client.get("/registration_initialize?user_name=ada", bearer: ada.session).status == 200)
            let events = try await server.app.store.events(userHandle: try #require(Base64URL.decode(ada.userID)), before: nil, limit: 5)
            #expect(events.first?.type == "reauthenticated")
            // Until the window passes again.
            server.clock.advance(301)
            #expect(try await client.get("/registration_initialize?user_name=ada", bearer: ada.session).status == 401)
        }
    }

    /// A step-up whose session ended between initialize and finalize fails (401) and renews
    /// nothing: it used to answer 200 `reauthenticated` for a session that no longer existed.
    @Test func aStepUpWhoseSessionEndedMeanwhileFails() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let initialize = try await client.post("/authentication_initialize", json: ["reauthenticate": true], bearer: ada.session)
            let options = try #require(initialize.json["publicKey"] as? [String: Any])
            let challenge = try #require(Base64URL.decode(options["challenge"] as? String ?? ""))
            #expect(try await client.send("POST", "/logout", bearer: ada.session).status == 200)
            let builder = AssertionBuilder(credential: ada.credential, rpID: "localhost", origin: server.origin, challenge: challenge, signCount: 1)
            let finalize = try await client.post("/authentication_finalize", bytes: try builder.json())
            #expect(finalize.status == 401, "\(String(decoding: finalize.body, as: UTF8.self))")
            #expect(finalize.json["reauthenticated"] == nil)
            #expect(try await client.get("/me", bearer: ada.session).status == 401)
            let handle = try #require(Base64URL.decode(ada.userID))
            #expect(try await server.app.store.sessions(userHandle: handle, now: server.clock.now()).isEmpty)
        }
    }

    @Test func theStepUpNeedsUserVerificationTheAccountsOwnPasskeyAndASession() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let bob = try await TestRelyingParty.signedIn(ceremonies, "bob")
            server.clock.advance(301)
            #expect(try await client.post("/authentication_initialize", json: ["reauthenticate": true]).status == 401)
            // Without UV: refused, and the session stays stale.
            let unverified = try await Self.reauthenticate(server, ada.session, credential: ada.credential, signCount: 1, flags: AuthDataBuilder.up)
            #expect(unverified.finalize.status == 400)
            #expect(try await client.get("/registration_initialize?user_name=ada", bearer: ada.session).status == 401)
            // Another account's passkey cannot renew ada's session.
            let foreign = try await Self.reauthenticate(server, ada.session, credential: bob.credential, signCount: 1)
            #expect(foreign.finalize.status != 200)
            #expect(try await client.get("/registration_initialize?user_name=ada", bearer: ada.session).status == 401)
            // (A session signed out meanwhile: aStepUpWhoseSessionEndedMeanwhileFails.)
        }
    }

    @Test func phonesAreEnrolledAndRemovedOnlyWithARecentCeremony() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            server.clock.advance(301)
            let discovery = try await client.send("POST", "/push/devices/discovery", bearer: ada.session)
            #expect(discovery.status == 401 && discovery.json["error"] as? String == "reauthentication_required")
            let removal = try await client.send("DELETE", "/push/devices/some-device", bearer: ada.session)
            #expect(removal.json["error"] as? String == "reauthentication_required")
            _ = try await Self.reauthenticate(server, ada.session, credential: ada.credential, signCount: 1)
            #expect(try await client.send("POST", "/push/devices/discovery", bearer: ada.session).status == 200)
            #expect(try await client.send("DELETE", "/push/devices/some-device", bearer: ada.session).status == 404)
        }
    }

    @Test func aSessionOpenedWithoutUserVerificationIsNotFresh() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let signedIn = try await ceremonies.signIn("ada", credential: ada.credential, signCount: 1) { $0.authData.flags = AuthDataBuilder.up }
            let session = try #require(signedIn.result.json["session"] as? String, "\(String(decoding: signedIn.result.body, as: UTF8.self))")
            let delete = try await client.send("DELETE", "/credentials/\(Base64URL.encode(ada.credential.id))", bearer: session)
            #expect(delete.json["error"] as? String == "reauthentication_required")
            // The registration's own session (UV) is fresh: it deletes at once.
            #expect(try await client.send("DELETE", "/credentials/\(Base64URL.encode(ada.credential.id))", bearer: ada.session).status == 200)
        }
    }
}
