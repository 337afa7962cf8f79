internal import PasskeyJSON
public import Foundation

/// RegistrationResponseJSON (WebAuthn L3 §5.1.3), decoded: every binary field accepts base64url
/// or base64, padded or not; `id` may be absent when `rawId` is given (and the reverse); a
/// missing `type` or `clientExtensionResults` is accepted, as native clients omit them.
public struct RegistrationResponse: Sendable {
    public let credentialID: [UInt8]
    public let clientData: CollectedClientData
    public let attestationObject: AttestationObject
    public let transports: [String]
    public let authenticatorAttachment: String?
    /// clientExtensionResults.credProps.rk, when the client reported it.
    public let residentKey: Bool?
    /// clientExtensionResults.prf.enabled, when the client reported it. Any PRF output the
    /// client also returned is not read: it is the user's secret, not the server's.
    public let prfEnabled: Bool?

    private struct JSON: Decodable {
        struct Response: Decodable {
            let clientDataJSON: String
            let attestationObject: String
            let transports: [String]?
        }
        struct Extensions: Decodable {
            struct CredProps: Decodable { let rk: Bool? }
            struct PRF: Decodable { let enabled: Bool? }
            let credProps: CredProps?
            let prf: PRF?
        }
        let id: String?
        let rawId: String?
        let type: String?
        let response: Response
        let authenticatorAttachment: String?
        let clientExtensionResults: Extensions?
    }

    /// A transport name as WebAuthn spells them (`usb`, `hybrid`, `smart-card`): 1–32 lower-case
    /// ASCII letters, digits and hyphens. Unknown names of that shape are kept (clients add new
    /// transports); anything else, a NUL or a control character among them, is not a transport.
    static func isTransportName(_ name: String) -> Bool {
        let bytes = name.utf8
        return (1...32).contains(bytes.count)
            && bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// - Parameter authenticationEndpoint: where an authentication response sent here by
    ///   mistake belongs, as the refusal names it (`/authentication_finalize` over HTTP).
    public init(json: [UInt8], authenticationEndpoint: String = "the authentication finalize endpoint") throws {
        let decoded: JSON
        do { decoded = try ResponseDecoding.decode(json, as: JSON.self) } catch {
            throw ResponseDecoding.otherCeremony(json, expected: .registration, otherEndpoint: authenticationEndpoint) ?? error
        }
        credentialID = try ResponseDecoding.credentialID(id: decoded.id, rawId: decoded.rawId, type: decoded.type)
        clientData = try CollectedClientData(bytes: ResponseDecoding.binary(decoded.response.clientDataJSON, "response.clientDataJSON"))
        attestationObject = try AttestationObject(bytes: ResponseDecoding.binary(decoded.response.attestationObject, "response.attestationObject"))
        let transports = decoded.response.transports ?? []
        guard transports.count <= 16, transports.allSatisfy(Self.isTransportName) else {
            throw WebAuthnError.invalidRequest("response.transports is not a short list of transport names")
        }
        self.transports = transports
        authenticatorAttachment = decoded.authenticatorAttachment
        residentKey = decoded.clientExtensionResults?.credProps?.rk
        prfEnabled = decoded.clientExtensionResults?.prf?.enabled
    }
}

/// AuthenticationResponseJSON (WebAuthn L3 §5.1.4), decoded with the same leniency.
public struct AuthenticationResponse: Sendable {
    public let credentialID: [UInt8]
    public let clientData: CollectedClientData
    public let authenticatorData: AuthenticatorData
    public let signature: [UInt8]
    /// nil when absent, null or empty.
    public let userHandle: [UInt8]?

    private struct JSON: Decodable {
        struct Response: Decodable {
            let clientDataJSON: String
            let authenticatorData: String
            let signature: String
            let userHandle: String?
        }
        let id: String?
        let rawId: String?
        let type: String?
        let response: Response
    }

    /// - Parameter registrationEndpoint: where a registration response sent here by mistake
    ///   belongs, as the refusal names it (`/registration_finalize` over HTTP).
    public init(json: [UInt8], registrationEndpoint: String = "the registration finalize endpoint") throws {
        let decoded: JSON
        do { decoded = try ResponseDecoding.decode(json, as: JSON.self) } catch {
            throw ResponseDecoding.otherCeremony(json, expected: .authentication, otherEndpoint: registrationEndpoint) ?? error
        }
        credentialID = try ResponseDecoding.credentialID(id: decoded.id, rawId: decoded.rawId, type: decoded.type)
        clientData = try CollectedClientData(bytes: ResponseDecoding.binary(decoded.response.clientDataJSON, "response.clientDataJSON"))
        authenticatorData = try AuthenticatorData(bytes: ResponseDecoding.binary(decoded.response.authenticatorData, "response.authenticatorData"))
        signature = try ResponseDecoding.binary(decoded.response.signature, "response.signature")
        if let handle = decoded.response.userHandle, !handle.isEmpty {
            userHandle = try ResponseDecoding.binary(handle, "response.userHandle")
        } else {
            userHandle = nil
        }
    }
}

enum ResponseDecoding {
    enum Ceremony { case registration, authentication }

    /// The members that tell the two responses apart (WebAuthn L3 §5.2.1, §5.2.2).
    private struct Shape: Decodable {
        struct Response: Decodable {
            let attestationObject: String?
            let signature: String?
        }
        let response: Response?
    }

    /// When a body that failed to decode is the other ceremony's response (a registration sent
    /// to the authentication endpoint, or the reverse): an error that says so and names
    /// `otherEndpoint`, where it belongs. Nil otherwise.
    static func otherCeremony(_ json: [UInt8], expected: Ceremony, otherEndpoint: String) -> WebAuthnError? {
        guard let response = (try? JSONDecoder().decode(Shape.self, from: Data(json)))?.response else { return nil }
        switch expected {
        case .authentication where response.attestationObject != nil && response.signature == nil:
            return .invalidRequest("this is a registration response (it carries response.attestationObject): send it to \(otherEndpoint)")
        case .registration where response.signature != nil && response.attestationObject == nil:
            return .invalidRequest("this is an authentication response (it carries response.signature): send it to \(otherEndpoint)")
        default:
            return nil
        }
    }

    static func decode<T: Decodable>(_ json: [UInt8], as type: T.Type) throws -> T {
        do { try StrictJSON.validate(json) } catch {
            throw WebAuthnError.invalidRequest("body is not strict JSON: \(error.reason)")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(json))
        } catch let DecodingError.keyNotFound(key, _) {
            throw WebAuthnError.invalidRequest("missing field \(key.stringValue)")
        } catch let DecodingError.typeMismatch(_, context) {
            throw WebAuthnError.invalidRequest("wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))")
        } catch let DecodingError.valueNotFound(_, context) {
            throw WebAuthnError.invalidRequest("null at \(context.codingPath.map(\.stringValue).joined(separator: "."))")
        } catch {
            throw WebAuthnError.invalidRequest("body is not valid JSON")
        }
    }

    static func binary(_ string: String, _ field: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(string), !bytes.isEmpty else {
            throw WebAuthnError.invalidRequest("\(field) is not base64url")
        }
        return bytes
    }

    /// `rawId` (or `id` when rawId is absent); when both are given they must agree.
    static func credentialID(id: String?, rawId: String?, type: String?) throws -> [UInt8] {
        if let type, type != "public-key" {
            throw WebAuthnError.invalidRequest("type must be \"public-key\"")
        }
        let fromRaw = try rawId.map { try binary($0, "rawId") }
        let fromID = try id.map { try binary($0, "id") }
        switch (fromRaw, fromID) {
        case let (raw?, id?):
            guard raw == id else { throw WebAuthnError.invalidRequest("id and rawId differ") }
            return raw
        case let (raw?, nil): return raw
        case let (nil, id?): return id
        case (nil, nil): throw WebAuthnError.invalidRequest("missing field rawId")
        }
    }
}
