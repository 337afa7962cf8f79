import PasskeyJSON
import Foundation
import PasskeyCore
import PasskeyCrypto
import PasskeyTestSupport
import Testing

/// What native clients send instead of `PublicKeyCredential.toJSON()`: standard base64 (padded
/// or not) or padded base64url, rawId without id, no type, no clientExtensionResults.
@Suite struct NativeClientJSONTests {
    /// 0xFB 0xEF 0xFF encode as "++//" in standard base64 and "--__" in base64url; 16 bytes
    /// need "==" padding. Together they exercise every difference between the alphabets.
    static let awkwardID: [UInt8] = [0xFB, 0xEF, 0xFF] + Array(0..<13)

    enum Encoding: String, CaseIterable, Sendable {
        case base64url, paddedBase64url, standard, standardUnpadded

        func encode(_ bytes: [UInt8]) -> String {
            let standard = Data(bytes).base64EncodedString()
            switch self {
            case .base64url: return Base64URL.encode(bytes)
            case .paddedBase64url: return standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            case .standard: return standard
            case .standardUnpadded: return standard.replacingOccurrences(of: "=", with: "")
            }
        }
    }

    @Test(arguments: Encoding.allCases)
    func base64DecodesEveryForm(_ encoding: Encoding) {
        for length in 0..<8 {
            let bytes = Self.awkwardID.prefix(3) + Array(repeating: UInt8(0xFF), count: length)
            #expect(Base64URL.decode(encoding.encode(Array(bytes))) == Array(bytes), "\(encoding) \(length)")
        }
        #expect(Encoding.standard.encode(Self.awkwardID).hasPrefix("++//"))
        #expect(Encoding.standard.encode(Self.awkwardID).hasSuffix("=="))
    }

    @Test func refusesMixedOrBrokenBase64() {
        for bad in ["A", "AB=C", "AB===", "AB*C", "QUJD\n"] {
            #expect(Base64URL.decode(bad) == nil, "\(bad)")
        }
    }

    func registrationJSON(_ encoding: Encoding, fields: Set<String>) throws -> [UInt8] {
        let credential = try TestCredential(id: Self.awkwardID)
        let builder = RegistrationBuilder(credential: credential, rpID: rpID, origin: origin, challenge: Array(repeating: 7, count: 32))
        var object: [String: Any] = [
            "response": [
                "clientDataJSON": encoding.encode(builder.clientData.bytes),
                "attestationObject": encoding.encode(try builder.attestationObject()),
            ],
        ]
        if fields.contains("rawId") { object["rawId"] = encoding.encode(credential.id) }
        if fields.contains("id") { object["id"] = Base64URL.encode(credential.id) }
        if fields.contains("type") { object["type"] = "public-key" }
        if fields.contains("clientExtensionResults") { object["clientExtensionResults"] = [String: Any]() }
        return [UInt8](try JSONSerialization.data(withJSONObject: object))
    }

    @Test(arguments: Encoding.allCases)
    func registrationWithRawIdOnlyNoTypeNoExtensions(_ encoding: Encoding) throws {
        let response = try RegistrationResponse(json: registrationJSON(encoding, fields: ["rawId"]))
        #expect(response.credentialID == Self.awkwardID)
        #expect(response.residentKey == nil)
        #expect(response.clientData.type == "webauthn.create")
    }

    @Test func idWithoutRawIdAndBothAgreeing() throws {
        #expect(try RegistrationResponse(json: registrationJSON(.standard, fields: ["id"])).credentialID == Self.awkwardID)
        // id is base64url and rawId standard base64: the same bytes, so they agree.
        #expect(try RegistrationResponse(json: registrationJSON(.standard, fields: ["id", "rawId", "type", "clientExtensionResults"])).credentialID == Self.awkwardID)
    }

    @Test func neitherIdNorRawIdIsRefused() {
        expectRefusal(.invalidRequest) { _ = try RegistrationResponse(json: registrationJSON(.standard, fields: [])) }
    }

    @Test func assertionWithStandardBase64AndUserHandle() throws {
        let credential = try TestCredential(id: Self.awkwardID, userHandle: Array(repeating: 0xFF, count: 32))
        let builder = AssertionBuilder(credential: credential, rpID: rpID, origin: origin, challenge: Array(repeating: 9, count: 32), signCount: 0)
        let clientData = builder.clientData.bytes
        let authData = builder.authData.bytes
        let signature = try credential.sign(authData + Digest.sha256.hash(clientData))
        let object: [String: Any] = [
            "rawId": Encoding.standard.encode(credential.id),
            "response": [
                "clientDataJSON": Encoding.standard.encode(clientData),
                "authenticatorData": Encoding.standard.encode(authData),
                "signature": Encoding.standard.encode(signature),
                "userHandle": Encoding.standard.encode(credential.userHandle),
            ],
        ]
        let response = try AuthenticationResponse(json: [UInt8](try JSONSerialization.data(withJSONObject: object)))
        #expect(response.credentialID == Self.awkwardID)
        #expect(response.userHandle == credential.userHandle)
        #expect(response.signature == signature)
    }
}
