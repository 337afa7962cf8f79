internal import PasskeyJSON
internal import Foundation
internal import PasskeyCore
internal import PasskeyStorage
internal import PasskeyCrypto

/// The step-up (docs/contracts/accounts.md, "Recent authentication for sensitive actions").
extension PasskeySignIn {
    // MARK: Step-up (docs/contracts/accounts.md, "Recent authentication for sensitive actions")

    /// `authentication_initialize` with `{"reauthenticate": true}`: a ceremony for the signed-in
    /// user's own passkeys, with user verification required, whose finalize renews this
    /// session's authentication time instead of opening another.
    public func beginReauthentication(session: SignedInUser?) async throws -> RequestOptionsResponse {
        guard let session else { throw APIError.unauthorized }
        try limitUser(handle: session.user.handle, nameKey: nil)
        let credentials = try await store.credentials(userHandle: session.user.handle)
        guard !credentials.isEmpty else {
            throw APIError.invalidRequest("This account has no passkey to confirm with.")
        }
        let allow = credentials.map { CreationOptionsResponse.Options.Descriptor(id: Base64URL.encode($0.id), transports: Self.transportList($0.transports)) }
        let challenge = SecureRandom.bytes(32)
        let created = now()
        try await store.insertCeremony(CeremonyRecord(
            challenge: challenge, kind: .authentication, userHandle: session.user.handle, userName: nil, displayName: nil,
            isNewUser: false, userVerification: UserVerificationRequirement.required.rawValue, allowCredentialIDs: credentials.map(\.id),
            algorithms: [], createdAt: created, expiresAt: created.addingTimeInterval(configuration.challengeTTL),
            sessionHash: session.tokenHash))
        return RequestOptionsResponse(publicKey: .init(
            challenge: Base64URL.encode(challenge), rpId: rp.id, timeout: Int(configuration.challengeTTL * 1000),
            userVerification: UserVerificationRequirement.required.rawValue, allowCredentials: allow, hints: nil, extensions: nil))
    }

    /// When the session's user last passed a user-verified passkey ceremony in it: a step-up's
    /// time, else the opening ceremony's when it was a passkey with user verification. A session
    /// opened another way (Apple, push, Messages for Business) counts from its opening only for
    /// an account without passkeys; with one, it must step up with it.
    func verifiedAt(_ session: SignedInUser) async throws -> Date? {
        guard let record = session.session else { return nil }
        if let verifiedAt = record.verifiedAt { return verifiedAt }
        if record.credentialID != nil { return record.userVerified == true ? record.createdAt : nil }
        return try await store.credentials(userHandle: session.user.handle).isEmpty ? record.createdAt : nil
    }

    /// The sensitive actions' check: a user-verified passkey ceremony in this session within
    /// `--reauth-window`, else 401 `reauthentication_required`.
    public func requireRecentAuthentication(_ session: SignedInUser) async throws {
        // A recovery session may do one thing, register a passkey, and was opened for it.
        if session.isRecovery { return }
        guard let at = try await verifiedAt(session), now().timeIntervalSince(at) <= configuration.reauthWindow else {
            throw APIError.reauthenticationRequired
        }
    }

}
