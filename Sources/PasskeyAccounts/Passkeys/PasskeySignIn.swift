internal import PasskeyJSON
public import Foundation
public import PasskeyCore
public import PasskeyStorage
internal import PasskeyCrypto
internal import Synchronization
public import Logging
public import PasskeyTelemetry

/// The relying party's operations, free of HTTP: issue options, finish ceremonies, manage
/// sessions. Handlers translate HTTP to these calls and back.
public final class PasskeySignIn: Sendable {
    public let configuration: ServerConfiguration
    /// The relying party; its origins change once, when the default origin learns the port
    /// the server really bound (`--port 0`).
    private let relyingParty: Mutex<RelyingParty>
    public var rp: RelyingParty { relyingParty.withLock { $0 } }
    let store: any PasskeyStore
    /// Keys the pseudo-random allowCredentials for names that do not exist.
    let serverSecret: [UInt8]
    package let now: @Sendable () -> Date
    let logger: Logger
    /// Ceremonies a minute per account (or unknown name): `--rate-limit-user`.
    let userLimiter: RateLimiter
    /// Imported public keys of recently used credentials.
    let keys = PublicKeyCache(capacity: 10_000)
    let metrics: PasskeyMetrics
    /// Told of every session that ends by the account's own hand.
    let sessionEnds = Feed<EndedSessions>(skipping: { $0.tokenHashes.isEmpty })
    /// Told of every recovery that starts to wait.
    let recoveryStarts = Feed<RecoveryRequestRecord>()
    /// Sessions whose `last_seen_at` is being written now (at most one write each at a time).
    let sessionsBeingTouched = Mutex<Set<[UInt8]>>([])

    public init(
        configuration: ServerConfiguration, rp: RelyingParty, store: any PasskeyStore, serverSecret: [UInt8],
        logger: Logger, metrics: PasskeyMetrics = .discarding, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.metrics = metrics
        self.configuration = configuration
        self.relyingParty = Mutex(rp)
        self.store = store
        self.serverSecret = serverSecret
        self.logger = logger
        self.now = now
        self.userLimiter = RateLimiter(perMinute: configuration.rateLimitPerUser)
    }

    /// A refused ceremony in the log: its code, and its reason with client text escaped.
    private func logRefusal(_ kind: CeremonyKind, _ error: WebAuthnError) {
        logger.info("\(kind.rawValue) refused", metadata: ["code": "\(error.code.rawValue)", "reason": "\(LogText.escaped(error.reason))"])
    }

    /// Takes one request from the account's (or the unknown name's) bucket; 429 when empty.
    func limitUser(handle: [UInt8]?, nameKey: String?) throws {
        let key = handle.map { "user:" + Base64URL.encode($0) } ?? "name:" + (nameKey ?? "")
        if let retryAfter = userLimiter.take(key, now: now()) {
            throw APIError.rateLimited(retryAfter: retryAfter)
        }
    }

    /// `observer` hears of sessions that end (sign-out, everywhere, with their passkey).
    public func onSessionsEnded(_ observer: @escaping @Sendable (EndedSessions) -> Void) {
        sessionEnds.add(observer)
    }

    /// With no configured origins the default is http://localhost:PORT; this sets PORT to the
    /// port actually bound.
    public func adoptListeningPort(_ port: Int) throws {
        guard configuration.origins.isEmpty else { return }
        try relyingParty.withLock { try $0.setOrigins(configuration.allowedOrigins(listeningPort: port)) }
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
            try await requireRecentAuthentication(session)
            user = existing
            isNew = false
            if session.isRecovery { recoverySession = session.tokenHash }
        } else {
            try checkRegistrationOpen()
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

    /// Whether an operator disabled the account: it signs in by no method (docs/contracts/accounts.md).
    func isDisabled(_ userHandle: [UInt8]) async throws -> Bool {
        try await store.user(handle: userHandle)?.disabled ?? false
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

    /// `--registration closed`: no new account, by any way of signing up.
    func checkRegistrationOpen() throws {
        guard configuration.registration == .open else { throw APIError.registrationClosed }
    }

    /// `registration_finalize`: decode (malformed → invalid_request, nothing spent), consume
    /// the challenge, run §7.1, then store user + credential + session.
    /// `presenting`: the session token the request carries (a recovery session's finalize
    /// answers that same token, now a normal session).
    public func finishRegistration(body: [UInt8], presenting: String? = nil) async throws -> (CeremonyResult, token: String) {
        try await counted("registration") { try await self.registration(body: body, presenting: presenting) }
    }

    public func finishAuthentication(body: [UInt8]) async throws -> (CeremonyResult, token: String) {
        try await counted("authentication") { try await self.authentication(body: body) }
    }

    /// Counts the finished ceremony in `passkey_ceremonies_total`: ok, or refused with the
    /// contract's error code (503 `unavailable` and 500 `internal_error` included).
    func counted<T>(_ ceremony: String, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            metrics.ceremony(ceremony, .ok)
            return value
        } catch {
            metrics.ceremony(ceremony, .refused, error: APIError.code(for: error))
            throw error
        }
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
        if ceremony.isNewUser, ceremony.invitationHash == nil { try checkRegistrationOpen() }
        let newUser = ceremony.isNewUser
            ? UserRecord(handle: userHandle, name: userName, nameKey: try UserName(userName).key,
                         displayName: ceremony.displayName ?? userName, createdAt: created)
            : nil
        var (token, session) = newSession(userHandle: userHandle, credentialID: verified.credentialID, userVerified: verified.userVerified)
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
        let event = self.event(
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
            ? try await AccountSessionEnding(passkeys: self).ending(userHandle: userHandle, keeping: session.tokenHash, complete)
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
                // No such account, or one without passkeys: a list that looks like a real one.
                userHandle = user?.handle
                allow = DecoyCredentials.list(secret: serverSecret, nameKey: name.key).map {
                    .init(id: Base64URL.encode($0.id), transports: Self.transportList($0.transports))
                }
            }
        }
        let challenge = SecureRandom.bytes(32)
        let created = now()
        try await store.insertCeremony(CeremonyRecord(
            challenge: challenge, kind: .authentication, userHandle: userHandle, userName: nil, displayName: nil,
            isNewUser: false, userVerification: userVerification.rawValue,
            allowCredentialIDs: (allow ?? []).compactMap { Base64URL.decode($0.id) }, algorithms: [],
            createdAt: created, expiresAt: created.addingTimeInterval(configuration.challengeTTL)))
        return RequestOptionsResponse(publicKey: .init(
            challenge: Base64URL.encode(challenge), rpId: rp.id, timeout: Int(configuration.challengeTTL * 1000),
            userVerification: userVerification.rawValue, allowCredentials: allow, hints: hints,
            extensions: prfExtension(requested: request.prf, allow: allow ?? [])))
    }

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
        if let authTime = record.authTime { return authTime }
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

    /// Transports as browsers report them (`getTransports()`: sorted, no repeats); nil when none.
    static func transportList(_ transports: [String]) -> [String]? {
        let sorted = Array(Set(transports)).sorted()
        return sorted.isEmpty ? nil : sorted
    }

    /// `authentication_finalize`: decode, consume the challenge, find the credential, run §7.2,
    /// then update the counter atomically and start a session. A refused counter marks the
    /// credential possibly cloned and changes nothing else.
    private func authentication(body: [UInt8]) async throws -> (CeremonyResult, token: String) {
        let response: AuthenticationResponse
        do {
            response = try AuthenticationResponse(json: body, registrationEndpoint: "POST /registration_finalize")
        } catch let error as WebAuthnError {
            throw APIError(error)
        }
        // One read for the credential, its account's flag and the pending ceremony (on
        // PostgreSQL one round trip instead of three).
        let challenge = Self.challengeBytes(response.clientData)
        let context = try await store.authenticationContext(credentialID: response.credentialID, challenge: challenge ?? [], now: now())
        let found = context.credential
        // Malformed before anything is spent: the flags, and BE against the stored credential
        // (§7.2 steps 18–19 are `invalid_request` in the contract).
        do {
            try AuthenticationVerifier.checkWellFormed(response, storedBackupEligible: found?.backupEligible)
        } catch let error as WebAuthnError {
            logRefusal(.authentication, error)
            throw APIError(error)
        }
        if let found { try limitUser(handle: found.userHandle, nameKey: nil) }
        guard challenge != nil, let ceremony = context.ceremony else { throw APIError.unknownChallenge }
        guard let stored = found else {
            try await store.spendCeremony(challenge: ceremony.challenge, kind: .authentication)
            throw APIError.unknownCredential
        }
        let key: COSEKey
        do { key = try keys.key(for: stored) } catch {
            logger.error("stored credential key unreadable", metadata: ["error": "\(error)"])
            throw APIError.internalError
        }
        let expectation = AuthenticationExpectation(
            challenge: ceremony.challenge,
            userVerification: UserVerificationRequirement(rawValue: ceremony.userVerification) ?? .required,
            allowCredentialIDs: ceremony.allowCredentialIDs,
            identifiedUserHandle: ceremony.userHandle)
        let state = CredentialState(
            id: stored.id, userHandle: stored.userHandle, publicKey: key, signCount: stored.signCount,
            backupEligible: stored.backupEligible)
        let verified: VerifiedAuthentication
        do {
            verified = try AuthenticationVerifier(rp: rp).verify(response, expecting: expectation, credential: state)
        } catch let error as WebAuthnError {
            logRefusal(.authentication, error)
            // Spend the challenge, mark a regressed counter and record the refusal, in one write.
            let regressed = error.code == .counterRegression
            let event = self.event(
                stored.userHandle, regressed ? "counter_regression" : "sign_in_refused", at: now(),
                ["credential": Base64URL.encode(stored.id), "error": error.code.rawValue])
            try await store.spendCeremony(
                challenge: ceremony.challenge, kind: .authentication, markCloned: regressed ? stored.id : nil, event: event)
            throw APIError(error)
        }
        // A disabled account: the assertion verified, and still no session (docs/contracts/accounts.md).
        if context.ownerDisabled {
            try await store.spendCeremony(
                challenge: ceremony.challenge, kind: .authentication, markCloned: nil,
                event: event(stored.userHandle, "sign_in_refused", at: now(), ["credential": Base64URL.encode(stored.id), "error": "account_disabled"]))
            throw APIError.accountDisabled
        }
        // §7.2 step 25, atomically with spending the challenge and opening the session: the
        // counter is compared again in the same statement, so a concurrent assertion with the
        // same count cannot also pass.
        var (token, session) = newSession(userHandle: stored.userHandle, credentialID: stored.id, userVerified: verified.userVerified)
        let at = now()
        let credentialID = Base64URL.encode(stored.id)
        // A step-up renews the session that asked for it, and opens none.
        let renewing = ceremony.sessionHash != nil
        if let sessionHash = ceremony.sessionHash {
            token = ""
            session = SessionRecord(
                tokenHash: sessionHash, userHandle: stored.userHandle, createdAt: at, expiresAt: at, userVerified: verified.userVerified,
                authTime: at)
        }
        switch try await store.completeAuthentication(
            challenge: ceremony.challenge, now: at, credentialID: stored.id, signCount: verified.signCount,
            backupState: verified.backupState, userVerified: verified.userVerified, session: session, renewing: renewing,
            signedIn: event(
                stored.userHandle, renewing ? "reauthenticated" : "sign_in", at: at, ["method": "passkey", "credential": credentialID]),
            regression: event(stored.userHandle, "counter_regression", at: at, ["credential": credentialID, "error": "counter_regression"]))
        {
        case .signedIn(let userName):
            return (CeremonyResult(userName: userName, credentialId: Base64URL.encode(stored.id), session: token), token)
        case .ceremonyGone:
            throw APIError.unknownChallenge
        case .counterRegression:
            throw APIError(WebAuthnError(.counterRegression, "sign count did not increase over a concurrent assertion"))
        case .sessionGone:
            // The session that asked for the step-up ended meanwhile (signed out, ended
            // elsewhere, the account taken back): nothing is renewed, and the caller signs in anew.
            throw APIError.unauthorized
        }
    }

    /// The pending ceremony named by the challenge inside clientDataJSON (a read; the finishing
    /// write spends it, or the refusal does). A challenge that was never issued, was already
    /// used, expired, or belongs to the other kind of ceremony is `unknown_challenge`.
    private func pendingCeremony(_ clientData: CollectedClientData, kind: CeremonyKind) async throws -> CeremonyRecord {
        guard let challenge = Self.challengeBytes(clientData),
              let ceremony = try await store.ceremony(challenge: challenge, kind: kind, now: now())
        else { throw APIError.unknownChallenge }
        return ceremony
    }

    /// The challenge clientDataJSON names, when it can be one this server issued (base64url, at
    /// least 16 bytes); nil is `unknown_challenge`.
    static func challengeBytes(_ clientData: CollectedClientData) -> [UInt8]? {
        guard let challenge = Base64URL.decode(clientData.challenge), challenge.count >= 16 else { return nil }
        return challenge
    }

    /// `GET /healthz`: the database answers (the sweep touches it), and the metadata BLOB's
    /// state, stale once the day after its nextUpdate has begun.
    public func health() async throws -> HealthResponse {
        // A read, not a write: probes come every few seconds, and a sweep here would fsync each
        // time. The database answering is what a 200 promises; SweeperService does the sweeping.
        _ = try await store.schemaVersion
        let stale = reportMetadataStaleness()
        let apple = configuration.signInWithAppleEnabled
        let registration = configuration.registration.rawValue
        guard let blob = rp.metadata else {
            return HealthResponse(signInWithApple: apple, registration: registration, recoveryCodes: configuration.recoveryCodes, metadata: .init(loaded: false))
        }
        return HealthResponse(
            signInWithApple: apple, registration: registration, recoveryCodes: configuration.recoveryCodes,
            metadata: .init(loaded: true, number: blob.number, entries: blob.entries.count, nextUpdate: blob.nextUpdateText, stale: stale))
    }

    /// Whether the loaded metadata BLOB is past its nextUpdate now (false without one), also
    /// reported as `passkey_mds_blob_stale`: at start-up, by `/healthz` and by each sweep.
    @discardableResult public func reportMetadataStaleness() -> Bool {
        let stale = rp.metadata?.isStale(at: now()) ?? false
        metrics.metadataStale(stale)
        return stale
    }

    /// Expired ceremonies and sessions, and events past the retention period.
    public func sweep() async throws -> (ceremonies: Int, sessions: Int, events: Int) {
        let now = now()
        let swept = try await store.sweepExpired(now: now)
        let events = try await store.deleteEvents(olderThan: now.addingTimeInterval(-configuration.auditRetention))
        return (swept.ceremonies, swept.sessions, events)
    }

    /// ISO 8601 in UTC, e.g. 2026-11-21T09:30:00Z.
    public static func timestamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}

/// A request's session, resolved from the cookie or the Bearer token.
public struct SignedInUser: Sendable {
    public let user: UserRecord
    let tokenHash: [UInt8]
    /// The session record; nil only for the Apple link confirmation's stand-in.
    public var session: SessionRecord? = nil

    /// The session's public name (`GET /me/sessions`' `id`, the OpenID `sid`).
    public var sessionID: String { PasskeySignIn.sessionID(tokenHash) }

    /// A recovery session: it may only register a passkey (docs/contracts/accounts.md).
    public var isRecovery: Bool { session?.isRecovery ?? false }
}
