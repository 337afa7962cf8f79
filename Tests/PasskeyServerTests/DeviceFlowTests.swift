import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyCrypto
import PasskeyHTTPParsing
import PasskeyJSON
import PasskeyQR
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// A device client of the provider (RFC 8628): it asks at `/oauth/device` and polls the token
/// endpoint; the person's browser is the `/device` page's JSON calls with a session cookie.
struct TestDevice {
    let rp: TestRelyingParty
    var server: TestServer { rp.server }

    static func register(_ server: TestServer, id: String = "tv", _ configure: (inout ClientRegistry.Registration) -> Void = { _ in }) async throws -> TestDevice {
        let rp = try await TestRelyingParty.register(server, id: id) { registration in
            registration.name = "Living-room TV"
            registration.isPublic = true
            registration.redirectURIs = []
            registration.deviceFlow = true
            configure(&registration)
        }
        return TestDevice(rp: rp)
    }

    func ask(scope: String = "openid profile") async throws -> HTTPResult {
        try await rp.raw("POST", "/oauth/device", body: TestRelyingParty.form([("client_id", rp.clientID), ("scope", scope)]))
    }

    func poll(_ deviceCode: String) async throws -> HTTPResult {
        try await rp.token([("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode)])
    }

    func lookup(_ userCode: String, session: String?) async throws -> HTTPResult {
        try await Client(base: server.base).post("/device/lookup", json: ["user_code": userCode], cookie: session)
    }

    func decide(_ userCode: String, approve: Bool, session: String?) async throws -> HTTPResult {
        try await Client(base: server.base).post("/device/decision", json: ["user_code": userCode, "approve": approve], cookie: session)
    }
}

/// The device authorization grant over HTTP (docs/contracts/identity.md; RFC 8628 §3): the device's request,
/// its polls (`authorization_pending`, `slow_down`, `access_denied`, `expired_token`), the
/// page's lookup and decision with a passkey session opened for the request, the tokens once,
/// the per-client policy, and the limit on wrong user codes.
@Suite struct DeviceFlowTests {
    @Test func aDeviceIsApprovedAndGetsItsTokensOnce() async throws {
        try await withServer { server, ceremonies, client in
            let discovery = try await client.get("/.well-known/openid-configuration").json
            #expect(discovery["device_authorization_endpoint"] as? String == server.origin + "/oauth/device")
            #expect((discovery["grant_types_supported"] as? [String])?.contains("urn:ietf:params:oauth:grant-type:device_code") == true)

            // Polls a moment apart must stay "too fast" however slow the machine is.
            server.clock.freeze()
            let device = try await TestDevice.register(server)
            let asked = try await device.ask()
            #expect(asked.status == 200, "\(String(decoding: asked.body, as: UTF8.self))")
            #expect(asked.header("Cache-Control") == "no-store")
            let deviceCode = try #require(asked.json["device_code"] as? String)
            #expect(Base64URL.decode(deviceCode)?.count == 32)
            let userCode = try #require(asked.json["user_code"] as? String)
            #expect(userCode.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil)
            #expect(asked.json["verification_uri"] as? String == server.origin + "/device")
            #expect(asked.json["verification_uri_complete"] as? String == server.origin + "/device?user_code=" + userCode)
            #expect(asked.json["expires_in"] as? Int == 600)
            #expect(asked.json["interval"] as? Int == 5)
            #expect((asked.json["qr_svg"] as? String)?.hasPrefix("<svg") == true)
            #expect((asked.json["qr_text"] as? String)?.contains("\u{2588}") == true)

            // Pending: the first poll; a second at once is too fast.
            #expect(try await device.poll(deviceCode).json["error"] as? String == "authorization_pending")
            let fast = try await device.poll(deviceCode)
            #expect(fast.status == 400)
            #expect(fast.json["error"] as? String == "slow_down")
            server.clock.advance(10)
            let later = try await device.poll(deviceCode)
            #expect(later.json["error"] as? String == "authorization_pending", "\(String(decoding: later.body, as: UTF8.self))")

            // The person signs in (a session opened after the device asked) and approves; the
            // code may be typed in any case, with spaces, without the dash.
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let typed = " " + userCode.lowercased().replacingOccurrences(of: "-", with: " ") + " "
            let found = try await device.lookup(typed, session: ada.session)
            #expect(found.status == 200, "\(String(decoding: found.body, as: UTF8.self))")
            #expect(found.json["client_name"] as? String == "Living-room TV")
            #expect(found.json["user_code"] as? String == userCode)
            #expect(found.json["scopes"] as? [String] == ["openid", "profile"])
            #expect(found.json["approval"] as? String == "approvable")
            let approved = try await device.decide(userCode, approve: true, session: ada.session)
            #expect(approved.status == 200, "\(String(decoding: approved.body, as: UTF8.self))")
            #expect(try await device.decide(userCode, approve: false, session: ada.session).json["error"] as? String == "unknown_user_code")

            server.clock.advance(10)
            let tokens = try await device.poll(deviceCode)
            #expect(tokens.status == 200, "\(String(decoding: tokens.body, as: UTF8.self))")
            #expect(tokens.json["refresh_token"] == nil)
            let id = try await device.rp.verified(try #require(tokens.json["id_token"] as? String), typ: "JWT")
            #expect(id["aud"]?.stringValue == "tv")
            #expect(id["sub"]?.stringValue == ada.userID)
            #expect(id["preferred_username"]?.stringValue == "ada")
            #expect(id["nonce"] == nil)
            #expect(id["amr"] == .array(["hwk", "user", "mfa"].map(JSONValue.string)))
            let accessToken = try #require(tokens.json["access_token"] as? String)
            #expect(try await device.rp.userinfo(accessToken).json["sub"] as? String == ada.userID)

            // The device's sign-in is its own: signing out of the browser leaves it standing.
            #expect(try await client.post("/logout", json: [:], bearer: ada.session).status == 200)
            #expect(try await device.rp.userinfo(accessToken).status == 200)

            // Once: a second redemption is refused and revokes what the first one gave.
            server.clock.advance(10)
            let again = try await device.poll(deviceCode)
            #expect(again.json["error"] as? String == "invalid_grant")
            #expect(try await device.rp.userinfo(accessToken).status == 401)
            let events = try await server.app.store.events(userHandle: try #require(Base64URL.decode(ada.userID)), before: nil, limit: 20).map(\.type)
            #expect(events.contains("oauth_device_approved") && events.contains("oauth_device_code_reuse"))
        }
    }

    @Test func aDeniedRequestIsAccessDeniedAndAnExpiredOneExpiredToken() async throws {
        try await withServer { server, ceremonies, _ in
            let device = try await TestDevice.register(server)
            let asked = try await device.ask()
            let deviceCode = try #require(asked.json["device_code"] as? String)
            let userCode = try #require(asked.json["user_code"] as? String)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            #expect(try await device.decide(userCode, approve: false, session: ada.session).status == 200)
            let denied = try await device.poll(deviceCode)
            #expect(denied.status == 400)
            #expect(denied.json["error"] as? String == "access_denied")

            let later = try await device.ask()
            server.clock.advance(601)
            let expired = try await device.poll(try #require(later.json["device_code"] as? String))
            #expect(expired.json["error"] as? String == "expired_token")
            #expect(try await device.lookup(try #require(later.json["user_code"] as? String), session: nil).status == 404)
        }
    }

    @Test func anApprovalNeedsASessionOpenedAfterTheDeviceAsked() async throws {
        try await withServer { server, ceremonies, _ in
            let device = try await TestDevice.register(server)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            server.clock.advance(5)
            let asked = try await device.ask()
            let userCode = try #require(asked.json["user_code"] as? String)
            // Without a session, and with one that predates the request: sign in first.
            #expect(try await device.lookup(userCode, session: nil).json["approval"] as? String == "sign_in")
            #expect(try await device.lookup(userCode, session: ada.session).json["approval"] as? String == "sign_in")
            #expect(try await device.decide(userCode, approve: true, session: nil).status == 401)
            let stale = try await device.decide(userCode, approve: true, session: ada.session)
            #expect(stale.status == 401)
            #expect(stale.json["error"] as? String == "device_sign_in_required")
            // Nothing was decided: the device still waits.
            #expect(try await device.poll(try #require(asked.json["device_code"] as? String)).json["error"] as? String == "authorization_pending")
            // A fresh sign-in with the same passkey may approve.
            let fresh = try await ceremonies.signIn("ada", credential: ada.credential, signCount: 1)
            let session = try #require(fresh.result.json["session"] as? String)
            #expect(try await device.lookup(userCode, session: session).json["approval"] as? String == "approvable")
            #expect(try await device.decide(userCode, approve: true, session: session).status == 200)
            #expect(try await device.decide(userCode, approve: true, session: session).status == 404)
        }
    }

    @Test func theClientsPolicyIsEnforcedAtTheDecisionAndAtTheTokenEndpoint() async throws {
        try await withServer { server, ceremonies, _ in
            let device = try await TestDevice.register(server) { $0.allowedGroups = ["Staff"] }
            let asked = try await device.ask()
            let userCode = try #require(asked.json["user_code"] as? String)
            let deviceCode = try #require(asked.json["device_code"] as? String)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let found = try await device.lookup(userCode, session: ada.session)
            #expect(found.json["approval"] as? String == "refused")
            #expect((found.json["refusal"] as? [String: Any])?["error"] as? String == "access_denied")
            #expect(try await device.decide(userCode, approve: true, session: ada.session).status == 403)

            let handle = try #require(Base64URL.decode(ada.userID))
            _ = try await server.app.store.addToGroup(userHandle: handle, name: "Staff", nameKey: "staff", event: nil)
            #expect(try await device.decide(userCode, approve: true, session: ada.session).status == 200)
            // Taken out of the group before the device redeems: refused at the token endpoint.
            _ = try await server.app.store.removeFromGroup(userHandle: handle, nameKey: "staff", event: nil)
            server.clock.advance(10)
            #expect(try await device.poll(deviceCode).json["error"] as? String == "invalid_grant")
        }
    }

    @Test func onlyDeviceFlowClientsAskAndOnlyTheirOwnCodesArePolled() async throws {
        try await withServer { server, _, _ in
            let wiki = try await TestRelyingParty.register(server)
            let basic = "Basic " + Data("wiki:\(try #require(wiki.secret))".utf8).base64EncodedString()
            let refused = try await wiki.raw("POST", "/oauth/device", headers: ["Authorization": basic], body: TestRelyingParty.form([("scope", "openid")]))
            #expect(refused.json["error"] as? String == "unauthorized_client")
            let device = try await TestDevice.register(server)
            #expect(try await device.ask(scope: "profile").json["error"] as? String == "invalid_scope")
            #expect(try await device.ask(scope: "openid admin").json["error"] as? String == "invalid_scope")
            let other = try await TestDevice.register(server, id: "console")
            let asked = try await device.ask()
            let deviceCode = try #require(asked.json["device_code"] as? String)
            #expect(try await other.poll(deviceCode).json["error"] as? String == "invalid_grant")
            #expect(try await device.poll("not-a-code").json["error"] as? String == "invalid_grant")
            #expect(try await device.rp.token([("grant_type", "urn:ietf:params:oauth:grant-type:device_code")]).json["error"] as? String == "invalid_request")
        }
    }

    @Test func wrongUserCodesAreLimitedBeforeTheRightOneIsLookedUp() async throws {
        try await withServer { server, _, _ in
            server.clock.freeze()
            let device = try await TestDevice.register(server)
            let userCode = try #require(try await device.ask().json["user_code"] as? String)
            for wrong in ["BBBB-BBBB", "AAAA-AAAA", "", "BCDF", "BCDF-GHJK-LMNP"] where wrong != userCode {
                let answer = try await device.lookup(wrong, session: nil)
                #expect(answer.status == 404)
                #expect(answer.json["error"] as? String == "unknown_user_code")
            }
            // Out of guesses: the right code is refused too, so a guesser learns nothing.
            let limited = try await device.lookup(userCode, session: nil)
            #expect(limited.status == 429)
            // Until the minute's window has passed (counted in the database, so on every instance).
            let retryAfter = try #require(limited.header("Retry-After").flatMap(Int.init))
            #expect((1...60).contains(retryAfter))
            server.clock.advance(Double(retryAfter))
            #expect(try await device.lookup(userCode, session: nil).status == 200)
        }
    }

    // MARK: The parts

    @Test func userCodesAreEightLettersOfTheAlphabetAndReadBackFromWhatPeopleType() {
        let alphabet = Set("BCDFGHJKLMNPQRSTVWXZ".utf8)
        var seen = Set<UInt8>()
        for _ in 0..<200 {
            let code = OpenIDProvider.newUserCode()
            #expect(code.letters.count == 8)
            #expect(code.letters.allSatisfy(alphabet.contains))
            seen.formUnion(code.letters)
            #expect(DeviceUserCode(typed: code.display) == code)
        }
        #expect(seen == alphabet)
        #expect(DeviceUserCode(typed: "bcdf ghjk")?.display == "BCDF-GHJK")
        #expect(DeviceUserCode(typed: "-B-C-D-F-G-H-J-K-")?.display == "BCDF-GHJK")
        for refused in ["BCDF-GHJ0", "BCDA-GHJK", "BCDF-GHJ", "BCDF-GHJKL", "ＢCDF-GHJK", "BCDF_GHJK", "BCDF\tGHJK", "", String(repeating: "-", count: 40) + "BCDFGHJK"] {
            #expect(DeviceUserCode(typed: refused) == nil, "\(refused)")
        }
        let code = DeviceUserCode(typed: "BCDFGHJK")!
        #expect(OpenIDProvider.userCodeHash(code) != Digest.sha256.hash(code.letters))
    }

    @Test func theTerminalQRCodeDrawsEveryModule() throws {
        let code = try QRCode("https://id.example/device?user_code=BCDF-GHJK")
        let lines = code.text(quietZone: 2).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let side = code.width + 4
        #expect(lines.count == (side + 1) / 2)
        for (row, line) in lines.enumerated() {
            let cells = Array(line.unicodeScalars)
            #expect(cells.count == side)
            for (column, cell) in cells.enumerated() {
                let (x, y) = (column - 2, row * 2 - 2)
                let top = !code.isDark(x: x, y: y)
                let bottom = y + 1 < code.width + 2 ? !code.isDark(x: x, y: y + 1) : false
                let expected: Unicode.Scalar = top ? (bottom ? "\u{2588}" : "\u{2580}") : (bottom ? "\u{2584}" : " ")
                #expect(cell == expected, "row \(row) column \(column)")
            }
        }
    }
}
