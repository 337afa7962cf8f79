internal import PasskeyJSON
internal import Foundation
public import PasskeyCore
public import PasskeyStorage
internal import PasskeyCrypto

/// What one registration's options ask of the authenticator; the ceremony remembers what its
/// finalize must check (user verification, a conditional creation, the residentKey asked for).
struct RegistrationSettings {
    var userVerification: UserVerificationRequirement
    var attestation: AttestationConveyancePreference
    var residentKey: ResidentKeyRequirement
    var attachment: AuthenticatorAttachment?
    var conditional = false
    var hints: [String]?
    var prf = false
    /// A registration through an invitation or reset link: its token hash.
    var invitation: [UInt8]?
    /// A registration in a recovery session: that session's token hash.
    var recoverySession: [UInt8]?
}

extension PasskeySignIn {
    /// Stores the pending registration of `user` (new, or adding a passkey) and returns its
    /// options: excludeCredentials lists the passkeys it has.
    func issueRegistration(for user: UserRecord, isNew: Bool, settings: RegistrationSettings) async throws -> CreationOptionsResponse {
        let existingCredentials = isNew ? [] : try await store.credentials(userHandle: user.handle)
        let created = now()
        let challenge = CeremonyChallenge.make(at: created)
        let algorithms = rp.algorithms.map(\.rawValue)
        try await store.insertCeremony(CeremonyRecord(
            challenge: challenge, kind: .registration, userHandle: user.handle, userName: user.name,
            displayName: user.displayName, isNewUser: isNew, userVerification: settings.userVerification.rawValue,
            allowCredentialIDs: [], algorithms: algorithms, conditional: settings.conditional,
            residentKey: settings.residentKey.rawValue,
            createdAt: created, expiresAt: created.addingTimeInterval(configuration.challengeTTL), sessionHash: settings.recoverySession,
            invitationHash: settings.invitation))
        typealias Options = CreationOptionsResponse.Options
        return CreationOptionsResponse(publicKey: Options(
            rp: .init(id: rp.id, name: rp.name),
            user: .init(id: Base64URL.encode(user.handle), name: user.name, displayName: user.displayName),
            challenge: Base64URL.encode(challenge),
            pubKeyCredParams: algorithms.map { Options.Parameters(alg: $0) },
            timeout: Int(configuration.challengeTTL * 1000),
            excludeCredentials: existingCredentials.map {
                Options.Descriptor(id: Base64URL.encode($0.id), transports: Self.transportList($0.transports))
            },
            authenticatorSelection: .init(
                residentKey: settings.residentKey.rawValue, requireResidentKey: settings.residentKey == .required,
                userVerification: settings.userVerification.rawValue, authenticatorAttachment: settings.attachment?.rawValue),
            hints: settings.hints,
            attestation: settings.attestation.rawValue,
            extensions: .init(credProps: true, prf: settings.prf ? PRFInputs() : nil)))
    }

    /// The `prf` inputs of a sign-in: one salt per listed credential (`evalByCredential`), the
    /// decoys of an unknown name included, so the answer looks the same.
    func prfExtension(requested: Bool, allow: [CreationOptionsResponse.Options.Descriptor]) -> RequestOptionsResponse.Extensions? {
        guard requested else { return nil }
        var salts: [String: PRFInputs.Values] = [:]
        for descriptor in allow {
            guard let id = Base64URL.decode(descriptor.id) else { continue }
            salts[descriptor.id] = .init(first: Base64URL.encode(PRFSalts.salt(secret: serverSecret, credentialID: id)))
        }
        return .init(prf: PRFInputs(evalByCredential: salts))
    }
}
