import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyHTTPParsing
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// Names that look alike are one name (RFC 8265's UsernameCaseMapped mappings: width, case,
/// NFC), and a group's name has no comma, which would split it in `Remote-Groups`.
@Suite struct NamesTests {
    @Test func theKeyMapsWidthThenCaseThenNFC() {
        let cases: [(String, String)] = [
            ("ａｄｍｉｎ", "admin"), ("ＡＤＭＩＮ", "admin"), ("Admin", "admin"), ("ｶﾀｶﾅ", "カタカナ"), ("Ölaf", "ölaf"),
            ("O\u{308}laf", "ölaf"), ("ﾞ", "\u{3099}"), ("a\u{3000}b", "a b"), ("Straße", "straße"), ("ΣΑΣ", "σασ"),
        ]
        for (name, key) in cases {
            #expect(UserName.key(of: name) == key, "\(name)")
        }
        // Only width forms are mapped: other compatibility characters stay (the profile is not NFKC).
        #expect(UserName.key(of: "ﬁ") == "ﬁ")
        #expect(UserName.key(of: "²") == "²")
    }

    @Test func aNameThatLooksLikeATakenOneIsTaken() async throws {
        try await withServer { server, ceremonies, client in
            #expect(try await ceremonies.register("admin").result.status == 200)
            for lookalike in ["ａｄｍｉｎ", "ＡＤＭＩＮ", "Ａdmin"] {
                let encoded = lookalike.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
                let initialize = try await client.get("/registration_initialize?user_name=\(encoded)")
                #expect(initialize.status == 409 && initialize.error == "user_exists", "\(lookalike)")
            }
            // Signing in by the look-alike finds the same account.
            let options = try await client.get("/authentication_initialize?user_name=%EF%BD%81%EF%BD%84%EF%BD%8D%EF%BD%89%EF%BD%8E")
            #expect(((options.json["publicKey"] as? [String: Any])?["allowCredentials"] as? [Any])?.count == 1)
        }
    }

    @Test func aGroupNameHasNoCommaAndLooksAlikeAreOneGroup() async throws {
        try await withServer { server, ceremonies, client in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let token = try await AdminAPITests.token(server)
            let path = "/admin/api/users/" + ada.userID
            let refused = try await AdminAPITests.send(client, "PATCH", path, json: ["groups": ["staff,admins"]], token: token)
            #expect(refused.status == 400 && refused.error == "invalid_request")
            #expect((refused.json["message"] as? String)?.contains("comma") == true)
            #expect(try await server.app.store.groups(userHandle: try #require(Base64URL.decode(ada.userID))).isEmpty)
            let invite = try await AdminAPITests.send(client, "POST", "/admin/api/users", json: ["user_name": "bo", "groups": ["a,b"]], token: token)
            #expect(invite.status == 400)
            // The command line refuses it too, and changes nothing.
            let cli = try await CommandRun.run(["users", "add-to-group", "ada", "staff,admins", "--database", server.databasePath])
            #expect(cli.status != 0 && cli.errors.contains("comma"), "\(cli.errors)")
            // ｓｔａｆｆ is the group staff.
            let joined = try await AdminAPITests.send(client, "PATCH", path, json: ["groups": ["staff", "ｓｔａｆｆ"]], token: token)
            #expect(joined.status == 200)
            #expect(joined.json["groups"] as? [String] == ["staff"])
        }
    }
}
