import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyApp
import PasskeyStorage
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// WebAuthn Level 3 over HTTP, on the store the test server runs on (SQLite, or PostgreSQL with
/// PASSKEY_TEST_SERVER_DATABASE=postgres): conditional creation, residentKey, hints,
/// authenticatorAttachment, PRF salts, the display name for the Signal API, passkey endpoints.
@Suite struct Level3Tests {
    /// POST registration_initialize with `body` → authenticator → finalize.
    static func register(
        _ server: TestServer, _ body: [String: Any], session: String? = nil, adjust: (inout RegistrationBuilder) -> Void = { _ in }
    ) async throws -> (initialize: HTTPResult, result: HTTPResult?, credential: TestCredential?) {
        let client = Client(base: server.base)
        let initialize = try await client.post("/registration_initialize", json: body, bearer: session)
        guard initialize.status == 200 else { return (initialize, nil, nil) }
        let options = initialize.json["publicKey"] as? [String: Any] ?? [:]
        let challenge = Base64URL.decode(options["challenge"] as? String ?? "") ?? []
        let handle = Base64URL.decode((options["user"] as? [String: Any])?["id"] as? String ?? "") ?? []
        let credential = try TestCredential(userHandle: handle)
        var builder = RegistrationBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge)
        adjust(&builder)
        return (initialize, try await client.post("/registration_finalize", bytes: builder.json()), credential)
    }

    static func options(_ result: HTTPResult) -> [String: Any] { result.json["publicKey"] as? [String: Any] ?? [:] }

    static func credentials(_ client: Client, _ token: String) async throws -> [[String: Any]] {
        (try await client.get("/me", bearer: token).json["credentials"] as? [[String: Any]]) ?? []
    }

    // MARK: Conditional creation

    @Test func aConditionalCreationUpgradesASignedInUserWithoutUserPresence() async throws {
        try await withServer { server, ceremonies, client in
            let (first, _, _) = try await ceremonies.register("carol")
            let token = try #require(first.json["session"] as? String)
            let noGesture: (inout RegistrationBuilder) -> Void = { $0.authData.flags &= ~(AuthDataBuilder.up | AuthDataBuilder.uv) }

            // Marked conditional: UP=0 (and UV=0 under the default `preferred`) is accepted.
            let upgrade = try await Self.register(server, ["user_name": "carol", "mediation": "conditional"], session: token, adjust: noGesture)
            #expect(upgrade.result?.status == 200, "\(String(decoding: upgrade.result?.body ?? Data(), as: UTF8.self))")
            #expect(try await Self.credentials(client, token).count == 2)

            // Any other ceremony still needs UP, and the refusal stores nothing.
            let plain = try await Self.register(server, ["user_name": "carol"], session: token, adjust: noGesture)
            #expect(plain.result?.status == 400)
            #expect(plain.result?.error == "user_presence_required")
            #expect(try await Self.credentials(client, token).count == 2)

            // Only for a signed-in account: never a new one, never someone else's.
            let stranger = try await client.post("/registration_initialize", json: ["user_name": "dave", "mediation": "conditional"])
            #expect(stranger.status == 401)
            #expect(stranger.error == "unauthorized")
            let other = try await client.post("/registration_initialize", json: ["user_name": "carol", "mediation": "conditional"])
            #expect(other.status == 409)
            for mediation in ["silent", "required", "Conditional", ""] {
                let refused = try await client.post("/registration_initialize", json: ["user_name": "carol", "mediation": mediation], bearer: token)
                #expect(refused.status == 400 && refused.error == "invalid_request", "mediation \(mediation)")
            }
            #expect(try await client.post("/authentication_initialize", json: ["mediation": "conditional"]).status == 400)
        }
    }

    @Test func aConditionalCreationStillAppliesARequiredUserVerification() async throws {
        try await withServer({ $0.userVerification = .required }) { server, ceremonies, _ in
            let (first, _, _) = try await ceremonies.register("erin")
            let token = try #require(first.json["session"] as? String)
            let upgrade = try await Self.register(server, ["user_name": "erin", "mediation": "conditional"], session: token) {
                $0.authData.flags &= ~(AuthDataBuilder.up | AuthDataBuilder.uv)
            }
            #expect(upgrade.result?.error == "user_verification_required")
        }
    }

    // MARK: residentKey, attachment, hints

    @Test func aSecurityKeyWithoutResidentStorageRegistersAndSignsInByName() async throws {
        try await withServer({ $0.residentKey = .preferred; $0.authenticatorAttachment = .crossPlatform }) { server, ceremonies, client in
            let (initialize, result, credential) = try await Self.register(server, ["user_name": "frank"]) { $0.reportedResidentKey = nil }
            let selection = try #require(Self.options(initialize)["authenticatorSelection"] as? [String: Any])
            #expect(selection["residentKey"] as? String == "preferred")
            #expect(selection["requireResidentKey"] as? Bool == false)
            #expect(selection["authenticatorAttachment"] as? String == "cross-platform")
            #expect(result?.status == 200)
            let token = try #require(result?.json["session"] as? String)
            #expect(try await Self.credentials(client, token).first?["discoverable"] as? Bool == false)
            let (signedIn, _) = try await ceremonies.signIn("frank", credential: try #require(credential), signCount: 1)
            #expect(signedIn.status == 200)

            // credProps rk: true makes it discoverable; a request may ask for more, never less.
            let discoverable = try await Self.register(server, ["user_name": "gina"]) { $0.reportedResidentKey = true }
            let ginaToken = try #require(discoverable.result?.json["session"] as? String)
            #expect(try await Self.credentials(client, ginaToken).first?["discoverable"] as? Bool == true)
            let stricter = try await client.post("/registration_initialize", json: ["user_name": "hank", "resident_key": "required"])
            #expect((Self.options(stricter)["authenticatorSelection"] as? [String: Any])?["requireResidentKey"] as? Bool == true)
            let weaker = try await client.post("/registration_initialize", json: ["user_name": "hank", "resident_key": "discouraged"])
            #expect(weaker.status == 400 && weaker.error == "invalid_request")
        }
    }

    @Test func residentKeyRequiredByDefaultAndNeverLowered() async throws {
        try await withServer { _, _, client in
            let options = Self.options(try await client.post("/registration_initialize", json: ["user_name": "ivy"]))
            let selection = try #require(options["authenticatorSelection"] as? [String: Any])
            #expect(selection["residentKey"] as? String == "required")
            #expect(selection["authenticatorAttachment"] == nil)
            #expect(options["hints"] == nil)
            for level in ["preferred", "discouraged", "REQUIRED", "none"] {
                let refused = try await client.post("/registration_initialize", json: ["user_name": "ivy", "resident_key": level])
                #expect(refused.status == 400, "resident_key \(level)")
            }
        }
    }

    @Test func hintsAreEchoedInOrderAndUnknownOnesRefused() async throws {
        try await withServer { _, _, client in
            let hints = ["security-key", "hybrid", "client-device"]
            let creation = try await client.post("/registration_initialize", json: ["user_name": "jill", "hints": hints])
            #expect(Self.options(creation)["hints"] as? [String] == hints)
            let request = try await client.post("/authentication_initialize", json: ["hints": ["client-device"]])
            #expect(Self.options(request)["hints"] as? [String] == ["client-device"])
            for bad: Any in [["usb"], ["hybrid", "hybrid"], ["Hybrid"], "hybrid", [1]] {
                let a = try await client.post("/registration_initialize", json: ["user_name": "jill", "hints": bad])
                let b = try await client.post("/authentication_initialize", json: ["hints": bad])
                #expect(a.status == 400 && b.status == 400, "hints \(bad)")
                #expect(a.error == "invalid_request" && b.error == "invalid_request")
            }
        }
    }

    // MARK: PRF

    @Test func prfIsEnabledAtRegistrationAndSaltedPerCredential() async throws {
        try await withServer { server, _, client in
            let first = try await Self.register(server, ["user_name": "kate", "prf": true]) { $0.reportedPRFEnabled = true }
            #expect((Self.options(first.initialize)["extensions"] as? [String: Any])?["prf"] as? [String: Any] != nil)
            let token = try #require(first.result?.json["session"] as? String)
            let second = try await Self.register(server, ["user_name": "kate"], session: token)
            #expect((Self.options(second.initialize)["extensions"] as? [String: Any])?["prf"] == nil)
            let listed = try await Self.credentials(client, token)
            #expect(listed.map { $0["prf_enabled"] as? Bool } == [true, false])

            func salts(_ name: String) async throws -> [String: String] {
                let answer = try await client.post("/authentication_initialize", json: ["user_name": name, "prf": true])
                #expect(answer.status == 200)
                let prf = (Self.options(answer)["extensions"] as? [String: Any])?["prf"] as? [String: Any]
                let byCredential = prf?["evalByCredential"] as? [String: [String: String]] ?? [:]
                return byCredential.compactMapValues { $0["first"] }
            }
            let once = try await salts("kate")
            let ids = try [first.credential, second.credential].map { Base64URL.encode(try #require($0).id) }
            #expect(Set(once.keys) == Set(ids))
            #expect(Set(once.values).count == 2, "each credential has its own salt")
            #expect(once.values.allSatisfy { Base64URL.decode($0)?.count == 32 })
            #expect(try await salts("kate") == once, "a credential's salt is stable")
            // An unknown name gets salts for its decoy list too; usernameless PRF is refused.
            #expect(try await !salts("nobody-here").isEmpty)
            let usernameless = try await client.post("/authentication_initialize", json: ["prf": true])
            #expect(usernameless.status == 400 && usernameless.error == "invalid_request")
            // Without the flag nothing is added.
            let plain = try await client.post("/authentication_initialize", json: ["user_name": "kate"])
            #expect(Self.options(plain)["extensions"] == nil)
        }
    }

    /// Every Level 3 refusal of an initialize is `invalid_request` (or 401) and stores no
    /// ceremony: a sweep far in the future finds none.
    @Test func refusedLevel3OptionsStoreNoCeremony() async throws {
        try await withServer { server, _, client in
            let refused: [(String, [String: Any])] = [
                ("/authentication_initialize", ["prf": true]),
                ("/authentication_initialize", ["user_name": "  ", "prf": true]),
                ("/authentication_initialize", ["user_name": "nia", "hints": ["usb"]]),
                ("/authentication_initialize", ["user_name": "nia", "mediation": "conditional"]),
                ("/authentication_initialize", ["resident_key": "required"]),
                ("/registration_initialize", ["user_name": "nia", "hints": ["hybrid", "hybrid"]]),
                ("/registration_initialize", ["user_name": "nia", "mediation": "silent"]),
                ("/registration_initialize", ["user_name": "nia", "resident_key": "discouraged"]),
                ("/registration_initialize", ["user_name": "nia", "mediation": "conditional"]),
            ]
            for (path, body) in refused {
                let answer = try await client.post(path, json: body)
                #expect(answer.status == 400 || answer.status == 401, "\(path) \(body)")
                #expect(answer.error == "invalid_request" || answer.error == "unauthorized", "\(path) \(body)")
            }
            let swept = try await server.app.store.sweepExpired(now: Date().addingTimeInterval(86_400))
            #expect(swept.ceremonies == 0)
        }
    }

    // MARK: Display name (signalCurrentUserDetails) and the Signal API's inputs

    @Test func theDisplayNameChangesAndIsValidatedLikeRegistration() async throws {
        try await withServer { _, ceremonies, client in
            let (registered, credential, options) = try await ceremonies.register("lena")
            let token = try #require(registered.json["session"] as? String)
            let me = try await client.get("/me", bearer: token)
            #expect(me.json["user_id"] as? String == (options["user"] as? [String: Any])?["id"] as? String)
            #expect(me.json["rp_id"] as? String == "localhost")
            #expect(me.json["user_id"] as? String != Base64URL.encode(credential.id))

            let patch = { (body: Any, bearer: String?) in
                try await client.send("PATCH", "/me", body: try JSONSerialization.data(withJSONObject: body), bearer: bearer)
            }
            #expect(try await patch(["display_name": "  Lena L. 🐝 "], token).status == 200)
            #expect(try await client.get("/me", bearer: token).json["display_name"] as? String == "Lena L. 🐝")
            for bad: Any in [["display_name": String(repeating: "x", count: 65)], ["display_name": "a\u{0}b"],
                             ["display_name": "a\u{202E}b"], ["display_name": 5], [String: Any]()] {
                let refused = try await patch(bad, token)
                #expect(refused.status == 400 && refused.error == "invalid_request", "\(bad)")
            }
            #expect(try await client.get("/me", bearer: token).json["display_name"] as? String == "Lena L. 🐝")
            // Blank: back to the user name, as at registration.
            #expect(try await patch(["display_name": "   "], token).status == 200)
            #expect(try await client.get("/me", bearer: token).json["display_name"] as? String == "lena")
            #expect(try await patch(["display_name": "x"], nil).status == 401)
            let events = try await client.get("/me/events", bearer: token).json["events"] as? [[String: Any]] ?? []
            #expect(events.contains { $0["type"] as? String == "display_name_changed" })
        }
    }

    // MARK: Passkey endpoints

    @Test func passkeyEndpointsPointAtThePagesViewsOnThePrimaryOrigin() async throws {
        try await withServer { server, _, client in
            let answer = try await client.get("/.well-known/passkey-endpoints")
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "application/json")
            #expect(answer.json["enroll"] as? String == server.origin + "/#add-passkey")
            #expect(answer.json["manage"] as? String == server.origin + "/#passkeys")
            #expect(answer.json.count == 2)
        }
    }
}
