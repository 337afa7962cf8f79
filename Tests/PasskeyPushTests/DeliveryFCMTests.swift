import Foundation
import Hummingbird
import PasskeyCrypto
import PasskeyPush
import PasskeyOutbound
import Testing

/// A local stand-in of Google's OAuth token endpoint and FCM's HTTP v1 send endpoint. The
/// token endpoint checks the JWT bearer grant as Google does (RS256 with the service account's
/// public key; `iss`, `scope`, `aud`, an hour's lifetime) and mints `access-N`; the send
/// endpoint wants the latest access token and answers what the test scripted, 200 otherwise.
final class FCMStandIn: Sendable {
    struct Mint: Sendable {
        let assertionValid: Bool
        let kid: String?
        let iat: Int?
    }

    struct Send: Sendable {
        let project: String
        let accessToken: String
        let message: [String: String]
        let data: [String: String]
        let android: [String: String]
        let apnsAlert: [String: String]
    }

    struct State: Sendable {
        var mints: [Mint] = []
        var sends: [Send] = []
        var validTokens: Set<String> = []
        var tokenAnswers: [(status: HTTPResponse.Status, body: String)] = []
        var sendAnswers: [(status: HTTPResponse.Status, body: String)] = []
        var expiresIn = 3600
        /// How long the token endpoint takes to answer.
        var tokenDelay: Duration = .zero
    }

    static let project = "passkey-demo-1"

    let server: StandInServer
    let state: Recorder<State>
    let account: FCMPushProvider.ServiceAccount

    private init(server: StandInServer, state: Recorder<State>, account: FCMPushProvider.ServiceAccount) {
        self.server = server
        self.state = state
        self.account = account
    }

    static func serviceAccountJSON(pem: String, tokenURI: String, keyID: String? = "f00dfeed") throws -> [UInt8] {
        var object: [String: Any] = [
            "type": "service_account", "project_id": project, "private_key": pem,
            "client_email": "push-sender@\(project).iam.gserviceaccount.com", "client_id": "1234567890",
            "token_uri": tokenURI, "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        ]
        if let keyID { object["private_key_id"] = keyID }
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    static func start() async throws -> FCMStandIn {
        let pem = try OpenSSLFixtures.rsaPrivateKeyPEM()
        let publicKey = try PrivateKey(pem: pem).publicKey
        let state = Recorder(State())
        let router = Router(context: StandInContext.self)
        // The token URI is only known once the server listens; the route reads it from here.
        let tokenURI = Recorder("")
        router.post("/token") { request, _ -> Response in
            let form = try await StandInHTTP.form(request)
            let jwt = DecodedJWT(form["assertion"] ?? "")
            let iat = jwt?.integerClaim("iat")
            let valid = form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
                && jwt.map {
                    $0.isValidRS256(publicKey) && $0.claims["iss"] as? String == "push-sender@\(project).iam.gserviceaccount.com"
                        && $0.claims["scope"] as? String == "https://www.googleapis.com/auth/firebase.messaging"
                        && $0.claims["aud"] as? String == tokenURI.read { $0 } && iat != nil && $0.integerClaim("exp") == iat.map { $0 + 3600 }
                } ?? false
            let (delay, scripted, expiresIn, token) = state.update { s in
                s.mints.append(Mint(assertionValid: valid, kid: jwt?.header["kid"] as? String, iat: iat))
                let token = "access-\(s.mints.count)"
                if valid { s.validTokens = [token] }
                return (s.tokenDelay, s.tokenAnswers.isEmpty ? nil : s.tokenAnswers.removeFirst(), s.expiresIn, token)
            }
            try await Task.sleep(for: delay)
            if let scripted { return StandInHTTP.json(scripted.body, status: scripted.status) }
            guard valid else {
                return StandInHTTP.json(#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#, status: .badRequest)
            }
            return StandInHTTP.json(#"{"access_token":"\#(token)","expires_in":\#(expiresIn),"token_type":"Bearer"}"#)
        }
        router.post("/v1/projects/:project/:method") { request, context -> Response in
            guard context.parameters.get("method") == "messages:send" else { return Response(status: .notFound) }
            let bearer = request.headers[.authorization] ?? ""
            let accessToken = bearer.hasPrefix("Bearer ") ? String(bearer.dropFirst(7)) : ""
            let object = try await StandInHTTP.jsonObject(request) ?? [:]
            let message = object["message"] as? [String: Any] ?? [:]
            let alert = ((((message["apns"] as? [String: Any])?["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"])
            let send = Send(
                project: context.parameters.get("project") ?? "", accessToken: accessToken,
                message: message.compactMapValues { $0 as? String }, data: message["data"] as? [String: String] ?? [:],
                android: message["android"] as? [String: String] ?? [:], apnsAlert: alert as? [String: String] ?? [:])
            let (authorized, scripted) = state.update { s in
                s.sends.append(send)
                return (s.validTokens.contains(accessToken), s.sendAnswers.isEmpty ? nil : s.sendAnswers.removeFirst())
            }
            if let scripted { return StandInHTTP.json(scripted.body, status: scripted.status) }
            guard authorized else {
                return StandInHTTP.json(#"{"error":{"code":401,"status":"UNAUTHENTICATED"}}"#, status: .unauthorized)
            }
            return StandInHTTP.json(#"{"name":"projects/\#(project)/messages/0:1700000000000000%31337"}"#)
        }
        let server = try await StandInServer.start(router: router)
        tokenURI.update { $0 = server.base + "/token" }
        let account = try FCMPushProvider.ServiceAccount(json: try serviceAccountJSON(pem: pem, tokenURI: server.base + "/token"))
        return FCMStandIn(server: server, state: state, account: account)
    }

    /// A generous deadline: the tests check what is sent, not how fast a loaded machine is.
    func provider(clock: TestClock) throws -> FCMPushProvider {
        try FCMPushProvider(serviceAccount: account, baseURL: server.base, timeout: 60, now: { clock.now() })
    }

    var mints: [Mint] { state.read { $0.mints } }
    var sends: [Send] { state.read { $0.sends } }

    static func with<T>(_ body: (FCMStandIn) async throws -> T) async throws -> T {
        let standIn = try await start()
        return try await standIn.server.serving { try await body(standIn) }
    }
}

@Suite struct DeliveryFCMTests {
    @Test func deliversTheMessageWithAMintedAccessToken() async throws {
        try await FCMStandIn.with { fcm in
            let provider = try fcm.provider(clock: TestClock())
            #expect(provider.name == "fcm")
            #expect(await provider.send(samplePush) == .delivered)
            let mint = try #require(fcm.mints.first)
            #expect(mint.assertionValid)
            #expect(mint.kid == "f00dfeed")
            #expect(mint.iat == 1_800_000_000)
            let send = try #require(fcm.sends.first)
            #expect(send.project == FCMStandIn.project)
            #expect(send.accessToken == "access-1")
            #expect(send.message["token"] == samplePush.deviceToken)
            #expect(send.data == samplePush.data)
            #expect(send.android == ["priority": "high"])
            #expect(send.apnsAlert == ["title": samplePush.alertTitle, "body": samplePush.alertBody])
        }
    }

    @Test func theAccessTokenIsReusedUntilAMinuteBeforeItExpires() async throws {
        try await FCMStandIn.with { fcm in
            let clock = TestClock()
            let provider = try fcm.provider(clock: clock)
            #expect(await provider.send(samplePush) == .delivered)
            clock.advance(3600 - 61)
            #expect(await provider.send(samplePush) == .delivered)
            #expect(fcm.mints.count == 1)
            clock.advance(1)  // 59:00: inside the last minute
            #expect(await provider.send(samplePush) == .delivered)
            #expect(fcm.mints.count == 2)
            #expect(fcm.sends.map(\.accessToken) == ["access-1", "access-1", "access-2"])
        }
    }

    @Test func concurrentSendsWaitForOneMint() async throws {
        try await FCMStandIn.with { fcm in
            fcm.state.update { $0.tokenDelay = .milliseconds(300) }
            let provider = try fcm.provider(clock: TestClock())
            async let first = provider.send(samplePush)
            async let second = provider.send(samplePush)
            async let third = provider.send(samplePush)
            #expect(await [first, second, third] == [.delivered, .delivered, .delivered])
            #expect(fcm.mints.count == 1)
            #expect(Set(fcm.sends.map(\.accessToken)) == ["access-1"])
        }
    }

    @Test func unregisteredDevicesAreGone() async throws {
        try await FCMStandIn.with { fcm in
            let provider = try fcm.provider(clock: TestClock())
            let unregistered = #"""
                {"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND",
                "details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}
                """#
            let invalid = #"""
                {"error":{"code":400,"message":"The registration token is not a valid FCM registration token","status":"INVALID_ARGUMENT",
                "details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INVALID_ARGUMENT"}]}}
                """#
            fcm.state.update {
                $0.sendAnswers = [
                    (.notFound, unregistered), (.badRequest, unregistered.replacingOccurrences(of: "404", with: "400")),
                    (.badRequest, invalid), (.notFound, #"{"error":{"code":404,"status":"NOT_FOUND"}}"#),
                ]
            }
            #expect(await provider.send(samplePush) == .deviceGone)
            #expect(await provider.send(samplePush) == .deviceGone)
            #expect(await provider.send(samplePush) == .failed("status 400 INVALID_ARGUMENT"))
            // A 404 without UNREGISTERED (a wrong project, say) must not disable the device.
            #expect(await provider.send(samplePush) == .failed("status 404 NOT_FOUND"))
        }
    }

    @Test func aRefusedAccessTokenIsMintedAgainAndThePushTriedOnceMore() async throws {
        try await FCMStandIn.with { fcm in
            let provider = try fcm.provider(clock: TestClock())
            #expect(await provider.send(samplePush) == .delivered)
            // The endpoint forgets access-1 (revoked): the next push gets 401, mints, retries.
            fcm.state.update { $0.validTokens = [] }
            #expect(await provider.send(samplePush) == .delivered)
            #expect(fcm.mints.count == 2)
            #expect(fcm.sends.map(\.accessToken) == ["access-1", "access-1", "access-2"])

            // 401 again after the new token: failed, no third attempt.
            fcm.state.update {
                $0.sendAnswers = [
                    (.unauthorized, #"{"error":{"code":401}}"#), (.unauthorized, #"{"error":{"code":401}}"#),
                ]
            }
            #expect(await provider.send(samplePush).label == "failed")
            #expect(fcm.sends.count == 5)
            #expect(fcm.mints.count == 3)
        }
    }

    @Test func garbageAnswersAreFailuresNotCrashes() async throws {
        try await FCMStandIn.with { fcm in
            let provider = try fcm.provider(clock: TestClock())
            fcm.state.update {
                $0.tokenAnswers = [
                    (.ok, "not json"), (.ok, #"{"access_token": 42}"#), (.ok, #"{"access_token":"a b\nc","expires_in":3600}"#),
                    (.ok, #"{"access_token":"x","token_type":"mac"}"#), (.ok, #"{"access_token":"x","expires_in":"soon"}"#),
                    (.internalServerError, String(repeating: "{", count: 100_000)),
                ]
            }
            for _ in 0..<6 {
                #expect(await provider.send(samplePush).label == "failed")
            }
            #expect(fcm.sends.isEmpty, "no send without a usable access token")

            fcm.state.update {
                $0.sendAnswers = [
                    (.notFound, "<html>"), (.badRequest, #"{"error":{"details":"UNREGISTERED"}}"#),
                    (.badRequest, #"{"error":{"details":[7,"x",{"errorCode":5}]}}"#), (.ok, "garbage after a 200"),
                ]
            }
            #expect(await provider.send(samplePush) == .failed("status 404"))
            #expect(await provider.send(samplePush) == .failed("status 400"))
            #expect(await provider.send(samplePush) == .failed("status 400"))
            #expect(await provider.send(samplePush) == .delivered)
        }
    }

    @Test func theAssertionIsAnRS256JWTOfTheServiceAccount() throws {
        let pem = try OpenSSLFixtures.rsaPrivateKeyPEM()
        let account = try FCMPushProvider.ServiceAccount(
            json: try FCMStandIn.serviceAccountJSON(pem: pem, tokenURI: "https://oauth2.googleapis.com/token", keyID: nil))
        let assertion = try FCMPushProvider.assertion(serviceAccount: account, issuedAt: Date(timeIntervalSince1970: 1_800_000_000))
        let jwt = try #require(DecodedJWT(assertion))
        #expect(jwt.isValidRS256(try PrivateKey(pem: pem).publicKey))
        #expect(jwt.header["kid"] == nil)
        #expect(jwt.header["typ"] as? String == "JWT")
        #expect(jwt.claims["iss"] as? String == account.clientEmail)
        #expect(jwt.claims["scope"] as? String == FCMPushProvider.scope)
        #expect(jwt.claims["aud"] as? String == "https://oauth2.googleapis.com/token")
        #expect(jwt.integerClaim("iat") == 1_800_000_000)
        #expect(jwt.integerClaim("exp") == 1_800_003_600)
    }

    @Test func theServiceAccountFileIsParsedStrictly() throws {
        let pem = try OpenSSLFixtures.rsaPrivateKeyPEM()
        let good = try FCMStandIn.serviceAccountJSON(pem: pem, tokenURI: "https://oauth2.googleapis.com/token")
        let account = try FCMPushProvider.ServiceAccount(json: good)
        #expect(account.projectID == FCMStandIn.project)
        #expect(account.privateKeyID == "f00dfeed")
        #expect(account.privateKeyPEM == pem)
        #expect(!account.description.contains("PRIVATE KEY"))

        func edited(_ change: (inout [String: Any]) -> Void) throws -> [UInt8] {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(good)) as? [String: Any])
            change(&object)
            return Array(try JSONSerialization.data(withJSONObject: object))
        }
        let broken: [[UInt8]] = [
            Array("not json".utf8), Array("[]".utf8),
            try edited { $0["client_email"] = nil }, try edited { $0["private_key"] = 5 }, try edited { $0["token_uri"] = "" },
            try edited { $0["type"] = "authorized_user" }, try edited { $0["project_id"] = "../other/x" },
            try edited { $0["private_key_id"] = ["a"] },
        ]
        for json in broken {
            #expect(throws: PushProviderError.self) { try FCMPushProvider.ServiceAccount(json: json) }
        }
        // A key that is not RSA, or not a key: refused when the provider is made.
        let notRSA = try FCMPushProvider.ServiceAccount(json: try edited { $0["private_key"] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" })
        #expect(throws: PushProviderError.self) { try FCMPushProvider(serviceAccount: notRSA) }
    }
}
