import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// A 200 means the data is on disk: `kill -9` in the middle of a burst of ceremonies loses
/// nothing that was answered 200 (group commit answers only after the COMMIT's fsync).
@Suite(.serialized) struct DurabilityTests {
    struct Registered: Sendable {
        let name: String
        let credential: TestCredential
        let token: String
        /// Sign-ins answered 200, by their sign count.
        var signedIn: [UInt32] = []
    }

    @Test func killDashNineUnderLoadLosesNoAnswered200() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let origin = "http://localhost:1"
        let arguments = ["--port", "0", "--database", database, "--origin", origin, "--rate-limit-ip", "0", "--rate-limit-user", "0"]
        let server = try await ServerProcess.start(arguments: arguments)
        let client = Client(base: server.base)
        let answered = Gathered<Registered>()

        // 16 workers register and sign in as fast as they can; the server is killed mid-burst.
        let workers = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<16 {
                    group.addTask {
                        for round in 0..<1000 {
                            do {
                                let name = "w\(worker)r\(round)"
                                let options = try await client.get("/registration_initialize?user_name=\(name)").json["publicKey"] as? [String: Any]
                                guard let options, let challenge = Base64URL.decode(options["challenge"] as? String ?? ""),
                                      let handle = Base64URL.decode((options["user"] as? [String: Any])?["id"] as? String ?? "")
                                else { return }
                                let credential = try TestCredential(userHandle: handle)
                                let body = try RegistrationBuilder(credential: credential, rpID: "localhost", origin: origin, challenge: challenge).json()
                                let result = try await client.post("/registration_finalize", bytes: body)
                                guard result.status == 200, let token = result.json["session"] as? String else { return }
                                var record = Registered(name: name, credential: credential, token: token)
                                let start = try await client.get("/authentication_initialize?user_name=\(name)")
                                guard let authChallenge = Base64URL.decode((start.json["publicKey"] as? [String: Any])?["challenge"] as? String ?? "") else {
                                    answered.append(record)
                                    return
                                }
                                let assertion = try AssertionBuilder(credential: credential, rpID: "localhost", origin: origin, challenge: authChallenge, signCount: 5).json()
                                if try await client.post("/authentication_finalize", bytes: assertion).status == 200 { record.signedIn.append(5) }
                                answered.append(record)
                            } catch {
                                return   // the server is gone
                            }
                        }
                    }
                }
            }
        }
        // Let the burst run until a good number of ceremonies were answered, then kill the
        // server in the middle of it (the workers are still sending).
        let deadline = Date().addingTimeInterval(120)
        while answered.count < 60, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        server.kill9()
        await workers.value
        let records = answered.items
        #expect(records.count > 20, "too few ceremonies before the kill to mean anything: \(records.count)")

        // Every registration and sign-in answered 200 is there after a restart.
        let restarted = try await ServerProcess.start(arguments: arguments)
        let again = Client(base: restarted.base)
        for record in records {
            let me = try await again.get("/me", bearer: record.token)
            #expect(me.status == 200, "\(record.name): the session answered 200 is gone")
            if let signCount = record.signedIn.last {
                let credentials = me.json["credentials"] as? [[String: Any]] ?? []
                #expect(credentials.first?["sign_count"] as? Int == Int(signCount), "\(record.name): the counter answered 200 is gone")
            }
        }
        #expect(restarted.terminate() == 0)
    }
}
