internal import PasskeyJSON

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
        let members = try ResponseDecoding.members(json, expected: .registration, otherEndpoint: authenticationEndpoint) { top, response throws(JSONFields.Problem) in
            let extensions = try top.optionalObject("clientExtensionResults")
            return try (
                clientData: response.string("clientDataJSON"),
                attestationObject: response.string("attestationObject"),
                transports: response.optionalStrings("transports") ?? [],
                attachment: top.optionalString("authenticatorAttachment"),
                residentKey: extensions?.optionalObject("credProps")?.optionalBool("rk"),
                prfEnabled: extensions?.optionalObject("prf")?.optionalBool("enabled")
            )
        }
        let (clientDataText, attestationText, transports) = (members.read.clientData, members.read.attestationObject, members.read.transports)
        (authenticatorAttachment, residentKey, prfEnabled) = (members.read.attachment, members.read.residentKey, members.read.prfEnabled)
        credentialID = members.credentialID
        clientData = try CollectedClientData(bytes: ResponseDecoding.binary(clientDataText, "response.clientDataJSON"))
        attestationObject = try AttestationObject(bytes: ResponseDecoding.binary(attestationText, "response.attestationObject"))
        guard transports.count <= 16, transports.allSatisfy(Self.isTransportName) else {
            throw WebAuthnError.invalidRequest("response.transports is not a short list of transport names")
        }
        self.transports = transports
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

    /// - Parameter registrationEndpoint: where a registration response sent here by mistake
    ///   belongs, as the refusal names it (`/registration_finalize` over HTTP).
    public init(json: [UInt8], registrationEndpoint: String = "the registration finalize endpoint") throws {
        let members = try ResponseDecoding.members(json, expected: .authentication, otherEndpoint: registrationEndpoint) { _, response throws(JSONFields.Problem) in
            try (
                clientData: response.string("clientDataJSON"),
                authenticatorData: response.string("authenticatorData"),
                signature: response.string("signature"),
                userHandle: response.optionalString("userHandle")
            )
        }
        let (clientDataText, authenticatorText, signatureText, handleText) = members.read
        credentialID = members.credentialID
        clientData = try CollectedClientData(bytes: ResponseDecoding.binary(clientDataText, "response.clientDataJSON"))
        authenticatorData = try AuthenticatorData(bytes: ResponseDecoding.binary(authenticatorText, "response.authenticatorData"))
        signature = try ResponseDecoding.binary(signatureText, "response.signature")
        if let handleText, !handleText.isEmpty {
            userHandle = try ResponseDecoding.binary(handleText, "response.userHandle")
        } else {
            userHandle = nil
        }
    }
}

enum ResponseDecoding {
    enum Ceremony { case registration, authentication }

    /// When a body whose members are not this ceremony's is the other ceremony's response (a
    /// registration sent to the authentication endpoint, or the reverse; WebAuthn L3 §5.2.1,
    /// §5.2.2 tell them apart by `response.attestationObject` and `response.signature`): an
    /// error that says so and names `otherEndpoint`, where it belongs. Nil otherwise.
    static func otherCeremony(_ body: JSONValue, expected: Ceremony, otherEndpoint: String) -> WebAuthnError? {
        guard let response = body.objectValue?["response"]?.objectValue else { return nil }
        let attestationObject = response["attestationObject"]?.stringValue
        let signature = response["signature"]?.stringValue
        switch expected {
        case .authentication where attestationObject != nil && signature == nil:
            return .invalidRequest("this is a registration response (it carries response.attestationObject): send it to \(otherEndpoint)")
        case .registration where signature != nil && attestationObject == nil:
            return .invalidRequest("this is an authentication response (it carries response.signature): send it to \(otherEndpoint)")
        default:
            return nil
        }
    }

    /// The body read in one pass (the strict checks and the value together): the credential
    /// ID from the top's `id`, `rawId` and `type`, and what `read` takes from the top object and
    /// its `response` object. A member that is not the shape `read` asks for is refused with its
    /// path, or, when the body is the other ceremony's response, with where that belongs.
    static func members<Read>(
        _ json: [UInt8], expected: Ceremony, otherEndpoint: String,
        _ read: (_ top: JSONFields, _ response: JSONFields) throws(JSONFields.Problem) -> Read
    ) throws -> (credentialID: [UInt8], read: Read) {
        let body: JSONValue
        do { body = try StrictJSON.parse(json) } catch {
            throw WebAuthnError.invalidRequest("body is not strict JSON: \(error.reason)")
        }
        let id, rawId, type: String?
        let members: Read
        do {
            let top = try JSONFields(body)
            let response = try top.object("response")
            (id, rawId, type) = try (top.optionalString("id"), top.optionalString("rawId"), top.optionalString("type"))
            members = try read(top, response)
        } catch {
            throw otherCeremony(body, expected: expected, otherEndpoint: otherEndpoint) ?? refusal(error)
        }
        return (try credentialID(id: id, rawId: rawId, type: type), members)
    }

    /// A member that is not what the response's shape asks for, as the refusal says it.
    static func refusal(_ problem: JSONFields.Problem) -> WebAuthnError {
        switch problem {
        case .missing(let path): .invalidRequest("missing field \(path)")
        case .wrongType(let path) where path.isEmpty: .invalidRequest("body is not a JSON object")
        case .wrongType(let path): .invalidRequest("wrong type at \(path)")
        case .null(let path): .invalidRequest("null at \(path)")
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
