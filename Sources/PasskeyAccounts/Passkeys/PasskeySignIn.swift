internal import PasskeyJSON
public import Foundation
public import PasskeyCore
public import PasskeyStorage
internal import PasskeyCrypto
internal import Synchronization
public import Logging
public import PasskeyTelemetry

/// The passkey ceremonies, free of HTTP: issue options and finish registrations and
/// sign-ins, with the invitations and recovery that lead to them and the account's own passkeys.
/// Sessions are `Sessions`'; what every use case shares is the `UseCaseContext`.
public final class PasskeySignIn: Sendable {
    let context: UseCaseContext
    public let sessions: Sessions
    let store: any PasskeyStore
    /// Ceremonies a minute per account (or unknown name): `--rate-limit-user`.
    let userLimiter: RateLimiter
    /// Imported public keys of recently used credentials.
    let keys = PublicKeyCache(capacity: 10_000)
    /// Seals a sign-in's ceremony into its challenge (nothing is stored at initialize).
    let seal: SealedCeremony

    public init(context: UseCaseContext, sessions: Sessions, store: any PasskeyStore) {
        self.context = context
        self.sessions = sessions
        self.store = store
        self.userLimiter = RateLimiter(perMinute: context.configuration.rateLimitPerUser)
        self.seal = SealedCeremony(serverSecret: context.serverSecret)
    }

    public var configuration: ServerConfiguration { context.configuration }
    public var rp: RelyingParty { context.rp }
    package var now: @Sendable () -> Date { context.now }
    var logger: Logger { context.logger }
    var metrics: PasskeyMetrics { context.metrics }
    /// Keys the pseudo-random allowCredentials for names that do not exist.
    var serverSecret: [UInt8] { context.serverSecret }

    /// A refused ceremony in the log: its code, and its reason with client text escaped.
    func logRefusal(_ kind: CeremonyKind, _ error: WebAuthnError) {
        logger.info("\(kind.rawValue) refused", metadata: ["code": "\(error.code.rawValue)", "reason": "\(LogText.escaped(error.reason))"])
    }

    /// Takes one request from the account's (or the unknown name's) bucket; 429 when empty.
    func limitUser(handle: [UInt8]?, nameKey: String?) throws {
        let key = handle.map { "user:" + Base64URL.encode($0) } ?? "name:" + (nameKey ?? "")
        if let retryAfter = userLimiter.take(key, now: now()) {
            throw APIError.rateLimited(retryAfter: retryAfter)
        }
    }

    // MARK: Registration

    /// `registration_initialize`: a new name starts a new account; an existing name is refused
    /// unless the caller is signed in as that user, who then adds one more passkey. A
    /// conditional creation (an automatic upgrade) is only for that signed-in case.
    public func beginRegistration(_ request: CeremonyOptionsRequest, session: SignedInUser?) async throws -> CreationOptionsResponse {
        if let invite = request.invite { return try await beginInvitedRegistration(invite: invite, request: request) }
        guard let rawName = request.userName else { throw APIError.invalidRequest("user_name is required.") }
        let name = try UserName(rawName)
        let displayName = try UserName.displayName(request.displayName, default: name)
        let conditional = try CeremonyOptionsChecks.checkMediation(request.mediation)
        let residentKey = try CeremonyOptionsChecks.checkResidentKey(request.residentKey, configured: configuration.residentKey)
        let hints = try CeremonyOptionsChecks.checkHints(request.hints)
        let existing = try await store.user(nameKey: name.key)
        try limitUser(handle: existing?.handle, nameKey: name.key)
        let user: UserRecord
        let isNew: Bool
        var recoverySession: [UInt8]?
        if let existing {
            guard let session, session.user.handle == existing.handle else {
                // With registration closed a taken name and a free one answer alike: the refusal
                // says nothing about which names exist.
                throw configuration.registration == .open ? APIError.userExists : APIError.registrationClosed
            }
            // Adding a passkey is a sensitive action: refused here, before any ceremony. A
            // recovery session is for exactly this, and the ceremony remembers it.
            try await sessions.requireRecentAuthentication(session)
            user = existing
            isNew = false
            if session.isRecovery { recoverySession = session.tokenHash }
        } else {
            try context.checkRegistrationOpen()
            // A conditional creation upgrades a signed-in account; it never opens one.
            guard !conditional else { throw APIError.unauthorized }
            user = UserRecord.newAccount(name, displayName: displayName, createdAt: now())
            isNew = true
        }
        return try await issueRegistration(for: user, isNew: isNew, settings: RegistrationSettings(
            userVerification: configuration.userVerification, attestation: configuration.attestationConveyance,
            residentKey: residentKey, attachment: configuration.authenticatorAttachment, conditional: conditional,
            hints: hints, prf: request.prf, recoverySession: recoverySession))
    }

    // MARK: Invitations (docs/contracts/accounts.md, "Account recovery")

    /// An invitation or reset link's token, as the page and the finalize look it up: 32 bytes,
    /// base64url; its hash of its own kind.
    static func invitationHash(_ token: String) -> [UInt8]? {
        guard let bytes = Base64URL.decodeStrict(token), bytes.count == 32 else { return nil }
        return invitationHash(bytes)
    }

    static func invitationHash(_ token: [UInt8]) -> [UInt8] { Digest.sha256.hash(Array("invite:".utf8) + token) }

    /// The live invitation a token names; `invalid_invite` otherwise (used, expired, unknown).
    public func invitation(token: String) async throws -> InvitationRecord {
        guard let hash = Self.invitationHash(token), let invitation = try await store.invitation(tokenHash: hash, now: now()) else {
            throw APIError.invalidInvite
        }
        return invitation
    }

    /// `registration_initialize {"invite": …}`: registers a passkey for the invitation's
    /// account, new or existing (a reset), whatever `--registration` says and without a session;
    /// the finalize spends the invitation, and a reset ends the account's other sessions.
    func beginInvitedRegistration(invite: String, request: CeremonyOptionsRequest) async throws -> CreationOptionsResponse {
        let invitation = try await invitation(token: invite)
        try limitUser(handle: invitation.userHandle, nameKey: invitation.nameKey)
        let user: UserRecord
        let isNew: Bool
        if let handle = invitation.userHandle {
            guard let existing = try await store.user(handle: handle) else { throw APIError.invalidInvite }
            user = existing
            isNew = false
        } else if invitation.namedByRegistrant {
            // The first admin's setup link: dead once the group has a member, however it got one.
            try await checkSetupLinkAlive(invitation)
            let name = try UserName(request.userName ?? "")
            guard try await store.user(nameKey: name.key) == nil else { throw APIError.userExists }
            let displayName = try UserName.displayName(request.displayName, default: name)
            user = UserRecord.newAccount(name, displayName: displayName, createdAt: now())
            isNew = true
        } else {
            guard try await store.user(nameKey: invitation.nameKey) == nil else { throw APIError.invalidInvite }
            let name = try UserName(invitation.userName)
            // The registration's display name, else the one the invitation was made with.
            let displayName = try UserName.displayName(request.displayName ?? invitation.displayName, default: name)
            user = UserRecord.newAccount(name, displayName: displayName, createdAt: now())
            isNew = true
        }
        return try await issueRegistration(for: user, isNew: isNew, settings: RegistrationSettings(
            userVerification: configuration.userVerification, attestation: configuration.attestationConveyance,
            residentKey: try CeremonyOptionsChecks.checkResidentKey(request.residentKey, configured: configuration.residentKey),
            attachment: configuration.authenticatorAttachment, hints: try CeremonyOptionsChecks.checkHints(request.hints), prf: request.prf,
            invitation: Self.invitationHash(invite)))
    }

    /// A setup link lives while each group it joins (the admin group) has no member.
    func checkSetupLinkAlive(_ invitation: InvitationRecord) async throws {
        for group in invitation.groups {
            guard try await store.users(nameKeyPrefix: nil, groupKey: group.nameKey, afterNameKey: nil, limit: 1).isEmpty else {
                throw APIError.invalidInvite
            }
        }
    }

    /// The live invitation a token names, as the page shows it; a setup link whose group has a
    /// member meanwhile is `invalid_invite`.
    public func invitationForPage(token: String) async throws -> InvitationRecord {
        let found = try await invitation(token: token)
        if found.namedByRegistrant { try await checkSetupLinkAlive(found) }
        return found
    }

    /// `registration_finalize`: decode (malformed → invalid_request, nothing spent), consume
    /// the challenge, run §7.1, then store user + credential + session.
    /// `presenting`: the session token the request carries (a recovery session's finalize
    /// answers that same token, now a normal session).
    public func finishRegistration(body: [UInt8], presenting: String? = nil) async throws -> (CeremonyResult, token: String) {
        try await context.counted("registration") { try await self.registration(body: body, presenting: presenting) }
    }

    public func finishAuthentication(body: [UInt8]) async throws -> (CeremonyResult, token: String) {
        try await context.counted("authentication") { try await self.authentication(body: body) }
    }

    private func registration(body: [UInt8], presenting: String?) async throws -> (CeremonyResult, token: String) {
        let response: RegistrationResponse
        do {
            response = try RegistrationResponse(json: body, authenticationEndpoint: "POST /authentication_finalize")
            try RegistrationVerifier.checkWellFormed(response)
        } catch let error as WebAuthnError {
            logRefusal(.registration, error)
            throw APIError(error)
        }
        let ceremony = try await pendingCeremony(response.clientData, kind: .registration)
        guard let userHandle = ceremony.userHandle, let userName = ceremony.userName else {
            throw APIError.internalError
        }
        let expectation = RegistrationExpectation(
            challenge: ceremony.challenge,
            userVerification: UserVerificationRequirement(rawValue: ceremony.userVerification) ?? .required,
            algorithms: ceremony.algorithms, conditional: ceremony.conditional)
        let verified: VerifiedRegistration
        do {
            verified = try RegistrationVerifier(rp: rp).verify(response, expecting: expectation, now: now())
        } catch let error as WebAuthnError {
            logRefusal(.registration, error)
            // A refused ceremony spends its challenge, in one write.
            try await store.spendCeremony(challenge: ceremony.challenge, kind: .registration)
            throw APIError(error)
        }
        let created = now()
        let credential = CredentialRecord(
            id: verified.credentialID, userHandle: userHandle, publicKey: verified.publicKey.bytes,
            algorithm: verified.publicKey.algorithmIdentifier, signCount: verified.signCount,
            transports: verified.transports, backupEligible: verified.backupEligible, backupState: verified.backupState,
            uvInitialized: verified.userVerified, aaguid: verified.aaguid, attestationFormat: verified.format,
            attestationType: verified.attestationType.rawValue, attestationTrusted: verified.attestationTrusted,
            authenticatorName: verified.authenticatorName, name: Self.defaultCredentialName(verified),
            createdAt: created, lastUsedAt: nil, possiblyCloned: false,
            discoverable: Self.isDiscoverable(reported: verified.residentKey, requested: ceremony.residentKey),
            prfEnabled: verified.prfEnabled)
        // A ceremony issued before the server was restarted with registration closed opens nothing
        // (an invitation opens accounts whatever the mode).
        if ceremony.isNewUser, ceremony.invitationHash == nil { try context.checkRegistrationOpen() }
        let newUser = ceremony.isNewUser
            ? UserRecord(handle: userHandle, name: userName, nameKey: try UserName(userName).key,
                         displayName: ceremony.displayName ?? userName, createdAt: created)
            : nil
        var (token, session) = sessions.newSession(userHandle: userHandle, credentialID: verified.credentialID, userVerified: verified.userVerified)
        // A recovery session's registration: the same token becomes a normal session, and every
        // other session of the account ends (docs/contracts/accounts.md, "Account recovery").
        let recovering = ceremony.sessionHash != nil
        if let recoveryHash = ceremony.sessionHash {
            guard let presented = presenting, let bytes = Base64URL.decodeStrict(presented), bytes.count == 32,
                  constantTimeEquals(Digest.sha256.hash(bytes), recoveryHash),
                  let live = try await store.session(tokenHash: recoveryHash, now: created), live.isRecovery, live.userHandle == userHandle
            else {
                try await store.spendCeremony(challenge: ceremony.challenge, kind: .registration)
                throw APIError.unauthorized
            }
            token = presented
            session.tokenHash = recoveryHash
        }
        // Spend the challenge, store the account and open the session: one atomic, durable write.
        let event = self.context.event(
            userHandle, "registration", at: created,
            ["credential": Base64URL.encode(verified.credentialID), "new_account": newUser == nil ? "false" : "true",
             "name": credential.name].merging(recovering ? ["recovery": "true"] : [:]) { $1 })
        // Taking an account back (a recovery, a reset link) ends every other session and revokes
        // every grant in the registration's write, and tells the applications.
        let takingBack = recovering || (ceremony.invitationHash != nil && newUser == nil)
        let complete = { [store] in
            try await store.completeRegistration(
                challenge: ceremony.challenge, now: created, credential: credential, newUser: newUser, session: session,
                invitation: ceremony.invitationHash, endingOtherSessions: takingBack, event: event)
        }
        let outcome = takingBack
            ? try await AccountSessionEnding(context: context, sessions: sessions, store: store).ending(userHandle: userHandle, keeping: session.tokenHash, complete)
            : try await complete()
        switch outcome {
        case .registered: break
        case .invitationGone: throw APIError.invalidInvite
        case .ceremonyGone: throw APIError.unknownChallenge
        case .userExists: throw APIError.userExists
        case .credentialExists: throw APIError.credentialExists
        }
        return (CeremonyResult(userName: userName, credentialId: Base64URL.encode(verified.credentialID), session: token), token)
    }

    /// Whether the new credential is discoverable: what credProps `rk` reports, else what the
    /// options demanded (an authenticator that cannot store it fails a `required` creation).
    static func isDiscoverable(reported: Bool?, requested: String) -> Bool {
        reported ?? (requested == ResidentKeyRequirement.required.rawValue)
    }

    /// The authenticator model's name from the metadata when known (trimmed to the 64
    /// characters a label may have), else a generic one.
    static func defaultCredentialName(_ verified: VerifiedRegistration) -> String {
        if let model = verified.authenticatorName?.trimmingCharacters(in: .whitespacesAndNewlines), !model.isEmpty,
           !model.unicodeScalars.contains(where: { UserName.isControl($0) || UserName.isInvisible($0) }) {
            var label = String.UnicodeScalarView(model.unicodeScalars.prefix(UserName.maximumLength))
            while String(label).utf8.count > UserName.maximumBytes { label.removeLast() }
            return String(label)
        }
        return verified.backupEligible ? "Synced passkey" : "Passkey"
    }

    // MARK: Authentication

    /// `authentication_initialize`: with a name, allowCredentials lists that user's passkeys;
    /// for a name that does not exist, a stable pseudo-random list derived from the server
    /// secret, so the answer does not reveal whether the account exists.
    public func beginAuthentication(_ request: CeremonyOptionsRequest) async throws -> RequestOptionsResponse {
        try await beginAuthentication(request, userVerification: configuration.userVerification)
    }

    func beginAuthentication(
        _ request: CeremonyOptionsRequest, userVerification: UserVerificationRequirement
    ) async throws -> RequestOptionsResponse {
        let rawName = request.userName
        let named = !(rawName ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        let hints = try CeremonyOptionsChecks.checkHints(request.hints)
        guard request.mediation == nil else { throw APIError.invalidRequest("mediation is a registration option.") }
        guard request.residentKey == nil else { throw APIError.invalidRequest("resident_key is a registration option.") }
        try CeremonyOptionsChecks.checkPRFNeedsName(request.prf, named: named)
        var userHandle: [UInt8]?
        var allow: [CreationOptionsResponse.Options.Descriptor]?
        if let rawName, named {
            let name = try UserName(rawName)
            let user = try await store.user(nameKey: name.key)
            try limitUser(handle: user?.handle, nameKey: name.key)
            let credentials = if let user { try await store.credentials(userHandle: user.handle) } else { [CredentialRecord]() }
            if let user, !credentials.isEmpty {
                userHandle = user.handle
                allow = credentials.map { .init(id: Base64URL.encode($0.id), transports: Self.transportList($0.transports)) }
            } else {
                // No such account, or one without passkeys: a list that looks like a real one, and
                // a handle as long as a real one in the sealed challenge.
                userHandle = user?.handle ?? DecoyCredentials.handle(secret: serverSecret, nameKey: name.key)
                allow = DecoyCredentials.list(secret: serverSecret, nameKey: name.key).map {
                    .init(id: Base64URL.encode($0.id), transports: Self.transportList($0.transports))
                }
            }
        }
        let created = now()
        let challenge = try sealed(CeremonyRecord(
            challenge: [], kind: .authentication, userHandle: userHandle, userName: nil, displayName: nil,
            isNewUser: false, userVerification: userVerification.rawValue,
            allowCredentialIDs: (allow ?? []).compactMap { Base64URL.decode($0.id) }, algorithms: [],
            createdAt: created, expiresAt: created.addingTimeInterval(configuration.challengeTTL)))
        return RequestOptionsResponse(publicKey: .init(
            challenge: Base64URL.encode(challenge), rpId: rp.id, timeout: Int(configuration.challengeTTL * 1000),
            userVerification: userVerification.rawValue, allowCredentials: allow, hints: hints,
            extensions: prfExtension(requested: request.prf, allow: allow ?? [])))
    }

}

/// A request's session, resolved from the cookie or the Bearer token.
public struct SignedInUser: Sendable {
    public let user: UserRecord
    let tokenHash: [UInt8]
    /// The session record; nil only for the Apple link confirmation's stand-in.
    public var session: SessionRecord? = nil

    /// The session's public name (`GET /me/sessions`' `id`, the OpenID `sid`).
    public var sessionID: String { Sessions.sessionID(tokenHash) }

    /// A recovery session: it may only register a passkey (docs/contracts/accounts.md).
    public var isRecovery: Bool { session?.isRecovery ?? false }
}
