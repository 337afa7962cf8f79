import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import Testing

/// The members of the two responses and of the client data, read in one pass (`StrictJSON.parse`
/// then `JSONFields`): each missing, null or wrongly typed member is named in an
/// `invalid_request`, optional members may be absent or null, unknown members are ignored.
@Suite struct ResponseShapeTests {
    /// A valid assertion as a mutable JSON object, and the credential that signed it.
    func assertion() throws -> [String: Any] {
        let credential = try TestCredential(id: Array(repeating: 5, count: 16), userHandle: Array(repeating: 6, count: 16))
        let builder = AssertionBuilder(credential: credential, rpID: rpID, origin: origin, challenge: Array(repeating: 9, count: 32), signCount: 0)
        let signature = try credential.sign(builder.authData.bytes + Digest.sha256.hash(builder.clientData.bytes))
        return [
            "id": Base64URL.encode(credential.id),
            "rawId": Base64URL.encode(credential.id),
            "type": "public-key",
            "response": [
                "clientDataJSON": Base64URL.encode(builder.clientData.bytes),
                "authenticatorData": Base64URL.encode(builder.authData.bytes),
                "signature": Base64URL.encode(signature),
                "userHandle": Base64URL.encode(credential.userHandle),
            ] as [String: Any],
        ]
    }

    func registration() throws -> [String: Any] {
        let credential = try TestCredential(id: Array(repeating: 4, count: 16))
        let builder = RegistrationBuilder(credential: credential, rpID: rpID, origin: origin, challenge: Array(repeating: 7, count: 32))
        return [
            "rawId": Base64URL.encode(credential.id),
            "response": [
                "clientDataJSON": Base64URL.encode(builder.clientData.bytes),
                "attestationObject": Base64URL.encode(try builder.attestationObject()),
                "transports": ["internal", "hybrid"],
            ] as [String: Any],
            "clientExtensionResults": ["credProps": ["rk": true], "prf": ["enabled": false]],
        ]
    }

    func bytes(_ object: Any) throws -> [UInt8] {
        [UInt8](try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed]))
    }

    /// The reason of the `invalid_request` that `body` throws; nil (and an issue) otherwise.
    func reason(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        do {
            try body()
            Issue.record("accepted", sourceLocation: sourceLocation)
        } catch let error as WebAuthnError {
            #expect(error.code == .invalidRequest, "\(error)", sourceLocation: sourceLocation)
            return error.reason
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    func withResponse(_ object: [String: Any], _ key: String, _ value: Any?) -> [String: Any] {
        var object = object
        var response = object["response"] as! [String: Any]
        response[key] = value
        object["response"] = response
        return object
    }

    @Test func anAssertionReadsEveryMember() throws {
        let response = try AuthenticationResponse(json: bytes(assertion()))
        #expect(response.credentialID == Array(repeating: 5, count: 16))
        #expect(response.userHandle == Array(repeating: 6, count: 16))
        #expect(response.clientData.type == "webauthn.get")
        #expect(response.clientData.origin == origin)
        #expect(!response.signature.isEmpty)
    }

    @Test(arguments: ["clientDataJSON", "authenticatorData", "signature"])
    func eachRequiredAssertionMemberIsNamed(_ member: String) throws {
        let object = try assertion()
        #expect(reason { _ = try AuthenticationResponse(json: bytes(withResponse(object, member, nil))) } == "missing field response.\(member)")
        #expect(reason { _ = try AuthenticationResponse(json: bytes(withResponse(object, member, NSNull()))) } == "null at response.\(member)")
        #expect(reason { _ = try AuthenticationResponse(json: bytes(withResponse(object, member, 7))) } == "wrong type at response.\(member)")
    }

    @Test func optionalMembersMayBeNullButNotAnotherKind() throws {
        var object = withResponse(try assertion(), "userHandle", NSNull())
        object["id"] = NSNull()
        object["type"] = NSNull()
        object["clientExtensionResults"] = NSNull()
        object["somethingNew"] = ["ignored": [1, 2]]
        let response = try AuthenticationResponse(json: bytes(object))
        #expect(response.userHandle == nil)
        #expect(response.credentialID == Array(repeating: 5, count: 16))

        #expect(reason { _ = try AuthenticationResponse(json: bytes(withResponse(object, "userHandle", true))) } == "wrong type at response.userHandle")
        object["type"] = 1
        #expect(reason { _ = try AuthenticationResponse(json: bytes(object)) } == "wrong type at type")
    }

    @Test func theTopAndResponseMustBeObjects() throws {
        #expect(reason { _ = try AuthenticationResponse(json: bytes([try assertion()])) } == "body is not a JSON object")
        var object = try assertion()
        object["response"] = "a string"
        #expect(reason { _ = try AuthenticationResponse(json: bytes(object)) } == "wrong type at response")
        object["response"] = nil
        #expect(reason { _ = try AuthenticationResponse(json: bytes(object)) } == "missing field response")
        #expect(reason { _ = try AuthenticationResponse(json: Array(#"{"response":{}, "response":{}}"#.utf8)) }?
            .hasPrefix("body is not strict JSON: member name repeated") == true)
    }

    @Test func aRegistrationReadsItsExtensionsAndTransports() throws {
        let response = try RegistrationResponse(json: bytes(registration()))
        #expect(response.transports == ["internal", "hybrid"])
        #expect(response.residentKey == true)
        #expect(response.prfEnabled == false)
        #expect(response.clientData.type == "webauthn.create")

        var object = try registration()
        object["clientExtensionResults"] = ["credProps": ["rk": "yes"]]
        #expect(reason { _ = try RegistrationResponse(json: bytes(object)) } == "wrong type at clientExtensionResults.credProps.rk")
        object["clientExtensionResults"] = ["prf": 3]
        #expect(reason { _ = try RegistrationResponse(json: bytes(object)) } == "wrong type at clientExtensionResults.prf")
        #expect(reason { _ = try RegistrationResponse(json: bytes(withResponse(object, "transports", ["usb", 1]))) } == "wrong type at response.transports.1")
        #expect(reason { _ = try RegistrationResponse(json: bytes(withResponse(object, "transports", ["usb", NSNull()]))) } == "wrong type at response.transports.1")
        #expect(reason { _ = try RegistrationResponse(json: bytes(withResponse(object, "attestationObject", nil))) } == "missing field response.attestationObject")
    }

    @Test func eachResponseSentToTheOtherEndpointIsToldWhereItBelongs() throws {
        #expect(reason { _ = try RegistrationResponse(json: bytes(assertion()), authenticationEndpoint: "POST /a") }
            == "this is an authentication response (it carries response.signature): send it to POST /a")
        #expect(reason { _ = try AuthenticationResponse(json: bytes(registration()), registrationEndpoint: "POST /r") }
            == "this is a registration response (it carries response.attestationObject): send it to POST /r")
    }

    @Test func clientDataMembersAreChecked() throws {
        let good = #"{"type":"webauthn.get","challenge":"abc","origin":"https://example.org","crossOrigin":false,"topOrigin":null,"other":1}"#
        let data = try CollectedClientData(bytes: Array(good.utf8))
        #expect(data.type == "webauthn.get")
        #expect(data.crossOrigin == false)
        #expect(data.topOrigin == nil)
        for bad in [
            #"{"challenge":"abc","origin":"https://example.org"}"#,
            #"{"type":null,"challenge":"abc","origin":"https://example.org"}"#,
            #"{"type":"webauthn.get","challenge":"abc","origin":"https://example.org","crossOrigin":"false"}"#,
            #"{"type":"webauthn.get","challenge":"abc","origin":"https://example.org","topOrigin":1}"#,
            #"["webauthn.get"]"#,
        ] {
            #expect(reason { _ = try CollectedClientData(bytes: Array(bad.utf8)) } == "clientDataJSON is not the expected JSON object", "\(bad)")
        }
        #expect(reason { _ = try CollectedClientData(bytes: [0x7B, 0xFF, 0x7D]) } == "clientDataJSON is not UTF-8")
        #expect(reason { _ = try CollectedClientData(bytes: Array(#"{"type":"a","type":"b"}"#.utf8)) }?
            .hasPrefix("clientDataJSON is not strict JSON") == true)
    }
}
