import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import PasskeyPush
import PasskeyOutbound
import PasskeyTestSupport
import Testing

/// A log handler that keeps what it is given, to check what the log provider writes.
struct CapturingLogHandler: LogHandler {
    let records: Recorder<[(message: String, metadata: Logger.Metadata)]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        records.update { $0.append((event.message.description, merged)) }
    }
}

let samplePush = PushMessage(
    deviceID: "0f4c6f8e-2b7e-4d5e-9a57-3a1c4b9d2e10", deviceToken: "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90",
    data: [
        "username": "alice", "tenantDomain": "example.com", "pushId": "push-123", "notificationScenario": "AUTHENTICATION",
        "challenge": "6c1e0a3e-8d9f-4b43-a1f4-1d2b3c4d5e6f", "numberChallenge": "42", "ipAddress": "192.0.2.7",
    ],
    alertTitle: "Sign-in request", alertBody: "Approve signing in to example.com?")

@Suite struct DeliveryLogProviderTests {
    @Test func logsWhatAnOperatorNeedsAndNotTheTokenOrValues() async {
        let records = Recorder<[(message: String, metadata: Logger.Metadata)]>([])
        let provider = LogPushProvider(logger: Logger(label: "test") { _ in CapturingLogHandler(records: records) })
        #expect(provider.name == "log")
        #expect(await provider.send(samplePush) == .delivered)
        let logged = records.read { $0 }
        #expect(logged.count == 1)
        let metadata = logged.first?.metadata ?? [:]
        #expect(metadata["deviceId"]?.description == samplePush.deviceID)
        #expect(metadata["pushId"]?.description == "push-123")
        #expect(metadata["scenario"]?.description == "AUTHENTICATION")
        #expect(metadata["dataKeys"]?.description.contains("numberChallenge") == true)
        let everything = logged.map { "\($0.message) \($0.metadata)" }.joined()
        for secret in [samplePush.deviceToken, "alice", "192.0.2.7", "6c1e0a3e-8d9f-4b43-a1f4-1d2b3c4d5e6f"] {
            #expect(!everything.contains(secret), "the log must not carry \(secret)")
        }
    }
}

@Suite struct DeliveryWebhookTests {
    struct Seen: Sendable {
        var bodies: [[String: String]] = []
        var data: [[String: String]] = []
        var contentTypes: [String] = []
        var status: HTTPResponse.Status = .ok
    }

    /// A webhook receiver: keeps each JSON body and answers the status the test set.
    static func receiver() async throws -> (StandInServer, Recorder<Seen>) {
        let seen = Recorder(Seen())
        let router = Router(context: StandInContext.self)
        router.post("/hook") { request, _ -> Response in
            let contentType = request.headers[.contentType] ?? ""
            let object = try await StandInHTTP.jsonObject(request) ?? [:]
            let status = seen.update { s in
                s.contentTypes.append(contentType)
                s.bodies.append(object.compactMapValues { $0 as? String })
                s.data.append(object["data"] as? [String: String] ?? [:])
                return s.status
            }
            return Response(status: status)
        }
        return (try await StandInServer.start(router: router), seen)
    }

    @Test func postsTheDeviceAndDataAsJSON() async throws {
        let (server, seen) = try await Self.receiver()
        let provider = WebhookPushProvider(url: server.base + "/hook")
        #expect(provider.name == "webhook")
        #expect(try await server.serving { await provider.send(samplePush) } == .delivered)
        let body = try #require(seen.read { $0.bodies.first })
        #expect(body["deviceId"] == samplePush.deviceID)
        #expect(body["deviceToken"] == samplePush.deviceToken)
        #expect(seen.read { $0.data.first } == samplePush.data)
        #expect(seen.read { $0.contentTypes.first } == "application/json")
    }

    @Test func mapsTheStatus() async throws {
        let (server, seen) = try await Self.receiver()
        let provider = WebhookPushProvider(url: server.base + "/hook")
        let results = try await server.serving {
            var results: [DeliveryResult] = []
            for status in [HTTPResponse.Status.accepted, .gone, .internalServerError] {
                seen.update { $0.status = status }
                results.append(await provider.send(samplePush))
            }
            return results
        }
        #expect(results == [.delivered, .deviceGone, .failed("status 500")])
        #expect(seen.read { $0.bodies.count } == 3)
    }

    @Test func noAnswerIsAFailure() async throws {
        // Nothing listens on that port: the connection is refused.
        let port = try TestPorts.free()
        let result = await WebhookPushProvider(url: "http://127.0.0.1:\(port)/hook", timeout: 1).send(samplePush)
        #expect(result.label == "failed")
        let unparsable = await WebhookPushProvider(url: "not a url").send(samplePush)
        #expect(unparsable.label == "failed")
    }
}
