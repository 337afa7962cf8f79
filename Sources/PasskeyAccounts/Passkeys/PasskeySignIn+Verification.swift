internal import PasskeyJSON
internal import Foundation
internal import PasskeyCore
internal import PasskeyStorage
internal import Logging

/// A sign-in's verification: the pending ceremony a response names, and the WebAuthn checks
/// an assertion goes through (§7.2) before the store writes it. The first-party flow's
/// assertions (`AuthorizationChallenge`) are these.
extension PasskeySignIn: PasskeyAssertions {
    /// Transports as browsers report them (`getTransports()`: sorted, no repeats); nil when none.
    static func transportList(_ transports: [String]) -> [String]? {
        let sorted = Array(Set(transports)).sorted()
        return sorted.isEmpty ? nil : sorted
    }

    /// `authentication_finalize`: decode, open the sealed ceremony, find the credential, run
    /// §7.2, then spend the challenge, update the counter and start a session atomically. A
    /// refused counter marks the credential possibly cloned and changes nothing else.
    func authentication(body: [UInt8]) async throws -> (CeremonyResult, token: String) {
        let response: AuthenticationResponse
        do {
            response = try AuthenticationResponse(json: body, registrationEndpoint: "POST /registration_finalize")
        } catch let error as WebAuthnError {
            throw APIError(error)
        }
        // The ceremony is the one its challenge carries, sealed; one read for the credential and
        // its account's flag (on PostgreSQL one round trip).
        let ceremony = openedCeremony(response.clientData)
        let context = try await store.authenticationContext(credentialID: response.credentialID)
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
        guard let ceremony else { throw APIError.unknownChallenge }
        let spentKey = SealedCeremony.spentKey(ceremony.challenge)
        guard let stored = found else {
            guard try await store.spendChallenge(keyHash: spentKey, expiresAt: ceremony.expiresAt, now: now(), markCloned: nil, event: nil) else {
                throw APIError.unknownChallenge
            }
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
            let event = self.context.event(
                stored.userHandle, regressed ? "counter_regression" : "sign_in_refused", at: now(),
                ["credential": Base64URL.encode(stored.id), "error": error.code.rawValue])
            guard try await store.spendChallenge(
                keyHash: spentKey, expiresAt: ceremony.expiresAt, now: now(), markCloned: regressed ? stored.id : nil, event: event)
            else { throw APIError.unknownChallenge }
            throw APIError(error)
        }
        // A disabled account: the assertion verified, and still no session (docs/contracts/accounts.md).
        if context.ownerDisabled {
            guard try await store.spendChallenge(
                keyHash: spentKey, expiresAt: ceremony.expiresAt, now: now(), markCloned: nil,
                event: self.context.event(stored.userHandle, "sign_in_refused", at: now(), ["credential": Base64URL.encode(stored.id), "error": "account_disabled"]))
            else { throw APIError.unknownChallenge }
            throw APIError.accountDisabled
        }
        // §7.2 step 25, atomically with spending the challenge and opening the session: the
        // counter is compared again in the same statement, so a concurrent assertion with the
        // same count cannot also pass.
        var (token, session) = sessions.newSession(userHandle: stored.userHandle, credentialID: stored.id, userVerified: verified.userVerified)
        let at = now()
        let credentialID = Base64URL.encode(stored.id)
        // A step-up renews the session that asked for it, and opens none.
        let renewing = ceremony.sessionHash != nil
        if let sessionHash = ceremony.sessionHash {
            token = ""
            session = SessionRecord(
                tokenHash: sessionHash, userHandle: stored.userHandle, createdAt: at, expiresAt: at,
                credentialID: try await raisesClass(sessionHash: sessionHash, with: stored) ? stored.id : nil,
                userVerified: verified.userVerified, verifiedAt: at)
        }
        switch try await store.completeAuthentication(
            spending: spentKey, until: ceremony.expiresAt, now: at, credentialID: stored.id, signCount: verified.signCount,
            backupState: verified.backupState, userVerified: verified.userVerified, session: session, renewing: renewing,
            signedIn: self.context.event(
                stored.userHandle, renewing ? "reauthenticated" : "sign_in", at: at, ["method": "passkey", "credential": credentialID]),
            regression: self.context.event(stored.userHandle, "counter_regression", at: at, ["credential": credentialID, "error": "counter_regression"]))
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

    /// Whether a step-up with `passkey` gives the session a stronger class than the passkey that
    /// stands for it now (`phrh` over `phr`, any passkey over none): then it stands for the
    /// session from here on, and a forward-auth rule or an OpenID request asking that class is met.
    func raisesClass(sessionHash: [UInt8], with passkey: CredentialRecord) async throws -> Bool {
        guard let session = try await store.session(tokenHash: sessionHash, now: now()) else { return false }
        guard let current = session.credentialID else { return true }
        if current == passkey.id { return false }
        let currentClass = OpenIDProvider.acr(try await store.credential(id: current))
        return OpenIDProvider.acr(passkey) == "phrh" && currentClass != "phrh"
    }

    /// The challenge an AuthenticationResponseJSON's clientDataJSON names (the first-party
    /// flow's check that an assertion answers its own `auth_session`); nil when unreadable.
    public func assertionChallenge(_ body: [UInt8]) -> [UInt8]? {
        guard let response = try? AuthenticationResponse(json: body, registrationEndpoint: "POST /registration_finalize") else { return nil }
        return Self.challengeBytes(response.clientData)
    }

    /// The pending stored (registration) ceremony named by the challenge inside clientDataJSON
    /// (a read; the finishing write spends it, or the refusal does). A challenge that was never
    /// issued, was already used, expired, or belongs to the other kind of ceremony is
    /// `unknown_challenge`.
    func pendingCeremony(_ clientData: CollectedClientData, kind: CeremonyKind) async throws -> CeremonyRecord {
        guard let challenge = Self.challengeBytes(clientData),
              let ceremony = try await store.ceremony(challenge: challenge, kind: kind, now: now())
        else { throw APIError.unknownChallenge }
        return ceremony
    }

    /// The sign-in ceremony sealed in the challenge clientDataJSON names, unless it does not
    /// open or has expired (then `unknown_challenge`). Whether it was spent is the finishing
    /// write's question, or the refusal's.
    func openedCeremony(_ clientData: CollectedClientData) -> CeremonyRecord? {
        guard let challenge = Self.challengeBytes(clientData), let ceremony = seal.open(challenge),
              now() < ceremony.expiresAt
        else { return nil }
        return ceremony
    }

    /// Seals a sign-in's ceremony into the challenge its options carry.
    func sealed(_ ceremony: CeremonyRecord) throws -> [UInt8] {
        do { return try seal.seal(ceremony) } catch {
            logger.error("a sign-in ceremony could not be sealed", metadata: ["error": "\(error)"])
            throw APIError.internalError
        }
    }

    /// The challenge clientDataJSON names, when it can be one this server issued (base64url, at
    /// least 16 bytes); nil is `unknown_challenge`.
    static func challengeBytes(_ clientData: CollectedClientData) -> [UInt8]? {
        guard let challenge = Base64URL.decode(clientData.challenge), challenge.count >= 16 else { return nil }
        return challenge
    }
}
