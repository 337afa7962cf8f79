import PasskeyJSON
import Foundation
import PasskeyCore
@testable import PasskeyAccounts
import PasskeyServer
import PasskeyServerTestSupport
import PasskeyTestSupport
import Testing

/// The FIDO conformance API (`--fido-conformance`) in the shapes of FIDO's "Server Requirements
/// and Transport Binding Profile": every request and failure shape it lists.
@Suite struct ConformanceTests {
    static func on(_ c: inout ServerConfiguration) { c.fidoConformance = true }

    static func expectOK(_ result: HTTPResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 200, "\(String(decoding: result.body, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(result.json["status"] as? String == "ok", sourceLocation: sourceLocation)
        #expect(result.json["errorMessage"] as? String == "", sourceLocation: sourceLocation)
    }

    static func expectFailed(_ result: HTTPResult, status: Int = 400, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "\(String(decoding: result.body, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(result.json["status"] as? String == "failed", sourceLocation: sourceLocation)
        #expect((result.json["errorMessage"] as? String ?? "").isEmpty == false, sourceLocation: sourceLocation)
        #expect(result.json.count == 2, "a failure carries status and errorMessage only", sourceLocation: sourceLocation)
    }

    /// attestation/options → the software authenticator → attestation/result.
    static func register(_ server: TestServer, _ client: Client, _ name: String) async throws -> TestCredential {
        let options = try await client.post("/attestation/options", json: ["username": name, "displayName": name])
        expectOK(options)
        let challenge = Base64URL.decode(options.json["challenge"] as? String ?? "") ?? []
        let handle = Base64URL.decode((options.json["user"] as? [String: Any])?["id"] as? String ?? "") ?? []
        let credential = try TestCredential(userHandle: handle)
        let builder = RegistrationBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge)
        expectOK(try await client.post("/attestation/result", bytes: builder.json()))
        return credential
    }

    @Test func attestationOptionsCarryEveryMemberAndWhatWasAsked() async throws {
        try await withServer(Self.on) { _, _, client in
            let plain = try await client.post("/attestation/options", json: ["username": "fido-a", "displayName": "Fido A"])
            Self.expectOK(plain)
            for member in ["rp", "user", "challenge", "pubKeyCredParams", "timeout", "excludeCredentials", "authenticatorSelection", "attestation"] {
                #expect(plain.json[member] != nil, "\(member)")
            }
            #expect((plain.json["user"] as? [String: Any])?["displayName"] as? String == "Fido A")
            #expect(plain.json["attestation"] as? String == "none")
            #expect((plain.json["authenticatorSelection"] as? [String: Any])?["requireResidentKey"] as? Bool == false)

            let asked = try await client.post("/attestation/options", json: [
                "username": "fido-b", "displayName": "Fido B", "attestation": "direct",
                "authenticatorSelection": ["requireResidentKey": true, "authenticatorAttachment": "cross-platform", "userVerification": "required"],
                "extensions": ["example.extension": true],
            ])
            Self.expectOK(asked)
            let selection = try #require(asked.json["authenticatorSelection"] as? [String: Any])
            #expect(selection["requireResidentKey"] as? Bool == true)
            #expect(selection["authenticatorAttachment"] as? String == "cross-platform")
            #expect(selection["userVerification"] as? String == "required")
            #expect(asked.json["attestation"] as? String == "direct")
            let extensions = try #require(asked.json["extensions"] as? [String: Any])
            #expect(extensions["example.extension"] as? Bool == true)
            #expect(extensions["credProps"] as? Bool == true)
        }
    }

    @Test func registrationAndSignInRoundTripWithAKnownNameAddingAPasskey() async throws {
        try await withServer(Self.on) { server, _, client in
            let first = try await Self.register(server, client, "fido-c")
            // The tools keep no session: a known name gets one more passkey, the first excluded.
            let again = try await client.post("/attestation/options", json: ["username": "fido-c", "displayName": "c"])
            Self.expectOK(again)
            let excluded = (again.json["excludeCredentials"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(excluded == [Base64URL.encode(first.id)])

            let options = try await client.post("/assertion/options", json: ["username": "fido-c", "userVerification": "required"])
            Self.expectOK(options)
            #expect(options.json["userVerification"] as? String == "required")
            #expect(options.json["rpId"] as? String == "localhost")
            let allowed = (options.json["allowCredentials"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(allowed == [Base64URL.encode(first.id)])
            let challenge = Base64URL.decode(options.json["challenge"] as? String ?? "") ?? []
            let assertion = AssertionBuilder(credential: first, rpID: "localhost", origin: server.origin, challenge: challenge, signCount: 1)
            let body = try assertion.json()
            Self.expectOK(try await client.post("/assertion/result", bytes: body))
            // The same response again: its challenge is spent.
            Self.expectFailed(try await client.post("/assertion/result", bytes: body))
        }
    }

    @Test func everyFailureIsStatusFailedWithAMessageAndA4xx() async throws {
        try await withServer(Self.on) { server, _, client in
            for bad: [String: Any] in [["displayName": "x"], ["username": ""], ["username": "x", "attestation": "always"],
                                       ["username": "x", "authenticatorSelection": ["userVerification": "maybe"]],
                                       ["username": "x", "authenticatorSelection": ["authenticatorAttachment": "usb"]],
                                       ["username": "x", "authenticatorSelection": ["residentKey": "always"]]] {
                Self.expectFailed(try await client.post("/attestation/options", json: bad))
            }
            Self.expectFailed(try await client.post("/attestation/options", bytes: Array("not json".utf8)))
            Self.expectFailed(try await client.post("/assertion/options", json: ["username": "nobody"]))
            Self.expectFailed(try await client.post("/assertion/options", json: [String: Any]()))
            _ = try await Self.register(server, client, "fido-d")
            Self.expectFailed(try await client.post("/assertion/options", json: ["username": "fido-d", "userVerification": "maybe"]))
            Self.expectFailed(try await client.post("/attestation/result", json: ["id": "AAAA", "response": [String: Any]()]))
            Self.expectFailed(try await client.post("/assertion/result", json: [String: Any]()))

            // A response to a challenge never issued, and one whose signature is wrong.
            let stranger = try TestCredential()
            let unissued = RegistrationBuilder(credential: stranger, rpID: "localhost", origin: server.origin, challenge: Array(repeating: 7, count: 32))
            Self.expectFailed(try await client.post("/attestation/result", bytes: try unissued.json()))
            let options = try await client.post("/attestation/options", json: ["username": "fido-e", "displayName": "e"])
            let challenge = Base64URL.decode(options.json["challenge"] as? String ?? "") ?? []
            var tampered = RegistrationBuilder(credential: stranger, rpID: "localhost", origin: "https://evil.example", challenge: challenge)
            tampered.transports = nil
            Self.expectFailed(try await client.post("/attestation/result", bytes: try tampered.json()))
        }
    }

    /// The profile's credential has `type` and `id`: one without either, or with another type,
    /// is a failure the tools expect, and it spends nothing (the same response, whole, still
    /// registers and signs in afterwards).
    @Test func aCredentialWithoutTypeOrIdFails() async throws {
        try await withServer(Self.on) { server, _, client in
            func edited(_ bytes: [UInt8], _ edit: (inout [String: Any]) -> Void) throws -> [UInt8] {
                var object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
                edit(&object)
                return Array(try JSONSerialization.data(withJSONObject: object))
            }
            let options = try await client.post("/attestation/options", json: ["username": "fido-t", "displayName": "t"])
            let challenge = Base64URL.decode(options.json["challenge"] as? String ?? "") ?? []
            let handle = Base64URL.decode((options.json["user"] as? [String: Any])?["id"] as? String ?? "") ?? []
            let credential = try TestCredential(userHandle: handle)
            let body = try RegistrationBuilder(credential: credential, rpID: "localhost", origin: server.origin, challenge: challenge).json()
            let edits: [(inout [String: Any]) -> Void] = [
                { $0["type"] = nil }, { $0["id"] = nil }, { $0["type"] = "password" }, { $0["id"] = "" }, { $0["id"] = "not base64url!" },
            ]
            for edit in edits {
                Self.expectFailed(try await client.post("/attestation/result", bytes: try edited(body, edit)))
            }
            Self.expectOK(try await client.post("/attestation/result", bytes: body))

            let request = try await client.post("/assertion/options", json: ["username": "fido-t"])
            let assertionChallenge = Base64URL.decode(request.json["challenge"] as? String ?? "") ?? []
            let assertion = try AssertionBuilder(
                credential: credential, rpID: "localhost", origin: server.origin, challenge: assertionChallenge, signCount: 1).json()
            for edit in edits {
                Self.expectFailed(try await client.post("/assertion/result", bytes: try edited(assertion, edit)))
            }
            Self.expectOK(try await client.post("/assertion/result", bytes: assertion))
        }
    }

    @Test func offUnlessAskedFor() async throws {
        try await withServer { _, _, client in
            for path in ["/attestation/options", "/attestation/result", "/assertion/options", "/assertion/result"] {
                let status = try await client.post(path, json: ["username": "x"]).status
                #expect(status == 404, "\(path)")
            }
        }
    }
}
