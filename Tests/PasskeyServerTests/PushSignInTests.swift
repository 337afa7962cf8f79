import PasskeyJSON
import Foundation
import Hummingbird
import Logging
import NIOCore
import PasskeyCore
import PasskeyCrypto
import PasskeyPush
@testable import PasskeyApp
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyStorage
@testable import PasskeyOutbound
import PasskeyServerTestSupport
import PasskeyTestSupport
import Synchronization
import Testing

/// An operator's push gateway on 127.0.0.1: records each push the webhook provider POSTs.
final class PushGatewayStandIn: Sendable {
    final class Shared: Sendable {
        /// The bodies, as sent.
        let pushes = Mutex<[Data]>([])
        /// The status the gateway answers with.
        let status = Mutex<Int>(200)
    }

    let shared: Shared
    private let server: LocalServer
    var url: String { "http://127.0.0.1:\(server.port)/push" }

    private init(server: LocalServer, shared: Shared) {
        self.server = server
        self.shared = shared
    }

    static func start() async throws -> PushGatewayStandIn {
        let shared = Shared()
        let router = Router()
        router.post("/push") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let data = Data(body.readableBytesView)
            shared.pushes.withLock { $0.append(data) }
            let code = shared.status.withLock { $0 }
            return Response(status: .init(code: code))
        }
        return PushGatewayStandIn(server: await LocalServer.start(router: router), shared: shared)
    }

    var pushes: [[String: Any]] {
        shared.pushes.withLock { $0 }.map { (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] ?? ["unreadable": true] }
    }
    func answer(with status: Int) { shared.status.withLock { $0 = status } }

    /// Waits for the `count`-th push (the server sends them without holding up its answer).
    func push(_ count: Int) async throws -> [String: Any] {
        for _ in 0..<200 {
            let all = pushes
            if all.count >= count { return all[count - 1] }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw POSIXError(.ETIMEDOUT)
    }

    func stop() async {
        await server.stop()
    }
}

@Suite struct PushSignInTests {
    struct Push {
        let server: TestServer
        let gateway: PushGatewayStandIn
        let client: Client
        let ceremonies: Ceremonies

        /// A signed-in account with one enrolled device (the simulator's key).
        func enrolled(_ name: String, key: PrivateKey = PushSignInTests.deviceKey) async throws -> (session: String, deviceID: String) {
            let (registered, _, _) = try await ceremonies.register(name)
            let session = try #require(registered.json["session"] as? String)
            let discovery = try await client.send("POST", "/push/devices/discovery", bearer: session)
            try #require(discovery.status == 200, "\(String(decoding: discovery.body, as: UTF8.self))")
            let (_, body) = try DeviceSimulator.registration(discovery: Array(discovery.body), key: key, name: "Pixel", deviceToken: "tok-\(name)")
            let registeredDevice = try await client.post("/push/devices", bytes: body)
            try #require(registeredDevice.status == 201, "\(String(decoding: registeredDevice.body, as: UTF8.self))")
            return (session, try #require(registeredDevice.json["deviceId"] as? String))
        }

        /// A new account whose one phone is the simulator binary (`push-device enroll` from
        /// the discovery's JSON): its key file and the server's address.
        func enrolledSimulator(_ name: String) async throws -> (keyFile: String, server: String) {
            let (registered, _, _) = try await ceremonies.register(name)
            let session = try #require(registered.json["session"] as? String)
            let discovery = try await client.send("POST", "/push/devices/discovery", bearer: session)
            var qr = try #require(try JSONSerialization.jsonObject(with: discovery.body) as? [String: Any])
            qr.removeValue(forKey: "qr_svg")
            let keyFile = server.directory.appendingPathComponent("device-\(name).pem").path
            let address = server.base.absoluteString
            let enrolled = try await CommandRun.run([
                "push-device", "enroll", String(decoding: try JSONSerialization.data(withJSONObject: qr), as: UTF8.self),
                "--key", keyFile, "--server", address,
            ])
            #expect(enrolled.status == 0, "\(enrolled.errors)")
            return (keyFile, address)
        }

        func initialize(_ name: String) async throws -> [String: Any] {
            let result = try await client.post("/push/authentication_initialize", json: ["user_name": name])
            try #require(result.status == 200)
            return result.json
        }

        func answer(_ push: [String: Any], key: PrivateKey = PushSignInTests.deviceKey, approve: Bool = true, number: String? = nil) async throws -> HTTPResult {
            let token = try DeviceSimulator.answer(
                push: Array(try JSONSerialization.data(withJSONObject: push)), key: key, approve: approve, number: number, now: server.clock.now())
            return try await client.post("/push/authenticate", json: ["authResponse": token])
        }

        func status(_ watch: String) async throws -> HTTPResult {
            try await client.get("/push/authentication_status?watch=\(watch)")
        }
    }

    static let deviceKey: PrivateKey = {
        do { return try PrivateKey.generateRSA(bits: 2048) } catch { fatalError("\(error)") }
    }()

    static func withPush(
        _ configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }, _ body: (Push) async throws -> Void
    ) async throws {
        let gateway = try await PushGatewayStandIn.start()
        do {
            try await withServer({ c in
                c.pushProvider = "webhook"
                c.pushWebhookURL = gateway.url
                configure(&c)
            }) { server, ceremonies, client in
                try await body(Push(server: server, gateway: gateway, client: client, ceremonies: ceremonies))
            }
        } catch {
            await gateway.stop()
            throw error
        }
        await gateway.stop()
    }

    /// docs/contracts/accounts.md: a recovery that waits is told to every enrolled phone of the account.
    @Test func aWaitingRecoveryIsToldToTheAccountsPhones() async throws {
        try await Self.withPush({ $0.recoveryDelay = 86400 }) { push in
            let (session, deviceID) = try await push.enrolled("rita")
            let codes = try await RecoveryTests.codes(push.client, session)
            let started = try await RecoveryTests.recover(push.client, "rita", codes[0])
            #expect(started.status == 202)
            let sent = try await push.gateway.push(1)
            #expect(sent["deviceId"] as? String == deviceID)
            let data = try #require(sent["data"] as? [String: String])
            #expect(data["notificationScenario"] == "ACCOUNT_RECOVERY")
            let waiting = try #require((try await push.client.get("/me", bearer: session).json["waiting_recoveries"] as? [[String: Any]])?.first)
            #expect(data["recoveryId"] == waiting["id"] as? String && data["readyAt"] == waiting["ready_at"] as? String)
            // A wrong code tells no one.
            #expect(try await RecoveryTests.recover(push.client, "rita", "AAAA-AAAA-AAAA-AAAA").status == 400)
            try await Task.sleep(for: .milliseconds(300))
            #expect(push.gateway.pushes.count == 1)
        }
    }

    /// docs/contracts/accounts.md: every enrolled device can cancel a waiting recovery. The phone answers the
    /// ACCOUNT_RECOVERY push with a JWT its key signed; the recovery is cancelled, once.
    @Test func thePhoneVetoesAWaitingRecovery() async throws {
        try await Self.withPush({ $0.recoveryDelay = 86400 }) { push in
            let (session, _) = try await push.enrolled("rhea")
            let codes = try await RecoveryTests.codes(push.client, session)
            let started = try await RecoveryTests.recover(push.client, "rhea", codes[0])
            let recoveryID = try #require(started.json["recovery_id"] as? String)
            let sent = try await push.gateway.push(1)
            let pushJSON = Array(try JSONSerialization.data(withJSONObject: sent))
            func veto(_ token: String) async throws -> HTTPResult {
                try await push.client.post("/push/recovery-veto", json: ["authResponse": token])
            }
            // Another key, another account's device, an expired token: refused, nothing changes.
            let otherKey = try PrivateKey.generateRSA(bits: 2048)
            #expect(try await veto(try DeviceSimulator.veto(push: pushJSON, key: otherKey, now: push.server.clock.now())).error == "invalid_token")
            let (_, strangerDevice) = try await push.enrolled("sten")
            var foreign = sent
            foreign["deviceId"] = strangerDevice
            var foreignData = try #require(sent["data"] as? [String: String])
            foreignData["deviceId"] = strangerDevice
            foreign["data"] = foreignData
            let strangers = try DeviceSimulator.veto(push: Array(try JSONSerialization.data(withJSONObject: foreign)), key: Self.deviceKey, now: push.server.clock.now())
            #expect(try await veto(strangers).error == "not_found")
            let stale = try DeviceSimulator.veto(push: pushJSON, key: Self.deviceKey, now: push.server.clock.now().addingTimeInterval(-3600))
            #expect(try await veto(stale).error == "token_expired")
            #expect(try await push.client.get("/recovery/\(recoveryID)").json["status"] as? String == "waiting")

            let vetoed = try await veto(try DeviceSimulator.veto(push: pushJSON, key: Self.deviceKey, now: push.server.clock.now()))
            #expect(vetoed.status == 200, "\(String(decoding: vetoed.body, as: UTF8.self))")
            #expect(try await push.client.get("/recovery/\(recoveryID)").json["status"] as? String == "cancelled")
            #expect(try await veto(try DeviceSimulator.veto(push: pushJSON, key: Self.deviceKey, now: push.server.clock.now())).error == "not_found")
            let events = try await EventsTests.events(push.client, session).items
            #expect(events.contains { $0["type"] as? String == "recovery_cancelled" && ($0["details"] as? [String: String])?["device"] != nil })
        }
    }

    @Test func enrolPushApproveAndTheBrowserIsSignedIn() async throws {
        try await Self.withPush { push in
            let (passkeySession, deviceID) = try await push.enrolled("tess")
            let me = try await push.client.get("/me", bearer: passkeySession).json
            let devices = try #require(me["push_devices"] as? [[String: Any]])
            #expect(devices.count == 1)
            #expect(devices.first?["key"] as? String == "RSA-2048")
            #expect(devices.first?["deviceId"] as? String == deviceID)

            let started = try await push.initialize("TESS")
            let watch = try #require(started["watch"] as? String)
            let number = try #require(started["numberChallenge"] as? Int)
            #expect((1...100).contains(number))
            // The webhook's body: the device, its token, and the seed's data, every value a string.
            let sent = try await push.gateway.push(1)
            #expect(sent["deviceId"] as? String == deviceID)
            #expect(sent["deviceToken"] as? String == "tok-tess")
            let data = try #require(sent["data"] as? [String: String])
            #expect(data["pushId"] == started["pushAuthId"] as? String)
            #expect(data["numberChallenge"] == String(number))
            #expect(data["notificationScenario"] == "AUTHENTICATION")
            #expect(data["username"] == "tess" && data["tenantDomain"] == "localhost")
            #expect(data["ipAddress"] == "127.0.0.1")

            #expect(try await push.status(watch).json["status"] as? String == "pending")
            let answered = try await push.answer(sent)
            #expect(answered.status == 202, "\(String(decoding: answered.body, as: UTF8.self))")
            // The first status call after approval opens the session; later ones do not.
            let approved = try await push.status(watch)
            #expect(approved.json["status"] as? String == "approved")
            let session = try #require(approved.json["session"] as? String)
            #expect(approved.json["user_name"] as? String == "tess")
            #expect(approved.setCookie?.contains("session=") == true)
            #expect(try await push.client.get("/me", bearer: session).status == 200)
            let again = try await push.status(watch)
            #expect(again.json["status"] as? String == "approved" && again.json["session"] == nil)
            // The same JWT again: already answered.
            #expect(try await push.answer(sent).error == "already_answered")
            let events = try await EventsTests.events(push.client, session).items.compactMap { $0["type"] as? String }
            #expect(events.first == "sign_in")
            #expect(events.contains("push_device_enrolled"))
            let scrape = try await MetricsTests.scrape(push.client)
            #expect(scrape.value("passkey_push_deliveries_total", ["provider": "webhook", "result": "delivered"]) == 1)
            #expect(scrape.value("passkey_ceremonies_total", ["ceremony": "push", "outcome": "ok"]) == 1)
        }
    }

    /// An iPhone's Secure Enclave key: enrolled as the X9.63 point iOS exports, DER ECDSA over
    /// the challenge, then an ES256 answer signs the browser in; `/me` says P-256.
    @Test func aP256DeviceEnrolsAndAnswersAsAnIPhoneDoes() async throws {
        try await Self.withPush { push in
            let key = try PrivateKey.generateEC(.p256)
            let (session, deviceID) = try await push.enrolled("vera", key: key)
            let devices = try #require(try await push.client.get("/me", bearer: session).json["push_devices"] as? [[String: Any]])
            #expect(devices.first?["key"] as? String == "P-256" && devices.first?["deviceId"] as? String == deviceID)
            let started = try await push.initialize("vera")
            let sent = try await push.gateway.push(1)
            let answered = try await push.answer(sent, key: key)
            #expect(answered.status == 202, "\(String(decoding: answered.body, as: UTF8.self))")
            let approved = try await push.status(try #require(started["watch"] as? String))
            #expect(approved.json["status"] as? String == "approved" && approved.json["session"] != nil)
        }
    }

    @Test func denyWrongNumberAndExpiryEachEndTheRequest() async throws {
        try await Self.withPush { push in
            let (session, _) = try await push.enrolled("uma")
            // "That wasn't me": denied, recorded.
            let first = try await push.initialize("uma")
            let denied = try await push.answer(try await push.gateway.push(1), approve: false)
            #expect(denied.status == 202)
            #expect(try await push.status(first["watch"] as? String ?? "").json["status"] as? String == "denied")
            // A wrong number: refused, and the request ends as number_mismatch.
            let second = try await push.initialize("uma")
            let sent = try await push.gateway.push(2)
            let wrong = (Int(sent["data"].flatMap { ($0 as? [String: String])?["numberChallenge"] } ?? "1") ?? 1) % 100 + 1
            #expect(try await push.answer(sent, number: String(wrong)).error == "number_mismatch")
            #expect(try await push.status(second["watch"] as? String ?? "").json["status"] as? String == "number_mismatch")
            #expect(try await push.answer(sent).error == "already_answered")
            // Expiry.
            let third = try await push.initialize("uma")
            let late = try await push.gateway.push(3)
            push.server.clock.advance(121)
            #expect(try await push.status(third["watch"] as? String ?? "").json["status"] as? String == "expired")
            #expect(try await push.answer(late).error == "already_answered")
            let events = try await EventsTests.events(push.client, session).items.compactMap { $0["type"] as? String }
            #expect(events.contains("push_denied") && events.contains("push_number_mismatch"))
            let scrape = try await MetricsTests.scrape(push.client)
            #expect(scrape.value("passkey_ceremonies_total", ["ceremony": "push", "outcome": "refused", "error": "denied"]) == 1)
            #expect(scrape.value("passkey_ceremonies_total", ["ceremony": "push", "outcome": "refused", "error": "number_mismatch"]) == 1)
        }
    }

    @Test func aNewRequestReplacesThePendingOne() async throws {
        try await Self.withPush { push in
            _ = try await push.enrolled("vic")
            let first = try await push.initialize("vic")
            let old = try await push.gateway.push(1)
            _ = try await push.initialize("vic")
            #expect(try await push.status(first["watch"] as? String ?? "").json["status"] as? String == "expired")
            // Nobody answered the replaced request: it is no longer one the phone can answer.
            #expect(try await push.answer(old).error == "unknown_challenge")
            // The new one is answered as usual.
            #expect(try await push.answer(try await push.gateway.push(2)).status == 202)
        }
    }

    /// docs/contracts/push.md: the enrolment data (the QR code's JSON) names the account, the server and the
    /// RP, beside the device id and the single-use challenge.
    @Test func theDiscoveryDataNamesTheAccountTheServerAndTheRP() async throws {
        try await Self.withPush { push in
            let (registered, _, _) = try await push.ceremonies.register("dora")
            let session = try #require(registered.json["session"] as? String)
            let discovery = try await push.client.send("POST", "/push/devices/discovery", bearer: session).json
            #expect(discovery["username"] as? String == "dora")
            #expect(discovery["host"] as? String == push.server.origin)
            #expect(discovery["tenantDomain"] as? String == "localhost")
            #expect(UUID(uuidString: discovery["deviceId"] as? String ?? "") != nil)
            #expect(UUID(uuidString: discovery["challenge"] as? String ?? "") != nil)
        }
    }

    /// docs/contracts/push.md: only the devices enrolled when the request was made can answer it.
    @Test func aDeviceEnrolledAfterTheRequestCannotAnswerIt() async throws {
        try await Self.withPush { push in
            let (session, _) = try await push.enrolled("amy")
            let started = try await push.initialize("amy")
            let sent = try await push.gateway.push(1)
            push.server.clock.advance(1)
            // A second phone, enrolled after the request went out, answers it with the data it
            // would have had to be sent.
            let key = try PrivateKey.generateEC(.p256)
            let discovery = try await push.client.send("POST", "/push/devices/discovery", bearer: session)
            let (_, body) = try DeviceSimulator.registration(discovery: Array(discovery.body), key: key, name: "Later", deviceToken: "tok-later")
            let later = try #require(try await push.client.post("/push/devices", bytes: body).json["deviceId"] as? String)
            var forged = sent
            forged["deviceId"] = later
            var data = try #require(sent["data"] as? [String: String])
            data["deviceId"] = later
            forged["data"] = data
            #expect(try await push.answer(forged, key: key).error == "unknown_challenge")
            #expect(try await push.status(try #require(started["watch"] as? String)).json["status"] as? String == "pending")
            // The phone that was asked still can.
            #expect(try await push.answer(sent).status == 202)
        }
    }

    /// docs/contracts/push.md: the enrolment's `apnsEnvironment`, defaulting to `--apns-environment`, goes
    /// with every push to that device; a value that is neither is refused, and so is a device
    /// token of neither form.
    @Test func eachDeviceKeepsItsAPNsEnvironment() async throws {
        try await Self.withPush({ $0.apnsEnvironment = "sandbox" }) { push in
            let (registered, _, _) = try await push.ceremonies.register("bea")
            let session = try #require(registered.json["session"] as? String)
            func enrol(_ change: (inout [String: Any]) -> Void) async throws -> HTTPResult {
                let discovery = try await push.client.send("POST", "/push/devices/discovery", bearer: session)
                let token = String(repeating: "ab", count: 32)
                let (_, body) = try DeviceSimulator.registration(discovery: Array(discovery.body), key: Self.deviceKey, name: "Phone", deviceToken: token)
                var object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
                change(&object)
                return try await push.client.post("/push/devices", json: object)
            }
            #expect(try await enrol { $0["apnsEnvironment"] = "staging" }.error == "invalid_request")
            #expect(try await enrol { $0["apnsEnvironment"] = 1 }.error == "invalid_request")
            #expect(try await enrol { $0["deviceToken"] = "ab cd" }.error == "invalid_request")
            #expect(try await enrol { $0["deviceToken"] = "tok/../../3/device" }.error == "invalid_request")
            let defaulted = try #require(try await enrol { _ in }.json["deviceId"] as? String)
            let production = try #require(try await enrol { $0["apnsEnvironment"] = "production" }.json["deviceId"] as? String)
            #expect(try await push.server.app.store.pushDevice(id: defaulted)?.apnsEnvironment == "sandbox")
            #expect(try await push.server.app.store.pushDevice(id: production)?.apnsEnvironment == "production")
            _ = try await push.initialize("bea")
            _ = try await push.gateway.push(2)
            let environments = Dictionary(uniqueKeysWithValues: push.gateway.pushes.compactMap { sent -> (String, String)? in
                guard let id = sent["deviceId"] as? String, let environment = sent["apnsEnvironment"] as? String else { return nil }
                return (id, environment)
            })
            #expect(environments == [defaulted: "sandbox", production: "production"])
        }
    }

    /// Lifetimes below the defaults start, with a warning each.
    @Test func shortLifetimesAreWarnedOf() {
        var configuration = ServerConfiguration()
        #expect(PasskeyApplication.shortLifetimeWarnings(configuration).isEmpty)
        configuration.pushTTL = 1
        configuration.mfbClientID = "client"
        configuration.mfbRequestTTL = 1
        let warnings = PasskeyApplication.shortLifetimeWarnings(configuration)
        #expect(warnings.count == 2)
        #expect(warnings.first?.hasPrefix("--push-ttl 1 ") == true && warnings.last?.hasPrefix("--mfb-request-ttl 1 ") == true)
    }

    /// A provider with only a name, to build the push data as each provider would send it.
    struct NamedProvider: PushProvider {
        let name: String
        func send(_ message: PushMessage) async -> DeliveryResult { .delivered }
    }

    /// The seed's keys ride on APNs and FCM as on an own gateway, and with the longest user name
    /// and RP name the APNs payload stays within its 4 KB.
    @Test func thePushDataIsTheSeedsOnEveryProviderWithinAPNsLimit() async throws {
        try await withServer({ $0.rpName = String(repeating: "\u{1F511}", count: 5000) }) { server, _, _ in
            let longest = String(repeating: "\u{10FFFF}", count: 64)
            let user = UserRecord(handle: Array(repeating: 1, count: 32), name: longest, nameKey: longest, displayName: longest, createdAt: Date())
            let device = PushDeviceRecord(
                id: UUID().uuidString.lowercased(), userHandle: user.handle, name: "P", model: "M", deviceToken: "ab", publicKey: [], createdAt: Date())
            let request = PushRequestRecord(
                id: UUID().uuidString.lowercased(), userHandle: user.handle, watchHash: Array(repeating: 0, count: 32),
                challenge: UUID().uuidString.lowercased(), number: 100, createdAt: Date(), expiresAt: Date())
            let client = RequestClient(address: "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255", userAgent: String(repeating: "Mozilla/5.0 (iPhone) ", count: 500))
            for name in ["apns", "fcm", "webhook", "log"] {
                let signIn = try PushSignIn(
                    context: server.app.service.context, sessions: server.app.service.sessions, store: server.app.store, provider: NamedProvider(name: name))
                let data = signIn.pushData(request, device: device, user: user, client: client)
                #expect(Set(data.keys) == [
                    "username", "tenantDomain", "deviceId", "applicationName", "notificationScenario", "pushId", "challenge",
                    "numberChallenge", "ipAddress", "deviceOS", "browser",
                ], "\(name)")
                #expect(data["username"] == longest && data["ipAddress"] == client.address && data["deviceOS"] == "iOS", "\(name)")
                let message = PushMessage(
                    deviceID: device.id, deviceToken: device.deviceToken, data: data, alertTitle: "Sign-in request",
                    alertBody: "Approve the sign-in to \(signIn.applicationName) on this phone.")
                let size = try APNsPushProvider.payload(message).count
                #expect(size <= APNsPushProvider.maximumPayload, "\(name): \(size) bytes")
            }
        }
    }

    @Test func unknownNamesGetTheSameAnswerAndNoPush() async throws {
        try await Self.withPush { push in
            _ = try await push.ceremonies.register("wren")  // an account without devices
            for name in ["wren", "nobody-here"] {
                let started = try await push.initialize(name)
                #expect(started["pushAuthId"] is String && started["watch"] is String && started["numberChallenge"] is Int)
                #expect(try await push.status(started["watch"] as? String ?? "").json["status"] as? String == "pending")
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(push.gateway.pushes.isEmpty)
            // An unknown or altered watch secret reads nothing.
            #expect(try await push.status("AAAA").status == 404)
            #expect(try await push.status(Base64URL.encode(SecureRandom.bytes(32))).error == "not_found")
            #expect(try await push.client.get("/push/authentication_status").status == 404)
        }
    }

    @Test func enrolmentRefusalsSpendNothing() async throws {
        try await Self.withPush({ $0.pushMaxDevices = 1 }) { push in
            let (registered, _, _) = try await push.ceremonies.register("xena")
            let session = try #require(registered.json["session"] as? String)
            let discovery = try await push.client.send("POST", "/push/devices/discovery", bearer: session)
            #expect(discovery.json["qr_svg"] as? String != nil)
            #expect((discovery.json["qr_svg"] as? String)?.hasPrefix("<svg") == true)
            let bytes = Array(discovery.body)
            func register(_ change: (inout [String: Any]) -> Void) async throws -> HTTPResult {
                let (_, body) = try DeviceSimulator.registration(discovery: bytes, key: Self.deviceKey, name: "Phone", deviceToken: "t")
                var object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
                change(&object)
                return try await push.client.post("/push/devices", json: object)
            }
            let weak = try PrivateKey.generateRSA(bits: 1024)
            #expect(try await register { $0["publicKey"] = Data(weak.publicKey.subjectPublicKeyInfo).base64EncodedString() }.error == "weak_key")
            #expect(try await register { $0["signature"] = Data(repeating: 1, count: 256).base64EncodedString() }.error == "invalid_signature")
            #expect(try await register { $0["deviceToken"] = "other" }.error == "invalid_signature")
            #expect(try await register { $0["deviceId"] = UUID().uuidString }.error == "unknown_challenge")
            #expect(try await register { $0["name"] = "bad\u{0}name" }.error == "invalid_request")
            #expect(try await register { $0.removeValue(forKey: "model") }.error == "invalid_request")
            // None of those spent the discovery: the right registration still works, once.
            let good = try await register { _ in }
            #expect(good.status == 201)
            #expect(try await register { _ in }.error == "unknown_challenge")
            // Past --push-max-devices.
            let second = try await push.client.send("POST", "/push/devices/discovery", bearer: session)
            let (_, body) = try DeviceSimulator.registration(discovery: Array(second.body), key: Self.deviceKey, name: "Two", deviceToken: "t2")
            let tooMany = try await push.client.post("/push/devices", bytes: body)
            #expect(tooMany.status == 409)
            #expect(tooMany.error == "too_many_devices")
            // Enrolment needs a session.
            #expect(try await push.client.send("POST", "/push/devices/discovery").status == 401)
        }
    }

    @Test func answersAreCheckedBeforeAnythingChanges() async throws {
        try await Self.withPush { push in
            let (_, deviceID) = try await push.enrolled("yuri")
            let started = try await push.initialize("yuri")
            let sent = try await push.gateway.push(1)
            let now = push.server.clock.now().timeIntervalSince1970
            func token(_ claims: [String: Any], header: [String: Any] = [:], key: PrivateKey = Self.deviceKey) throws -> String {
                var head: [String: Any] = ["alg": "RS256", "deviceId": deviceID]
                head.merge(header) { $1 }
                func part(_ o: Any) throws -> String { Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: o))) }
                let input = try part(head) + "." + part(claims)
                return input + "." + Base64URL.encode(try key.signature(for: Array(input.utf8), algorithm: .rsaPKCS1v15(.sha256)))
            }
            let data = try #require(sent["data"] as? [String: String])
            let good: [String: Any] = [
                "pushAuthId": data["pushId"] ?? "", "challenge": data["challenge"] ?? "", "response": "APPROVED",
                "numberChallenge": data["numberChallenge"] ?? "", "exp": now + 300,
            ]
            func send(_ token: String) async throws -> String? {
                try await push.client.post("/push/authenticate", json: ["authResponse": token]).error
            }
            let other = try PrivateKey.generateRSA(bits: 2048)
            #expect(try await send("garbage") == "invalid_token")
            #expect(try await send(try token(good, key: other)) == "invalid_token")
            #expect(try await send(try token(good, header: ["alg": "none"])) == "invalid_token")
            #expect(try await send(try token(good, header: ["deviceId": "unknown-device"])) == "invalid_token")
            #expect(try await send(try token(good.merging(["exp": now + 86400 * 365]) { $1 })) == "token_expired")
            #expect(try await send(try token(good.filter { $0.key != "exp" })) == "token_expired")
            #expect(try await send(try token(good.merging(["pushAuthId": "other"]) { $1 })) == "unknown_challenge")
            #expect(try await send(try token(good.merging(["challenge": "other"]) { $1 })) == "unknown_challenge")
            #expect(try await push.client.post("/push/authenticate", json: ["x": 1]).error == "invalid_request")
            // Still pending: none of them changed anything.
            #expect(try await push.status(started["watch"] as? String ?? "").json["status"] as? String == "pending")
            #expect(try await send(try token(good)) == nil)
        }
    }

    @Test func deletingADeviceEndsItsSessionsAndGoneDevicesAreDisabled() async throws {
        try await Self.withPush { push in
            let (passkeySession, deviceID) = try await push.enrolled("zoe")
            let started = try await push.initialize("zoe")
            _ = try await push.answer(try await push.gateway.push(1))
            let pushSession = try #require(try await push.status(started["watch"] as? String ?? "").json["session"] as? String)
            #expect(try await push.client.send("DELETE", "/push/devices/\(deviceID)", bearer: passkeySession).status == 200)
            #expect(try await push.client.get("/me", bearer: pushSession).status == 401)
            #expect(try await push.client.get("/me", bearer: passkeySession).status == 200)
            #expect(try await push.client.send("DELETE", "/push/devices/\(deviceID)", bearer: passkeySession).status == 404)

            // The gateway says the device is gone (410): it is disabled and gets no more pushes.
            let (_, second) = try await push.enrolled("zack")
            push.gateway.answer(with: 410)
            _ = try await push.initialize("zack")
            _ = try await push.gateway.push(2)
            var disabled = false
            for _ in 0..<100 where !disabled {
                disabled = try await push.server.app.store.pushDevice(id: second)?.disabled == true
                if !disabled { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(disabled)
            _ = try await push.initialize("zack")
            try await Task.sleep(for: .milliseconds(200))
            #expect(push.gateway.pushes.count == 2)
            let scrape = try await MetricsTests.scrape(push.client)
            #expect(scrape.value("passkey_push_deliveries_total", ["provider": "webhook", "result": "device_gone"]) == 1)
        }
    }

    /// The simulator as a binary: enrol from the discovery JSON, answer the push.
    @Test func theDeviceSimulatorPlaysThePhone() async throws {
        try await Self.withPush { push in
            let (keyFile, server) = try await push.enrolledSimulator("ada")
            #expect(FileManager.default.fileExists(atPath: keyFile))
            let started = try await push.initialize("ada")
            let sent = try await push.gateway.push(1)
            let answered = try await CommandRun.run([
                "push-device", "answer", String(decoding: try JSONSerialization.data(withJSONObject: sent), as: UTF8.self),
                "--key", keyFile, "--server", server,
            ])
            #expect(answered.status == 0, "\(answered.errors) \(answered.output)")
            #expect(try await push.status(started["watch"] as? String ?? "").json["status"] as? String == "approved")
        }
    }
}
