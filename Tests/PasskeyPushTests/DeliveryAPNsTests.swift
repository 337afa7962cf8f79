import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOSSL
import PasskeyCrypto
import PasskeyPush
import PasskeyOutbound
import Testing

/// A local stand-in of APNs' provider API: HTTP/2 over TLS with a certificate for 127.0.0.1,
/// `POST /3/device/<token>`. It checks the provider token as APNs does (ES256 with the team's
/// public key, `kid`, `iss`) and answers 403 `InvalidProviderToken` when it does not verify;
/// otherwise it answers what the test scripted, 200 when nothing is scripted.
final class APNsStandIn: Sendable {
    struct Request: Sendable {
        let overHTTP2: Bool
        let path: String
        let deviceToken: String
        let headers: [String: String]
        let providerToken: String
        let providerTokenValid: Bool
        let payload: Data
    }

    struct State: Sendable {
        var requests: [Request] = []
        var answers: [(status: HTTPResponse.Status, body: String)] = []
    }

    static let keyID = "KEY1234567"
    static let teamID = "TEAM123456"
    static let topic = "com.example.passkey"

    let server: StandInServer
    let state: Recorder<State>
    /// Trusts the stand-in's certificate; HTTP/2 allowed (`.automatic`).
    let client: HTTPClient
    let key: PrivateKey
    /// Client TLS that trusts the stand-in's certificate.
    let clientTLS: TLSConfiguration

    private init(server: StandInServer, state: Recorder<State>, client: HTTPClient, key: PrivateKey, clientTLS: TLSConfiguration) {
        self.server = server
        self.state = state
        self.client = client
        self.key = key
        self.clientTLS = clientTLS
    }

    static func start() async throws -> APNsStandIn {
        let key = try PrivateKey.generateEC(.p256)
        let state = Recorder(State())
        let router = Router(context: StandInContext.self)
        // Production at the root, the sandbox under /sandbox (`sandboxURL`), one recorder.
        let handler: @Sendable (Hummingbird.Request, StandInContext) async throws -> Response = { request, context in
            let bearer = request.headers[.authorization] ?? ""
            let providerToken = bearer.hasPrefix("bearer ") ? String(bearer.dropFirst(7)) : ""
            let jwt = DecodedJWT(providerToken)
            let valid = jwt.map {
                $0.isValidES256(key.publicKey) && $0.header["kid"] as? String == keyID && $0.claims["iss"] as? String == teamID
                    && $0.integerClaim("iat") != nil
            } ?? false
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let seen = Request(
                overHTTP2: context.arrivedOverHTTP2, path: request.uri.path, deviceToken: context.parameters.get("token") ?? "",
                headers: headers, providerToken: providerToken, providerTokenValid: valid, payload: Data(try await StandInHTTP.body(request)))
            let answer = state.update { s -> (status: HTTPResponse.Status, body: String)? in
                s.requests.append(seen)
                return s.answers.isEmpty ? nil : s.answers.removeFirst()
            }
            guard valid else { return StandInHTTP.json(#"{"reason":"InvalidProviderToken"}"#, status: .forbidden) }
            guard let answer else { return Response(status: .ok) }
            return StandInHTTP.json(answer.body, status: answer.status)
        }
        router.post("/3/device/:token", use: handler)
        router.post("/sandbox/3/device/:token", use: handler)
        let certificate = try OpenSSLFixtures.certificateFor127()
        let server = try await StandInServer.startHTTP2(router: router, certificate: certificate)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(certificate.certificatePEM.utf8)))
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls
        configuration.httpVersion = .automatic
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        return APNsStandIn(server: server, state: state, client: client, key: key, clientTLS: tls)
    }

    func provider(clock: TestClock) throws -> APNsPushProvider {
        try APNsPushProvider(
            privateKey: key, keyID: Self.keyID, teamID: Self.teamID, topic: Self.topic, baseURL: server.base,
            sandboxURL: server.base + "/sandbox", timeout: 60, httpClient: client, now: { clock.now() })
    }

    func script(_ answers: (status: HTTPResponse.Status, body: String)...) {
        state.update { $0.answers += answers }
    }

    var requests: [Request] { state.read { $0.requests } }

    /// Runs `body` against the stand-in, then shuts the client and the server down.
    static func with<T>(_ body: (APNsStandIn) async throws -> T) async throws -> T {
        let standIn = try await start()
        do {
            let result = try await body(standIn)
            try await standIn.client.shutdown()
            await standIn.server.stop()
            return result
        } catch {
            try? await standIn.client.shutdown()
            await standIn.server.stop()
            throw error
        }
    }
}

@Suite struct DeliveryAPNsTests {
    @Test func deliversOverHTTP2WithTheProviderAPIsHeadersAndPayload() async throws {
        try await APNsStandIn.with { apns in
            let clock = TestClock()
            let provider = try apns.provider(clock: clock)
            #expect(provider.name == "apns")
            #expect(await provider.send(samplePush) == .delivered)

            let request = try #require(apns.requests.first)
            #expect(request.overHTTP2)
            #expect(request.path == "/3/device/" + samplePush.deviceToken)
            #expect(request.deviceToken == samplePush.deviceToken)
            #expect(request.headers["apns-topic"] == APNsStandIn.topic)
            #expect(request.headers["apns-push-type"] == "alert")
            #expect(request.headers["apns-priority"] == "10")
            #expect(request.headers["apns-expiration"] == String(Int(clock.now().timeIntervalSince1970) + 120))
            #expect(request.headers["content-type"] == "application/json")
            #expect(request.providerTokenValid)
            let token = try #require(DecodedJWT(request.providerToken))
            #expect(token.header.keys.sorted() == ["alg", "kid"])
            #expect(token.claims.keys.sorted() == ["iat", "iss"])
            #expect(token.integerClaim("iat") == Int(clock.now().timeIntervalSince1970))

            let payload = try #require(try JSONSerialization.jsonObject(with: request.payload) as? [String: Any])
            let aps = try #require(payload["aps"] as? [String: Any])
            let alert = try #require(aps["alert"] as? [String: Any])
            #expect(alert["title"] as? String == samplePush.alertTitle)
            #expect(alert["body"] as? String == samplePush.alertBody)
            #expect(aps["sound"] as? String == "default")
            #expect((aps["mutable-content"] as? NSNumber)?.intValue == 1)
            for (key, value) in samplePush.data {
                #expect(payload[key] as? String == value, "data key \(key) at the top level")
            }
            #expect(payload.count == samplePush.data.count + 1)
        }
    }

    /// docs/contracts/push.md: a push goes to the host of its device's environment, so that a development
    /// build's token never meets production (where it is a BadDeviceToken).
    @Test func eachPushGoesToItsDevicesEnvironment() async throws {
        try await APNsStandIn.with { apns in
            let provider = try apns.provider(clock: TestClock())
            let sandbox = PushMessage(
                deviceID: samplePush.deviceID, deviceToken: samplePush.deviceToken, data: samplePush.data, alertTitle: "t", alertBody: "b",
                apnsEnvironment: .sandbox)
            #expect(await provider.send(sandbox) == .delivered)
            #expect(await provider.send(samplePush) == .delivered)
            #expect(apns.requests.map(\.path) == ["/sandbox/3/device/" + samplePush.deviceToken, "/3/device/" + samplePush.deviceToken])
            // A BadDeviceToken from the sandbox is about the sandbox device.
            apns.script((.badRequest, #"{"reason":"BadDeviceToken"}"#))
            #expect(await provider.send(sandbox) == .deviceGone)
            #expect(apns.requests.last?.path.hasPrefix("/sandbox/") == true)
        }
    }

    /// The stand-in's HTTP/2 check is not vacuous: a client held to HTTP/1.1 is seen as such.
    @Test func theStandInTellsHTTP1FromHTTP2() async throws {
        try await APNsStandIn.with { apns in
            var configuration = HTTPClient.Configuration()
            configuration.tlsConfiguration = apns.clientTLS
            configuration.httpVersion = .http1Only
            let http1 = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            let provider = try APNsPushProvider(
                privateKey: apns.key, keyID: APNsStandIn.keyID, teamID: APNsStandIn.teamID, topic: APNsStandIn.topic,
                baseURL: apns.server.base, timeout: 60, httpClient: http1)
            let result = await provider.send(samplePush)
            try await http1.shutdown()
            #expect(result == .delivered)
            #expect(apns.requests.map { $0.overHTTP2 } == [false])
        }
    }

    @Test func goneDevicesAndOtherRefusals() async throws {
        try await APNsStandIn.with { apns in
            let provider = try apns.provider(clock: TestClock())
            apns.script(
                (.gone, #"{"reason":"Unregistered","timestamp":1700000000000}"#), (.badRequest, #"{"reason":"BadDeviceToken"}"#),
                (.badRequest, #"{"reason":"DeviceTokenNotForTopic"}"#), (.tooManyRequests, #"{"reason":"TooManyRequests"}"#))
            #expect(await provider.send(samplePush) == .deviceGone)
            #expect(await provider.send(samplePush) == .deviceGone)
            #expect(await provider.send(samplePush) == .failed("status 400 DeviceTokenNotForTopic"))
            #expect(await provider.send(samplePush) == .failed("status 429 TooManyRequests"))
            #expect(apns.requests.count == 4)
        }
    }

    @Test func theProviderTokenIsReusedAndRenewedAfterFiftyMinutes() async throws {
        try await APNsStandIn.with { apns in
            let clock = TestClock()
            let provider = try apns.provider(clock: clock)
            let start = Int(clock.now().timeIntervalSince1970)
            #expect(await provider.send(samplePush) == .delivered)
            clock.advance(60)
            #expect(await provider.send(samplePush) == .delivered)
            clock.advance(49 * 60 - 1)  // 49:59 after the first token
            #expect(await provider.send(samplePush) == .delivered)
            clock.advance(1)  // 50:00
            #expect(await provider.send(samplePush) == .delivered)
            clock.advance(60)
            #expect(await provider.send(samplePush) == .delivered)

            let tokens = apns.requests.map(\.providerToken)
            #expect(tokens.count == 5)
            #expect(Set(tokens[0...2]).count == 1, "one token for the first 50 minutes")
            #expect(tokens[3] != tokens[2], "a new token at 50 minutes")
            #expect(tokens[4] == tokens[3])
            #expect(DecodedJWT(tokens[0])?.integerClaim("iat") == start)
            #expect(DecodedJWT(tokens[3])?.integerClaim("iat") == start + 50 * 60)
            let allValid = apns.requests.allSatisfy { $0.providerTokenValid }
            #expect(allValid)
        }
    }

    @Test func anExpiredProviderTokenIsReplacedAndThePushTriedOnceMore() async throws {
        try await APNsStandIn.with { apns in
            let provider = try apns.provider(clock: TestClock())
            apns.script((.forbidden, #"{"reason":"ExpiredProviderToken"}"#))
            #expect(await provider.send(samplePush) == .delivered)
            var tokens = apns.requests.map(\.providerToken)
            #expect(tokens.count == 2)
            #expect(tokens[0] != tokens[1])
            // The new token is kept for the next push.
            #expect(await provider.send(samplePush) == .delivered)
            tokens = apns.requests.map(\.providerToken)
            #expect(tokens.count == 3)
            #expect(tokens[2] == tokens[1])

            // Refused again after the retry: failed, and no third attempt.
            apns.script((.forbidden, #"{"reason":"ExpiredProviderToken"}"#), (.forbidden, #"{"reason":"ExpiredProviderToken"}"#))
            let result = await provider.send(samplePush)
            #expect(result.label == "failed")
            #expect(apns.requests.count == 5)
        }
    }

    @Test func garbageAnswersAreFailuresNotCrashes() async throws {
        try await APNsStandIn.with { apns in
            let provider = try apns.provider(clock: TestClock())
            apns.script(
                (.badRequest, "<html>not json</html>"), (.forbidden, #"["ExpiredProviderToken"]"#),
                (.badRequest, #"{"reason": 7}"#), (.internalServerError, String(repeating: "x", count: 200_000)),
                (.gone, "\u{0}\u{1}garbage"))
            #expect(await provider.send(samplePush) == .failed("status 400"))
            #expect(await provider.send(samplePush) == .failed("status 403"))
            #expect(await provider.send(samplePush) == .failed("status 400"))
            #expect(await provider.send(samplePush).label == "failed")  // a body past the limit
            #expect(await provider.send(samplePush) == .deviceGone)  // 410 needs no body
            #expect(apns.requests.count == 5)
        }
    }

    @Test func aDeviceTokenThatIsNotHexIsRefusedWithoutARequest() async throws {
        try await APNsStandIn.with { apns in
            let provider = try apns.provider(clock: TestClock())
            for token in ["", "../../admin", "abc/def", "a1b2?x=1", String(repeating: "a", count: 201)] {
                let push = PushMessage(deviceID: "d", deviceToken: token, data: [:], alertTitle: "t", alertBody: "b")
                #expect(await provider.send(push).label == "failed")
            }
            #expect(apns.requests.isEmpty)
        }
    }

    @Test func theProviderTokenIsAnES256JWTOfTheTeam() throws {
        let key = try PrivateKey.generateEC(.p256)
        let issuedAt = Date(timeIntervalSince1970: 1_800_000_123.9)
        let token = try APNsPushProvider.providerToken(privateKey: key, keyID: "K", teamID: "T", issuedAt: issuedAt)
        let jwt = try #require(DecodedJWT(token))
        #expect(jwt.isValidES256(key.publicKey))
        #expect(jwt.header["alg"] as? String == "ES256")
        #expect(jwt.header["kid"] as? String == "K")
        #expect(jwt.claims["iss"] as? String == "T")
        #expect(jwt.integerClaim("iat") == 1_800_000_123)
        #expect(!jwt.isValidES256(try PrivateKey.generateEC(.p256).publicKey))
    }

    @Test func setUpRefusesWhatCannotWork() throws {
        let ec = try PrivateKey.generateEC(.p256)
        #expect(throws: PushProviderError.self) {
            try APNsPushProvider(privateKey: try PrivateKey.generateRSA(bits: 2048), keyID: "K", teamID: "T", topic: "t")
        }
        #expect(throws: PushProviderError.self) {
            try APNsPushProvider(privateKey: ec, keyID: "K", teamID: "T", topic: "t", baseURL: "ftp://example.com")
        }
        #expect(throws: PushProviderError.self) {
            try APNsPushProvider(privateKey: ec, keyID: "", teamID: "T", topic: "t")
        }
        #expect(throws: PushProviderError.self) {
            try APNsPushProvider(privateKey: ec, keyID: "K", teamID: "T", topic: "t\r\nx-injected: 1")
        }
    }

    @Test func anOwnClientIsShutDown() async throws {
        let provider = try APNsPushProvider(privateKey: try PrivateKey.generateEC(.p256), keyID: "K", teamID: "T", topic: "t")
        await provider.shutdown()
        // After shutdown the client refuses work: a failure, not a hang or a crash.
        #expect(await provider.send(samplePush).label == "failed")
    }
}
