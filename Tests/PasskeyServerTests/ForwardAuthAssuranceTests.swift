import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyCore
import PasskeyHTTPParsing
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import PasskeyTestSupport
import Testing

/// Forward authentication's assurance per route (docs/contracts/identity.md): a rule's `max_age`
/// asks for a recent user-verified passkey ceremony in the session, its `acr` for a passkey of
/// that class; a 200 says what the session has in `Remote-Acr`, `Remote-Amr` and
/// `Remote-Auth-Time`; `GET /auth/requirements` tells the sign-in page which step-up a return
/// address needs.
@Suite struct ForwardAuthAssuranceTests {
    static let rules = [
        "app.example.com=", "app.example.com/admin= max_age=60", "app.example.com/vault= acr=phrh",
        "app.example.com/ops=staff max_age=600 acr=phr",
    ]

    static func configure(_ config: inout ServerConfiguration) {
        config.trustedProxies = ForwardAuthTests.loopback
        config.forwardAuthRules = rules.map { try! ForwardAuthRule($0) }
    }

    static func requirements(_ client: Client, _ rd: String, session: String?) async throws -> HTTPResult {
        try await client.get("/auth/requirements?rd=" + FormURLEncoded.encode(rd), bearer: session)
    }

    @Test func rulesReadTheirAssuranceAfterTheGroups() throws {
        let rule = try ForwardAuthRule("app.example.com/admin=admins, Staff team max_age=300 acr=phrh")
        #expect(rule.groups == ["admins", "Staff team"])
        #expect(rule.maxAge == 300 && rule.acr == "phrh")
        #expect(rule.description == "app.example.com/admin=admins, Staff team max_age=300 acr=phrh")
        // A group's name holds no "=": the options are told from the groups by it.
        #expect(throws: ForwardAuthRule.Failure.self) { try ForwardAuthRule("in=a, b x=c, d") }
        #expect(throws: ForwardAuthRule.Failure.self) { try ForwardAuthRule("in=adm,in=a") }
        let anyone = try ForwardAuthRule("app.example.com= acr=phr")
        #expect(anyone.groups.isEmpty && anyone.acr == "phr" && anyone.maxAge == nil)
        #expect(try ForwardAuthRule("app.example.com=").groups.isEmpty)
        #expect(try ForwardAuthRule("app.example.com=staff").maxAge == nil)
        for bad in [
            "a.example= max_age=9", "a.example= max_age=x", "a.example= max_age=-60", "a.example= max_age=+60", "a.example= max_age=",
            "a.example= acr=gold", "a.example= acr=", "a.example= max_age=60 max_age=70", "a.example= acr=phr acr=phrh",
            "a.example= ttl=60", "a.example=staff,", "a.example=staff max_age=99999999999",
        ] {
            #expect(throws: ForwardAuthRule.Failure.self, "\(bad)") { try ForwardAuthRule(bad) }
        }
    }

    /// A rule is read scalar by scalar: U+0600, a mark that joins the character after it
    /// into one grapheme cluster, before the blank ahead of `max_age=` must not hide the option
    /// when the rule is written back with a space (the fuzz target's find).
    @Test func aRuleReadsBackTheSameWhateverTheClustersAroundItsSeparators() throws {
        let rule = try ForwardAuthRule("app.example.com=staff\u{600}\tmax_age=60")
        #expect(rule.groups == ["staff\u{600}"] && rule.maxAge == 60)
        #expect(try ForwardAuthRule(rule.description) == rule)
        let two = try ForwardAuthRule("app.example.com=a\u{600},b acr=phr")
        #expect(two.groups == ["a\u{600}", "b"] && two.acr == "phr")
        #expect(try ForwardAuthRule(two.description) == two)
        // An "=" with a combining mark on it is still an "=".
        #expect(throws: ForwardAuthRule.Failure.self) { try ForwardAuthRule("app.example.com=a=\u{301}b") }
    }

    /// `max_age=60`: a session whose last passkey ceremony is exactly 60 s old passes; one
    /// second later it is sent to step up (401, or to the sign-in page), and the step-up
    /// lets it through again.
    @Test func maxAgeHoldsToTheSecondAndAStepUpMeetsIt() async throws {
        try await withServer(Self.configure) { (server: TestServer, ceremonies: Ceremonies, client: Client) async throws in
            server.clock.freeze()
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let opened = Int64(server.clock.now().timeIntervalSince1970)
            let root = try await ForwardAuthTests.ask(server, url: "https://app.example.com/", session: ada.session)
            #expect(root.status == 200)
            #expect(root.header("Remote-Acr") == "phr")
            #expect(root.header("Remote-Amr") == "hwk user mfa")
            #expect(root.header("Remote-Auth-Time") == String(opened))

            server.clock.advance(60)
            #expect(try await ForwardAuthTests.ask(server, url: "https://app.example.com/admin/x", session: ada.session).status == 200)
            server.clock.advance(1)
            #expect(try await ForwardAuthTests.ask(server, url: "https://app.example.com/admin/x", session: ada.session).status == 401)
            let caddy = try await ForwardAuthTests.ask(server, "/auth/forward", forwarded: ("https", "app.example.com", "/admin/x"), session: ada.session)
            #expect(caddy.status == 302)
            #expect(caddy.header("Location") == server.origin + "/?rd=" + FormURLEncoded.encode("https://app.example.com/admin/x"))
            // The rest of the host takes the session as it is.
            #expect(try await ForwardAuthTests.ask(server, url: "https://app.example.com/wiki", session: ada.session).status == 200)

            let before = try await Self.requirements(client, "https://app.example.com/admin/x", session: ada.session)
            #expect(before.status == 200)
            #expect(before.json["max_age"] as? Int == 60)
            #expect(before.json["acr"] is NSNull)
            #expect(before.json["satisfied"] as? Bool == false)

            let (_, finalize) = try await StepUpTests.reauthenticate(server, ada.session, credential: ada.credential, signCount: 1)
            #expect(finalize.status == 200)
            let admin = try await ForwardAuthTests.ask(server, url: "https://app.example.com/admin/x", session: ada.session)
            #expect(admin.status == 200)
            #expect(admin.header("Remote-Auth-Time") == String(opened + 61))
            #expect(try await Self.requirements(client, "https://app.example.com/admin/x", session: ada.session).json["satisfied"] as? Bool == true)
            // A step-up without user verification renews nothing max_age counts.
            server.clock.advance(61)
            let unverified = try await StepUpTests.reauthenticate(
                server, ada.session, credential: ada.credential, signCount: 2, flags: AuthDataBuilder.up)
            #expect(unverified.finalize.status != 200)
            #expect(try await ForwardAuthTests.ask(server, url: "https://app.example.com/admin/x", session: ada.session).status == 401)
        }
    }

    /// `acr=phrh` for an account with no device-bound passkey of a trusted attestation: no
    /// step-up can meet it, so 403 (not a round trip to the sign-in page).
    @Test func anAccountThatCannotMeetTheClassGets403() async throws {
        try await withServer(Self.configure) { (server: TestServer, ceremonies: Ceremonies, client: Client) async throws in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            #expect(try await ForwardAuthTests.ask(server, url: "https://app.example.com/vault", session: ada.session).status == 403)
            let caddy = try await ForwardAuthTests.ask(server, "/auth/forward", forwarded: ("https", "app.example.com", "/vault"), session: ada.session)
            #expect(caddy.status == 403)
            let needs = try await Self.requirements(client, "https://app.example.com/vault", session: ada.session)
            #expect(needs.json["acr"] as? String == "phrh" && needs.json["satisfied"] as? Bool == false)
            // A step-up asking that class has no passkey to offer.
            let initialize = try await client.post("/authentication_initialize", json: ["reauthenticate": true, "acr": "phrh"], bearer: ada.session)
            #expect(initialize.status == 400)
            #expect(try await client.post("/authentication_initialize", json: ["reauthenticate": true, "acr": "gold"], bearer: ada.session).status == 400)
            // acr belongs to a step-up only.
            #expect(try await client.post("/authentication_initialize", json: ["acr": "phr"]).status == 400)
            #expect(try await client.post("/registration_initialize", json: ["user_name": "eve", "acr": "phr"]).status == 400)
            // The groups and the assurance together: not in staff is 403 whatever the session.
            #expect(try await ForwardAuthTests.ask(server, url: "https://app.example.com/ops", session: ada.session).status == 403)
        }
    }

    /// A step-up with a device-bound passkey of a trusted attestation raises the session to
    /// `phrh`; a later step-up with a lesser passkey does not lower it.
    @Test func aStepUpWithAHardwarePasskeyRaisesTheSessionsClass() async throws {
        let expected = try MDSFixtures.expected()
        try await withServer({ config in
            Self.configure(&config)
            TrustTests.withMetadata()(&config)
            config.attestationConveyance = .direct
        }) { (server: TestServer, ceremonies: Ceremonies, client: Client) async throws in
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            let (added, hardware, _) = try await ceremonies.register(
                "ada", session: ada.session, adjust: TrustTests.packed(try MDSFixtures.goodSigner(), aaguid: try expected.aaguid("good")))
            #expect(added.status == 200, "\(String(decoding: added.body, as: UTF8.self))")
            // The session was opened by the other passkey: a step-up can meet the rule, so 401.
            #expect(try await ForwardAuthTests.ask(server, url: "https://app.example.com/vault", session: ada.session).status == 401)

            let initialize = try await client.post("/authentication_initialize", json: ["reauthenticate": true, "acr": "phrh"], bearer: ada.session)
            let options = try #require(initialize.json["publicKey"] as? [String: Any])
            #expect((options["allowCredentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [Base64URL.encode(hardware.id)])
            let challenge = try #require(Base64URL.decode(options["challenge"] as? String ?? ""))
            let assertion = AssertionBuilder(
                credential: hardware, rpID: "localhost", origin: server.origin, challenge: challenge, signCount: 1,
                flags: AuthDataBuilder.up | AuthDataBuilder.uv)
            #expect(try await client.post("/authentication_finalize", bytes: try assertion.json()).status == 200)

            let vault = try await ForwardAuthTests.ask(server, url: "https://app.example.com/vault", session: ada.session)
            #expect(vault.status == 200)
            #expect(vault.header("Remote-Acr") == "phrh")
            #expect(vault.header("Remote-Amr") == "hwk user mfa")
            #expect(try await Self.requirements(client, "https://app.example.com/vault", session: ada.session).json["satisfied"] as? Bool == true)

            let (_, again) = try await StepUpTests.reauthenticate(server, ada.session, credential: ada.credential, signCount: 5)
            #expect(again.status == 200)
            #expect(try await ForwardAuthTests.ask(server, url: "https://app.example.com/vault", session: ada.session).header("Remote-Acr") == "phrh")
        }
    }

    /// `/auth/requirements` without a session, for an address no rule names, and for a
    /// recovery session: never satisfied without a full session; no rule asks nothing.
    @Test func requirementsAnswerForAnyAddressAndSession() async throws {
        try await withServer(Self.configure) { (server: TestServer, ceremonies: Ceremonies, client: Client) async throws in
            let signedOut = try await Self.requirements(client, "https://app.example.com/admin", session: nil)
            #expect(signedOut.status == 200)
            #expect(signedOut.json["max_age"] as? Int == 60 && signedOut.json["satisfied"] as? Bool == false)
            let ada = try await TestRelyingParty.signedIn(ceremonies)
            for rd in ["https://elsewhere.example/", "not a url", "javascript:alert(1)"] {
                let answer = try await Self.requirements(client, rd, session: ada.session)
                #expect(answer.status == 200, "\(rd)")
                #expect(answer.json["acr"] is NSNull && answer.json["max_age"] is NSNull, "\(rd)")
            }
            #expect(try await client.get("/auth/requirements", bearer: ada.session).json["satisfied"] as? Bool == true)
        }
    }
}
