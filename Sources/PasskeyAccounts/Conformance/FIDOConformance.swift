public import PasskeyCore
internal import PasskeyJSON
internal import PasskeyStorage
internal import Foundation

/// The four calls of the FIDO "Server Requirements and Transport Binding Profile", which the
/// FIDO conformance tools drive (`--fido-conformance`): the same ceremonies, verifier and store
/// as the JSON API, with the options the tools choose per request. It is a test mode: a name
/// that exists gets one more passkey without a session (the tools keep none), and an unknown
/// name is refused at `/assertion/options`, so never turn it on where real accounts live.
public struct FIDOConformance: Sendable {
    let passkeys: PasskeySignIn

    public init(passkeys: PasskeySignIn) {
        self.passkeys = passkeys
    }

    /// `ServerPublicKeyCredentialCreationOptionsRequest`, as the tools send it.
    public struct CreationRequest: Decodable, Sendable {
        public struct Selection: Decodable, Sendable {
            public var requireResidentKey: Bool?
            public var residentKey: String?
            public var authenticatorAttachment: String?
            public var userVerification: String?
        }
        public var username: String?
        public var displayName: String?
        public var authenticatorSelection: Selection?
        public var attestation: String?
    }

    /// `ServerPublicKeyCredentialGetOptionsRequest`.
    public struct RequestRequest: Decodable, Sendable {
        public var username: String?
        public var userVerification: String?
    }

    /// `/attestation/options`: a new name opens an account, a known one adds a passkey to it.
    public func attestationOptions(_ request: CreationRequest) async throws -> CreationOptionsResponse {
        guard let rawName = request.username else { throw APIError.invalidRequest("username is required.") }
        let name = try UserName(rawName)
        let displayName = try UserName.displayName(request.displayName, default: name)
        let selection = request.authenticatorSelection
        let settings = RegistrationSettings(
            userVerification: try Self.userVerification(selection?.userVerification, default: passkeys.configuration.userVerification),
            attestation: try Self.attestation(request.attestation),
            residentKey: try Self.residentKey(selection),
            attachment: try selection?.authenticatorAttachment.map {
                guard let attachment = AuthenticatorAttachment(rawValue: $0) else {
                    throw APIError.invalidRequest("authenticatorAttachment must be platform or cross-platform.")
                }
                return attachment
            })
        let store = passkeys.store
        let existing = try await store.user(nameKey: name.key)
        try passkeys.limitUser(handle: existing?.handle, nameKey: name.key)
        if let existing {
            return try await passkeys.issueRegistration(for: existing, isNew: false, settings: settings)
        }
        let user = UserRecord.newAccount(name, displayName: displayName, createdAt: passkeys.now())
        return try await passkeys.issueRegistration(for: user, isNew: true, settings: settings)
    }

    /// `/assertion/options`: for a name with passkeys only.
    public func assertionOptions(_ request: RequestRequest) async throws -> RequestOptionsResponse {
        guard let rawName = request.username, !rawName.isEmpty else { throw APIError.invalidRequest("username is required.") }
        let name = try UserName(rawName)
        guard let user = try await passkeys.store.user(nameKey: name.key),
              try await !passkeys.store.credentials(userHandle: user.handle).isEmpty
        else { throw APIError.invalidRequest("There is no user \(name.value) with a passkey.") }
        return try await passkeys.beginAuthentication(
            CeremonyOptionsRequest(userName: name.value),
            userVerification: try Self.userVerification(request.userVerification, default: passkeys.configuration.userVerification))
    }

    /// `/attestation/result` and `/assertion/result`: the JSON API's finalizes; the session
    /// they open is not handed out.
    public func attestationResult(body: [UInt8]) async throws {
        try Self.checkCredentialShape(body)
        _ = try await passkeys.finishRegistration(body: body)
    }

    public func assertionResult(body: [UInt8]) async throws {
        try Self.checkCredentialShape(body)
        _ = try await passkeys.finishAuthentication(body: body)
    }

    /// The profile's ServerPublicKeyCredential (§7.1.1 of the transport binding): `type` is
    /// `public-key` and `id` a non-empty base64url string, both present. The JSON API leaves
    /// them out for native clients; the conformance tools send them wrong or missing to see an
    /// error, and checking nothing that a step finds before the signature would let them pass.
    static func checkCredentialShape(_ body: [UInt8]) throws {
        guard case .object(let members)? = try? StrictJSON.parse(body) else { throw APIError.invalidRequest("The body must be one JSON object.") }
        guard case .string(let type)? = members["type"], type == "public-key" else {
            throw APIError.invalidRequest("type must be \"public-key\".")
        }
        guard case .string(let id)? = members["id"], !id.isEmpty, Base64URL.decodeStrict(id) != nil else {
            throw APIError.invalidRequest("id must be the credential's id in base64url.")
        }
    }

    static func userVerification(_ value: String?, default fallback: UserVerificationRequirement) throws -> UserVerificationRequirement {
        guard let value else { return fallback }
        guard let requirement = UserVerificationRequirement(rawValue: value) else {
            throw APIError.invalidRequest("userVerification must be required, preferred or discouraged.")
        }
        return requirement
    }

    static func attestation(_ value: String?) throws -> AttestationConveyancePreference {
        guard let value else { return .none }
        guard let preference = AttestationConveyancePreference(rawValue: value) else {
            throw APIError.invalidRequest("attestation must be none, indirect, direct or enterprise.")
        }
        return preference
    }

    /// residentKey wins over the older requireResidentKey (WebAuthn L3 §5.4.4); neither means
    /// discouraged.
    static func residentKey(_ selection: CreationRequest.Selection?) throws -> ResidentKeyRequirement {
        if let value = selection?.residentKey {
            guard let requirement = ResidentKeyRequirement(rawValue: value) else {
                throw APIError.invalidRequest("residentKey must be required, preferred or discouraged.")
            }
            return requirement
        }
        return selection?.requireResidentKey == true ? .required : .discouraged
    }
}
