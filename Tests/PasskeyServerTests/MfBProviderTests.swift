import Foundation
@testable import PasskeyAccounts
import PasskeyApp
import PasskeyCrypto
import PasskeyHTTPParsing
import PasskeyJSON
import PasskeyServerTestSupport
import PasskeyStorage
import Testing

/// Seed 000/001 row 15: the OAuth provider of Messages for Business is the server's OpenID
/// provider. Its client is one registered client, made from the `--mfb-*` flags at start-up;
/// the device's requests go through the provider's own authorization and token endpoints,
/// which waive PKCE and the nonce for that client alone (Apple's devices send neither) and run
/// the key audit instead.
@Suite struct MfBProviderTests {
    typealias Business = MfBTests.Business

    static func member(_ value: JSONValue, _ name: String) -> JSONValue? {
        guard case .object(let members) = value else { return nil }
        return members[name]
    }

    @Test func theMfBClientIsOneRegisteredClient() async throws {
        try await MfBTests.withBusiness { business in
            let store = business.server.app.store
            let found = try await store.client(id: MfBTests.clientID)
            let client = try #require(found)
            #expect(client.messagesForBusiness && !client.isPublic)
            #expect(ClientRegistry.secretMatches(MfBTests.clientSecret, client: client))
            #expect(client.redirectURIs == [MfBTests.redirectURI])
            #expect(!client.scopes.contains("offline_access"))
            let listed = ClientRegistry.json(client, secret: nil)
            #expect(Self.member(listed, "messages_for_business") == .bool(true) && Self.member(listed, "refresh") == .bool(false))
            // Its secret is the flag's: rotating it here would only break the messages.
            await #expect(throws: ClientRegistry.Failure.self) {
                _ = try await ClientRegistry(store: store).rotateSecret(MfBTests.clientID)
            }
        }
    }

    /// The whole legacy journey on the provider's own paths, asking for `openid` too: the
    /// device's code and access token come from `/oauth/authorize` and `/oauth/token`, the
    /// token answers the request, and the business's ID token is the provider's.
    @Test func theProvidersOwnEndpointsServeTheDevice() async throws {
        try await MfBTests.withBusiness({ $0.mfbMessage = "legacy" }) { business in
            let (registered, _, _) = try await business.ceremonies.register("lena")
            let session = try #require(registered.json["session"] as? String)
            let (id, key, _) = try await business.request()
            let parameters = [
                ("response_type", "code"), ("client_id", MfBTests.clientID), ("redirect_uri", MfBTests.redirectURI),
                ("scope", "openid profile"), ("state", "s-1"), ("responseEncryptionKey", key), ("userHandle", "device-1"),
            ]
            let rp = TestRelyingParty(server: business.server, clientID: MfBTests.clientID, secret: MfBTests.clientSecret)
            let authorized = try await rp.authorize(parameters, session: session)
            #expect(authorized.status == 302, "\(String(decoding: authorized.body, as: UTF8.self))")
            let answer = TestRelyingParty.answer(authorized)
            #expect(answer["state"] == "s-1" && answer["iss"] != nil)
            let code = try #require(answer["code"])
            let tokens = try await rp.token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", MfBTests.redirectURI)])
            #expect(tokens.status == 200, "\(String(decoding: tokens.body, as: UTF8.self))")
            // No refresh token: the legacy message gives the secret to every customer's device.
            #expect(tokens.json["refresh_token"] == nil)
            let accessToken = try #require(tokens.json["access_token"] as? String)
            let idToken = try #require(tokens.json["id_token"] as? String)
            let claims = try await rp.verified(idToken, typ: "JWT")
            #expect(claims["aud"] == .string(MfBTests.clientID) && claims["nonce"] == nil)
            #expect(try await rp.verified(accessToken, typ: "at+jwt")["client_id"] == .string(MfBTests.clientID))
            let answered = try await business.respond(id: id, key: key, plaintext: accessToken)
            #expect(answered.status == 200 && answered.json["user_name"] as? String == "lena", "\(String(decoding: answered.body, as: UTF8.self))")
            // The business learns the account's subject, the one the provider's ID token names.
            let sub = try #require(claims["sub"])
            #expect(answered.json["sub"] as? String == sub.stringValue)
            #expect(try await business.call("GET", "/mfb/requests/\(id)").json["sub"] as? String == sub.stringValue)
        }
    }

    /// An access token of the Messages for Business client answers only the request its code
    /// was issued for, and a token of any other client answers none.
    @Test func onlyTheRequestsOwnTokenAnswersIt() async throws {
        try await MfBTests.withBusiness({ $0.mfbMessage = "legacy" }) { business in
            let (registered, _, _) = try await business.ceremonies.register("ivo")
            let session = try #require(registered.json["session"] as? String)
            let first = try await business.request(state: "a")
            let second = try await business.request(state: "b")
            let authorized = try await business.authorize(key: first.key, session: session, state: "a")
            let code = try #require(Business.code(authorized))
            let exchanged = try await business.token(code: code)
            let accessToken = try #require(exchanged.json["access_token"] as? String)
            #expect(try await business.respond(id: second.id, key: second.key, plaintext: accessToken).json["error"] as? String == "mfb_token_unknown")
            // Another client's access token for the same user: issued here, but not for this request.
            let wiki = try await TestRelyingParty.register(business.server)
            let wikiTokens = try await wiki.tokens(for: session)
            let other = try #require(wikiTokens.json["access_token"] as? String)
            #expect(try await business.respond(id: first.id, key: first.key, plaintext: other).json["error"] as? String == "mfb_token_unknown")
            #expect(try await business.respond(id: first.id, key: first.key, plaintext: accessToken).json["status"] as? String == "authenticated")
        }
    }

    /// What the Messages for Business client is spared, every other client still owes: PKCE,
    /// the nonce, `openid`, and its parameters in the body. And a code issued without a
    /// challenge takes no verifier.
    @Test func thePKCEAndNonceWaiverIsTheMfBClientsAlone() async throws {
        try await MfBTests.withBusiness { business in
            let (registered, _, _) = try await business.ceremonies.register("tova")
            let session = try #require(registered.json["session"] as? String)
            let (_, key, _) = try await business.request()
            // An ordinary client with the same redirect URI, asking as the device asks.
            let ordinary = try await TestRelyingParty.register(business.server, id: "ordinary") { $0.redirectURIs = [MfBTests.redirectURI] }
            let asked = try await business.authorize(key: key, session: session, clientID: "ordinary")
            #expect(asked.status == 302 && TestRelyingParty.answer(asked)["error"] == "invalid_scope")
            let withOpenID = [
                ("response_type", "code"), ("client_id", "ordinary"), ("redirect_uri", MfBTests.redirectURI), ("scope", "openid"),
                ("state", "s"), ("responseEncryptionKey", key), ("userHandle", "u"),
            ]
            let noPKCE = try await ordinary.authorize(withOpenID + [("nonce", "n")], session: session)
            #expect(TestRelyingParty.answer(noPKCE)["error"] == "invalid_request")
            #expect(TestRelyingParty.answer(noPKCE)["error_description"]?.contains("code_challenge") == true)
            let noNonce = try await ordinary.authorize(withOpenID + [("code_challenge", ordinary.challenge), ("code_challenge_method", "S256")], session: session)
            #expect(TestRelyingParty.answer(noNonce)["error_description"]?.contains("nonce") == true)
            // Its token request's parameters are the body's: the URI's are not read for it.
            let ordinaryAuthorized = try await ordinary.authorize(ordinary.authorizationParameters([("redirect_uri", MfBTests.redirectURI)]), session: session)
            let code = try #require(TestRelyingParty.answer(ordinaryAuthorized)["code"])
            let basic = "Basic " + Data("ordinary:\(ordinary.secret ?? "")".utf8).base64EncodedString()
            let query = TestRelyingParty.form([
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", MfBTests.redirectURI), ("code_verifier", ordinary.verifier),
            ])
            let inURI = try await ordinary.raw("POST", "/oauth/token?" + query, headers: ["Authorization": basic], body: "")
            #expect(inURI.status == 400 && inURI.json["error"] as? String == "invalid_request", "\(String(decoding: inURI.body, as: UTF8.self))")
            // A URI query that is not percent-encoded UTF-8 is the client's mistake, and spends nothing.
            let unreadable = try await ordinary.raw("POST", "/oauth/token?code=%zz", headers: ["Authorization": basic], body: String(query))
            #expect(unreadable.status == 400 && unreadable.json["error"] as? String == "invalid_request")
            let redeemed = try await ordinary.raw("POST", "/oauth/token", headers: ["Authorization": basic], body: query)
            #expect(redeemed.status == 200, "\(String(decoding: redeemed.body, as: UTF8.self))")
            // The device's code, issued without a challenge, refuses a verifier.
            let deviceAuthorized = try await business.authorize(key: key, session: session)
            let deviceCode = try #require(Business.code(deviceAuthorized))
            let withVerifier = try await business.token(code: deviceCode, extra: "&code_verifier=\(ordinary.verifier)")
            #expect(withVerifier.status == 400 && withVerifier.json["error"] as? String == "invalid_grant")
        }
    }

    /// Start-up registers the client as the flags say: it replaces what changed, keeps its
    /// creation time, leaves an unchanged client alone, and never takes over a client an
    /// operator registered under that id.
    @Test func startUpRegistersTheClientAndNeverTakesOneOver() async throws {
        try await MfBTests.withBusiness { business in
            let store = business.server.app.store
            let registry = ClientRegistry(store: store)
            let registered = try await store.client(id: MfBTests.clientID)
            let before = try #require(registered)
            let other = "https://auth.example.com/other"
            let changed = try await registry.registerMessagesForBusiness(
                id: MfBTests.clientID, secret: "another-secret", redirectURIs: [other], scopes: MfBSignIn.clientScopes, now: business.server.clock.now() + 60)
            #expect(changed.createdAt == before.createdAt && changed.redirectURIs == [other])
            #expect(try await store.client(id: MfBTests.clientID) == changed)
            #expect(ClientRegistry.secretMatches("another-secret", client: changed))
            let events = try await store.events(userHandle: nil, since: nil, after: nil, limit: 100)
            #expect(events.filter { $0.type == "client_updated" }.count == 1)
            _ = try await registry.registerMessagesForBusiness(
                id: MfBTests.clientID, secret: "another-secret", redirectURIs: [other], scopes: MfBSignIn.clientScopes, now: business.server.clock.now())
            #expect(try await store.events(userHandle: nil, since: nil, after: nil, limit: 100).filter { $0.type == "client_updated" }.count == 1)
            // The server's own start-up puts the flags' values back.
            let mfb = try #require(business.server.app.mfb)
            try await mfb.registerClient()
            #expect(try await store.client(id: MfBTests.clientID)?.redirectURIs == [MfBTests.redirectURI])

            _ = try await TestRelyingParty.register(business.server, id: "wiki")
            await #expect(throws: ClientRegistry.Failure.self) {
                _ = try await registry.registerMessagesForBusiness(
                    id: "wiki", secret: "s", redirectURIs: [other], scopes: MfBSignIn.clientScopes, now: business.server.clock.now())
            }
            #expect(try await store.client(id: "wiki")?.messagesForBusiness == false)
            // A redirect URI any client would be refused is refused here too.
            await #expect(throws: ClientRegistry.Failure.self) {
                _ = try await registry.registerMessagesForBusiness(
                    id: MfBTests.clientID, secret: "s", redirectURIs: ["http://business.example/cb"], scopes: MfBSignIn.clientScopes,
                    now: business.server.clock.now())
            }
        }
    }

    /// A Messages for Business client left in the registry after MfB was turned off gets no
    /// code and no waiver: without the key audit there is nothing to bind a code to.
    @Test func theClientIsRefusedWhenMessagesForBusinessIsOff() async throws {
        try await withServer { server, ceremonies, _ in
            _ = try await ClientRegistry(store: server.app.store).registerMessagesForBusiness(
                id: "left-over", secret: "s", redirectURIs: [MfBTests.redirectURI], scopes: MfBSignIn.clientScopes, now: server.clock.now())
            let (session, _, _) = try await TestRelyingParty.signedIn(ceremonies)
            let rp = TestRelyingParty(server: server, clientID: "left-over", secret: "s")
            let refused = try await rp.authorize([
                ("response_type", "code"), ("client_id", "left-over"), ("redirect_uri", MfBTests.redirectURI), ("scope", "profile"),
                ("state", "s"), ("responseEncryptionKey", "AAAA"), ("userHandle", "u"),
            ], session: session)
            #expect(refused.status == 400 && refused.json["error"] as? String == "invalid_request" && refused.header("Location") == nil)
            #expect((refused.json["message"] as? String)?.isEmpty == false)
        }
    }
}
