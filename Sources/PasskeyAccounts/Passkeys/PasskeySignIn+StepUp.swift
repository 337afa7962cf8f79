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
    /// session's authentication time instead of opening another. With `acr` (what a
    /// forward-auth rule asks, `phr` or `phrh`), only the passkeys of that class are offered.
    public func beginReauthentication(session: SignedInUser?, acr: String? = nil) async throws -> RequestOptionsResponse {
        guard let session else { throw APIError.unauthorized }
        if let acr, !ClientRegistry.authenticationClasses.contains(acr) { throw APIError.invalidRequest("acr must be phr or phrh.") }
        try limitUser(handle: session.user.handle, nameKey: nil)
        let credentials = try await store.credentials(userHandle: session.user.handle).filter { credential in
            acr.map { OpenIDProvider.satisfies(OpenIDProvider.acr(credential), required: $0) } ?? true
        }
        guard !credentials.isEmpty else {
            throw APIError.invalidRequest(acr == "phrh"
                ? "This account has no device-bound passkey with a trusted attestation to confirm with."
                : "This account has no passkey to confirm with.")
        }
        let allow = credentials.map { CreationOptionsResponse.Options.Descriptor(id: Base64URL.encode($0.id), transports: Self.transportList($0.transports)) }
        let created = now()
        let challenge = try sealed(CeremonyRecord(
            challenge: [], kind: .authentication, userHandle: session.user.handle, userName: nil, displayName: nil,
            isNewUser: false, userVerification: UserVerificationRequirement.required.rawValue, allowCredentialIDs: credentials.map(\.id),
            algorithms: [], createdAt: created, expiresAt: created.addingTimeInterval(configuration.challengeTTL),
            sessionHash: session.tokenHash))
        return RequestOptionsResponse(publicKey: .init(
            challenge: Base64URL.encode(challenge), rpId: rp.id, timeout: Int(configuration.challengeTTL * 1000),
            userVerification: UserVerificationRequirement.required.rawValue, allowCredentials: allow, hints: nil, extensions: nil))
    }
}
