import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// `--registration` (docs/contracts/accounts.md, "Who may create accounts"): closed opens no account by any
/// way, stores nothing when it refuses, and tells no one which names exist; existing users still
/// add passkeys.
@Suite struct RegistrationPolicyTests {
    @Test func closedRefusesNewAccountsAndStoresNothing() async throws {
        try await withServer({ $0.registration = .closed }) { server, ceremonies, client in
            let refused = try await client.get("/registration_initialize?user_name=newcomer")
            #expect(refused.status == 403)
            #expect(refused.json["error"] as? String == "registration_closed")
            #expect(try await server.app.store.user(nameKey: "newcomer") == nil)
            #expect(try await client.get("/healthz").json["registration"] as? String == "closed")
            let posted = try await client.post("/registration_initialize", json: ["user_name": "other"])
            #expect(posted.json["error"] as? String == "registration_closed")
            _ = ceremonies
        }
    }

    @Test func closedTellsNothingOfWhichNamesExistAndExistingUsersStillAddPasskeys() async throws {
        // One database: the account is made while open, then the server restarts closed.
        let open = try await TestServer.start()
        let ada = try await TestRelyingParty.signedIn(Ceremonies(server: open))
        await open.stopKeepingData()
        try await withServer({ $0.database = open.databasePath; $0.registration = .closed }) { server, _, client in
            let taken = try await client.get("/registration_initialize?user_name=ada")
            let free = try await client.get("/registration_initialize?user_name=nobody")
            #expect(taken.status == 403 && free.status == 403)
            #expect(taken.json["error"] as? String == "registration_closed")
            #expect(taken.json["message"] as? String == free.json["message"] as? String)
            // Signed in, ada adds a passkey to her own account.
            #expect(try await client.get("/registration_initialize?user_name=ada", bearer: ada.session).status == 200)
            _ = server
        }
        await open.removeData()
    }

    @Test func aCeremonyIssuedWhileOpenOpensNoAccountOnceClosed() async throws {
        let open = try await TestServer.start()
        let ceremonies = Ceremonies(server: open)
        let encoded = "latecomer"
        let initialize = try await ceremonies.client.get("/registration_initialize?user_name=\(encoded)")
        let options = try #require(initialize.json["publicKey"] as? [String: Any])
        await open.stopKeepingData()
        try await withServer({ $0.database = open.databasePath; $0.registration = .closed; $0.origins = [open.origin] }) { server, _, client in
            let challenge = try #require(Base64URL.decode(options["challenge"] as? String ?? ""))
            let user = try #require(options["user"] as? [String: Any])
            let credential = try TestCredential(userHandle: try #require(Base64URL.decode(user["id"] as? String ?? "")))
            let builder = RegistrationBuilder(credential: credential, rpID: "localhost", origin: open.origin, challenge: challenge)
            let finalized = try await client.post("/registration_finalize", bytes: try builder.json())
            #expect(finalized.status == 403)
            #expect(finalized.json["error"] as? String == "registration_closed")
            #expect(try await server.app.store.user(nameKey: "latecomer") == nil)
        }
        await open.removeData()
    }
}
