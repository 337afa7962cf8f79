import Foundation
import Hummingbird
import PasskeyCrypto
import PasskeyJSON
import PasskeyMfB
import PasskeyAccounts
import PasskeyServerTestSupport
import PasskeyTestSupport
import Synchronization
import Testing

/// A local stand-in of Apple's Messages for Business gateway (seed 001): `POST
/// /v1/authenticate`, every request recorded with its headers and body, answered with the
/// statuses the test scripts (200 when nothing is scripted).
final class MfBGatewayStandIn: Sendable {
    struct Seen: Sendable {
        let headers: [String: String]
        let body: Data
    }

    private let seen = Mutex<[Seen]>([])
    private let answers = Mutex<[Int]>([])
    private let server: LocalServer
    var url: String { "http://127.0.0.1:\(server.port)/v1/authenticate" }

    private init(server: LocalServer) {
        self.server = server
    }

    static func start() async -> MfBGatewayStandIn {
        let box = Box()
        let router = Router()
        router.post("/v1/authenticate") { request, _ -> Response in
            let body = Data(try await request.body.collect(upTo: 1 << 20).readableBytesView)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let status = box.gateway?.record(Seen(headers: headers, body: body)) ?? 500
            return Response(status: .init(code: status))
        }
        let standIn = MfBGatewayStandIn(server: await LocalServer.start(router: router))
        box.set(standIn)
        return standIn
    }

    /// The next scripted answer, or 200.
    func record(_ request: Seen) -> Int {
        seen.withLock { $0.append(request) }
        return answers.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
    }

    func script(_ statuses: Int...) { answers.withLock { $0 += statuses } }
    var requests: [Seen] { seen.withLock { $0 } }

    func stop() async { await server.stop() }

    /// The router's handler reaches the stand-in made after it.
    final class Box: Sendable {
        private let value = Mutex<MfBGatewayStandIn?>(nil)
        var gateway: MfBGatewayStandIn? { value.withLock { $0 } }
        func set(_ gateway: MfBGatewayStandIn) { value.withLock { $0 = gateway } }
    }
}

/// docs/contracts/mfb.md, "Sending through Apple's gateway": the server sends the message itself, with seed
/// 001's headers and the MSP's JWT, retries what may be retried, and tells the business what a
/// refusal means.
@Suite struct MfBGatewayTests {
    static let businessID = "business-0123"
    static let mspID = "msp-4567"
    static let mspSecret: [UInt8] = Array("a shared secret of the MSP, 32 b".utf8)

    static func withGateway(
        _ configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: (MfBTests.Business, MfBGatewayStandIn) async throws -> Void
    ) async throws {
        let gateway = await MfBGatewayStandIn.start()
        do {
            try await MfBTests.withBusiness({ c in
                c.mfbGatewayURL = gateway.url
                c.mfbBusinessID = Self.businessID
                c.mfbMSPID = Self.mspID
                c.mfbMSPSecret = Data(Self.mspSecret).base64EncodedString()
                configure(&c)
            }) { business in
                try await body(business, gateway)
            }
        } catch {
            await gateway.stop()
            throw error
        }
        await gateway.stop()
    }

    static let pixel = Data([0x89, 0x50, 0x4E, 0x47]).base64EncodedString()

    static func create(_ business: MfBTests.Business, _ extra: [String: Any] = [:]) async throws -> HTTPResult {
        var body: [String: Any] = ["destination_id": "urn:mbid:customer-1", "capabilities": ["auth", "list"], "device_agent": "iPhone OS 17"]
        body.merge(extra) { $1 }
        return try await business.call("POST", "/mfb/requests", json: body)
    }

    @Test func theMessageGoesThroughTheGatewayWithSeed001sHeaders() async throws {
        try await Self.withGateway { business, gateway in
            // Frozen, so that the JWT's iat is known to the second however slow the machine is.
            business.server.clock.freeze()
            let created = try await Self.create(business, [
                "images": [["identifier": "1", "data": Self.pixel]],
                "received_message": ["title": "Sign in to Example", "subtitle": "To see your orders", "style": "icon", "imageIdentifier": "1"],
                "reply_message": ["title": "You Signed In", "style": "small"],
            ])
            #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
            #expect(created.json["status"] as? String == "sent")
            let messageID = try #require(created.json["gateway_message_id"] as? String)
            #expect(UUID(uuidString: messageID) != nil)

            let seen = try #require(gateway.requests.first)
            #expect(gateway.requests.count == 1)
            #expect(seen.headers["id"] == messageID)
            #expect(seen.headers["source-id"] == Self.businessID)
            #expect(seen.headers["destination-id"] == "urn:mbid:customer-1")
            #expect(seen.headers["version"] == "1.0")
            #expect(seen.headers["capabilities"] == "auth,list")
            #expect(seen.headers["device-agent"] == "iPhone OS 17")
            #expect(seen.headers["auto-reply"] == "true")
            #expect(seen.headers["msp-agent"]?.hasPrefix("passkey-server/") == true)
            #expect(seen.headers["content-type"] == "application/json")
            // Authorization: an HS256 JWT under the MSP's secret, aud the MSP's id, iat now.
            let bearer = try #require(seen.headers["authorization"])
            #expect(bearer.hasPrefix("Bearer "))
            let parts = bearer.dropFirst(7).split(separator: ".").map(String.init)
            try #require(parts.count == 3)
            let mac = HMAC.sha256(key: Self.mspSecret, data: Array((parts[0] + "." + parts[1]).utf8))
            #expect(Base64URL.encode(mac) == parts[2])
            let claims = try #require(try JSONSerialization.jsonObject(with: Data(Base64URL.decode(parts[1]) ?? [])) as? [String: Any])
            #expect(claims["aud"] as? String == Self.mspID)
            #expect((claims["iat"] as? NSNumber)?.int64Value == Int64(business.server.clock.now().timeIntervalSince1970.rounded(.down)))
            // The body is the message, as the business would have got it: iOS 16 (no client
            // secret), the images and both bubbles.
            let sent = try #require(try JSONSerialization.jsonObject(with: seen.body) as? [String: Any])
            #expect(NSDictionary(dictionary: sent).isEqual(to: try #require(created.json["message"] as? [String: Any])))
            let interactive = try #require(sent["interactiveData"] as? [String: Any])
            let received = try #require(interactive["receivedMessage"] as? [String: Any])
            #expect(received["subtitle"] as? String == "To see your orders" && received["style"] as? String == "icon")
            #expect(received["imageIdentifier"] as? String == "1")
            let data = try #require(interactive["data"] as? [String: Any])
            #expect((data["images"] as? [[String: Any]])?.first?["identifier"] as? String == "1")
            #expect(((data["authenticate"] as? [String: Any])?["oauth2"] as? [String: Any])?["clientSecret"] == nil)

            let id = try #require(created.json["requestIdentifier"] as? String)
            let status = try await business.call("GET", "/mfb/requests/\(id)")
            #expect(status.json["status"] as? String == "sent")
            #expect(status.json["gateway_message_id"] as? String == messageID)
            #expect(status.json["gateway_status"] as? Int == 200)
        }
    }

    /// A 500 is tried again (after 0.5 s and 1 s) with the same message id; a 4xx never is.
    @Test func a500IsRetriedAndA404IsNot() async throws {
        try await Self.withGateway { business, gateway in
            gateway.script(500, 200)
            let retried = try await Self.create(business)
            #expect(retried.status == 201 && retried.json["status"] as? String == "sent")
            #expect(gateway.requests.count == 2)
            #expect(Set(gateway.requests.map { $0.headers["id"] }).count == 1)

            gateway.script(404)
            let refused = try await Self.create(business)
            #expect(refused.status == 502)
            #expect(refused.error == "mfb_gateway_error")
            #expect(refused.json["gateway_status"] as? Int == 404)
            #expect((refused.json["message"] as? String)?.contains("destination-id") == true)
            #expect(gateway.requests.count == 3)
            // The request is kept as failed, with the same details; a reply to it is too late.
            let id = try #require(refused.json["requestIdentifier"] as? String)
            let status = try await business.call("GET", "/mfb/requests/\(id)")
            #expect(status.json["status"] as? String == "failed" && status.json["gateway_status"] as? Int == 404)
            let errors = try #require(status.json["errors"] as? [[String: Any]])
            #expect(errors.first?["domain"] as? String == "gateway" && errors.first?["code"] as? Int == 404)
            #expect(try await business.respond(id: id, token: "AAAA").status == 409)
        }
    }

    @Test func threeFailuresAreAGatewayError() async throws {
        try await Self.withGateway { business, gateway in
            gateway.script(500, 500, 500)
            let failed = try await Self.create(business)
            #expect(failed.status == 502 && failed.json["gateway_status"] as? Int == 500)
            #expect(gateway.requests.count == 3)
        }
    }

    @Test func aDeviceWithoutAuthOrNoDestinationIsRefusedAndNothingIsSent() async throws {
        try await Self.withGateway { business, gateway in
            let notCapable = try await Self.create(business, ["capabilities": ["list", "time"]])
            #expect(notCapable.status == 400 && notCapable.error == "mfb_not_capable")
            let noDestination = try await business.call("POST", "/mfb/requests", json: ["capabilities": ["auth"]])
            #expect(noDestination.status == 400 && noDestination.error == "invalid_request")
            for bad in [
                ["destination_id": "line\nbreak"], ["device_agent": String(repeating: "x", count: 300)],
                ["received_message": ["title": "T", "imageIdentifier": "nope"]], ["reply_message": ["title": "T", "style": "huge"]],
                ["images": [["identifier": "1", "data": "%%%"]]],
            ] as [[String: Any]] {
                #expect(try await Self.create(business, bad).error == "invalid_request", "\(bad)")
            }
            #expect(gateway.requests.isEmpty)
        }
    }

    /// seed 001: "Either the business or the CSP generates the requestIdentifier and
    /// responseEncryptionKey": a key pair the MSP made is taken, once.
    @Test func aKeyTheMSPMadeIsImported() async throws {
        try await MfBTests.withBusiness { business in
            let key = try ECPrivateKey.generate(.p384)
            let id = UUID().uuidString
            let body: [String: Any] = ["private_key": Data(key.scalar).base64EncodedString(), "request_identifier": id]
            let created = try await business.call("POST", "/mfb/requests", json: body)
            #expect(created.status == 201)
            #expect(created.json["requestIdentifier"] as? String == id)
            #expect(created.json["responseEncryptionKey"] as? String == Data(key.publicPoint).base64EncodedString())
            #expect(try await business.call("POST", "/mfb/requests", json: body).error == "conflict")
            #expect(try await business.call("POST", "/mfb/requests", json: ["private_key": "AAAA"]).error == "invalid_request")
            #expect(try await business.call("POST", "/mfb/requests", json: ["request_identifier": "not-a-uuid"]).error == "invalid_request")
        }
    }

    /// seed 000's error tables: a failed reply is kept with the seed's name and advice, and
    /// recorded as an event.
    @Test func deviceErrorsGetTheSeedsNamesAndAdvice() async throws {
        try await MfBTests.withBusiness { business in
            let (id, _, _) = try await business.request()
            let failed = try await business.call("POST", "/mfb/responses", json: [
                "data": ["version": "1.0", "requestIdentifier": id, "authenticate": [
                    "status": "failed",
                    "errors": [["code": 2, "domain": "com.apple.icloud.messages.business.cryptor", "message": "Key is not UTF8", "name": "forged"]],
                ]],
            ])
            #expect(failed.status == 200)
            let status = try await business.call("GET", "/mfb/requests/\(id)")
            let error = try #require((status.json["errors"] as? [[String: Any]])?.first)
            #expect(error["name"] as? String == "BCPublicKeyIsNotUTF8Error")
            #expect((error["advice"] as? String)?.isEmpty == false)
            #expect(error["code"] as? Int == 2 && error["message"] as? String == "Key is not UTF8")
        }
    }

    /// seed 001, "Validate the Public Key", with a third-party authentication provider: it asks
    /// this server about the key and user the device brought it.
    static let providerToken = "provider-token-0123456789"

    @Test func aThirdPartyProviderAuditsTheKey() async throws {
        try await MfBTests.withBusiness({ $0.mfbAuditToken = Self.providerToken }) { business in
            let (id, key, _) = try await business.request()
            func audit(_ key: String, _ user: String, token: String? = Self.providerToken) async throws -> HTTPResult {
                try await business.call("POST", "/mfb/key-audits", json: ["responseEncryptionKey": key, "userHandle": user], token: token)
            }
            let first = try await audit(key, "opaque-user-7")
            #expect(first.status == 200 && first.json["valid"] as? Bool == true && first.json["requestIdentifier"] as? String == id)
            #expect(try await audit(key, "opaque-user-7").status == 200)
            // Another user for the same key, or a key no request of ours has: refused.
            #expect(try await audit(key, "someone-else").error == "mfb_key_mismatch")
            let swapped = Data(try ECPrivateKey.generate(.p384).publicPoint).base64EncodedString()
            #expect(try await audit(swapped, "opaque-user-7").error == "mfb_key_mismatch")
            // Only the provider: the business's api token is not its credential.
            #expect(try await audit(key, "opaque-user-7", token: MfBTests.apiToken).status == 401)
            #expect(try await audit(key, "opaque-user-7", token: nil).status == 401)
        }
        // Without --mfb-audit-token nobody may call it.
        try await MfBTests.withBusiness { business in
            let (_, key, _) = try await business.request()
            let refused = try await business.call("POST", "/mfb/key-audits", json: ["responseEncryptionKey": key, "userHandle": "u"], token: "")
            #expect(refused.status == 401)
        }
    }

    /// Devices before iOS 15 put the token request's parameters in the URI (seed 000).
    @Test func aTokenRequestWithItsParametersInTheURIIsTaken() async throws {
        try await MfBTests.withBusiness { business in
            let (registered, _, _) = try await business.ceremonies.register("pre15")
            let session = try #require(registered.json["session"] as? String)
            let (_, key, _) = try await business.request()
            let code = try #require(MfBTests.Business.code(try await business.authorize(key: key, session: session)))
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            let query = "grant_type=authorization_code&code=\(code.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
                + "&redirect_uri=\(MfBTests.redirectURI.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
            let basic = Data("\(MfBTests.clientID):\(MfBTests.clientSecret)".utf8).base64EncodedString()
            func post(_ query: String, form: String = "") async throws -> HTTPResult {
                let request = "POST /mfb/token?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Authorization: Basic \(basic)\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)"
                return MfBTests.Business.parse(try await RawHTTP.exchange(port: business.server.port, request: Array(request.utf8)))
            }
            // The same parameter with two values, in the query and the body, is refused.
            let conflicting = try await post(query, form: "grant_type=refresh_token")
            #expect(conflicting.status == 400 && conflicting.json["error"] as? String == "invalid_request")
            let granted = try await post(query)
            #expect(granted.status == 200, "\(String(decoding: granted.body, as: UTF8.self))")
            #expect(granted.json["access_token"] is String)
        }
    }
}
