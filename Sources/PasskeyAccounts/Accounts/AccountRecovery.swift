public import Foundation
public import PasskeyStorage
internal import PasskeyCrypto
internal import PasskeyHTTPParsing
internal import PasskeyJSON

/// Recovery codes and the recovery session (docs/contracts/accounts.md, "Account recovery"): a user who lost
/// every passkey spends a code and gets a session that can only register a new one; once it
/// has, the same token is a normal session and the account's other sessions end.
extension PasskeySignIn {
    /// Codes made at a time; a new set voids the old.
    public static let recoveryCodeCount = 10
    /// How long a recovery session lasts.
    public static let recoverySessionTTL: TimeInterval = 600

    /// The keyed hash a code is stored as: HMAC-SHA-256 under a key derived from the server
    /// secret, over the account's handle and the code's 16 characters, so a copy of the table
    /// alone does not let anyone try codes, and one account's code says nothing of another's.
    func recoveryCodeHash(_ code: RecoveryCode, userHandle: [UInt8]) -> [UInt8] {
        let key = HMAC.sha256(key: serverSecret, data: Array("passkey-server recovery codes".utf8))
        return HMAC.sha256(key: key, data: userHandle + code.characters)
    }

    /// `POST /me/recovery-codes` (step-up): ten new codes, shown once; the old ones are void.
    public func makeRecoveryCodes(_ session: SignedInUser) async throws -> RecoveryCodesAnswer {
        guard configuration.recoveryCodes else { throw APIError.recoveryCodesOff }
        try await sessions.requireRecentAuthentication(session)
        let codes = (0..<Self.recoveryCodeCount).map { _ in RecoveryCode(randomBytes: SecureRandom.bytes(10)) }
        let at = now()
        try await store.replaceRecoveryCodes(
            userHandle: session.user.handle, codeHashes: codes.map { recoveryCodeHash($0, userHandle: session.user.handle) }, at: at,
            event: context.event(session.user.handle, "recovery_codes_created", at: at, ["count": String(codes.count)]))
        return RecoveryCodesAnswer(codes: codes.map(\.display))
    }

    /// `POST /recovery {"user_name", "code"}`: spends the code and opens a recovery session.
    /// Every attempt counts against the name's and the address's hourly limits before anything
    /// is looked up (a good code refused with 429 stays unspent). A wrong code, an unknown name,
    /// a disabled account and a malformed code all answer `invalid_recovery_code` after the same
    /// work: a keyed hash and one write that finds nothing to spend.
    public func recover(userName rawName: String?, code rawCode: String?) async throws -> RecoveryStart {
        guard configuration.recoveryCodes else { throw APIError.recoveryCodesOff }
        guard let rawName, let rawCode else { throw APIError.invalidRequest("user_name and code are required.") }
        let name = try? UserName(rawName)
        try await limitRecovery(nameKey: name?.key ?? rawName.lowercased())
        let code = RecoveryCode(typed: rawCode)
        let user = try await name.asyncMap { try await store.user(nameKey: $0.key) } ?? nil
        // Unknown names and disabled accounts do the same work against a handle no account has.
        let live = user.flatMap { $0.disabled ? nil : $0 }
        let handle = live?.handle ?? SecureRandom.bytes(32)
        let hash = recoveryCodeHash(code ?? RecoveryCode(randomBytes: SecureRandom.bytes(10)), userHandle: handle)
        // In the store's precision, so that the time left and "ready" are judged on what is kept.
        let at = Date(storeMilliseconds: try now().storeMilliseconds())
        if configuration.recoveryDelay > 0 {
            // `--recovery-delay`: the code is spent now; the session opens only once the delay is
            // over, unless a signed-in session of the account cancels it meanwhile.
            let token = SecureRandom.bytes(32)
            let client = RequestClient.current
            let request = RecoveryRequestRecord(
                idHash: Self.recoveryRequestHash(token), publicID: Base64URL.encode(SecureRandom.bytes(16)), userHandle: handle, createdAt: at,
                readyAt: at.addingTimeInterval(configuration.recoveryDelay), ip: client?.address, userAgent: client?.userAgent)
            let started = try await store.startRecovery(
                request, codeHash: hash,
                event: context.event(handle, "recovery_started", at: at, ["method": "recovery_code", "delay": String(Int(configuration.recoveryDelay))]))
            guard started, code != nil, live != nil else { throw APIError.invalidRecoveryCode }
            context.recoveryStarts.publish(request)
            return .waiting(RecoveryWaiting(recoveryID: Base64URL.encode(token), readyAt: Self.timestamp(request.readyAt), secondsLeft: Int(configuration.recoveryDelay)))
        }
        let (token, session) = newRecoverySession(userHandle: handle)
        let spent = try await store.redeemRecoveryCode(
            userHandle: handle, codeHash: hash, session: session,
            event: context.event(handle, "recovery_started", at: session.createdAt, ["method": "recovery_code"]))
        guard spent, code != nil, let live else { throw APIError.invalidRecoveryCode }
        return .opened(RecoveryAnswer(userName: live.name, session: token), token: token)
    }

    /// A recovery session: it can only register a passkey, for `recoverySessionTTL`.
    func newRecoverySession(userHandle: [UInt8]) -> (token: String, record: SessionRecord) {
        var (token, session) = sessions.newSession(userHandle: userHandle, credentialID: nil, via: SessionRecord.recoveryVia, userVerified: false)
        session.expiresAt = session.createdAt.addingTimeInterval(Self.recoverySessionTTL)
        return (token, session)
    }

    /// A waiting recovery's token, as its request is stored.
    static func recoveryRequestHash(_ token: [UInt8]) -> [UInt8] { Digest.sha256.hash(Array("recovery-request:".utf8) + token) }

    /// `GET /recovery/{id}`: how long a waiting recovery has left; once it is over, its recovery
    /// session (once). Cancelled by the owner: `status: cancelled`. Unknown or claimed: 404.
    public func recoveryStatus(id: String) async throws -> RecoveryStart {
        guard let token = Base64URL.decodeStrict(id), token.count == 32,
              let request = try await store.recoveryRequest(idHash: Self.recoveryRequestHash(token))
        else { throw APIError.notFound }
        // Compared in the store's precision (milliseconds): a clock read between two stored
        // milliseconds is neither early nor late against a stored time.
        let at = Date(storeMilliseconds: try now().storeMilliseconds())
        switch request.state {
        case .claimed: throw APIError.notFound
        case .cancelled: return .cancelled
        case .waiting: break
        }
        guard at >= request.readyAt else {
            return .waiting(RecoveryWaiting(
                recoveryID: id, readyAt: Self.timestamp(request.readyAt), secondsLeft: Int(request.readyAt.timeIntervalSince(at).rounded(.up))))
        }
        guard let user = try await store.user(handle: request.userHandle) else { throw APIError.notFound }
        if user.disabled { throw APIError.accountDisabled }
        let (sessionToken, session) = newRecoverySession(userHandle: user.handle)
        guard try await store.claimRecovery(
            idHash: request.idHash, now: at, session: session, event: context.event(user.handle, "recovery_claimed", at: at, ["recovery": request.publicID]))
        else { throw APIError.notFound }
        return .opened(RecoveryAnswer(userName: user.name, session: sessionToken), token: sessionToken)
    }

    /// The account's waiting recoveries, for `GET /me` (the page's "this wasn't me" banner).
    public func waitingRecoveries(_ userHandle: [UInt8]) async throws -> [MeResponse.WaitingRecovery] {
        try await store.waitingRecoveries(userHandle: userHandle).map {
            MeResponse.WaitingRecovery(id: $0.publicID, createdAt: Self.timestamp($0.createdAt), readyAt: Self.timestamp($0.readyAt), ip: $0.ip, userAgent: $0.userAgent)
        }
    }

    /// `DELETE /me/recoveries/{id}`: "this wasn't me": any signed-in session of the account
    /// cancels a waiting recovery; the code it spent stays spent.
    public func cancelRecovery(id: String, _ signedIn: SignedInUser) async throws {
        guard try await store.cancelRecovery(
            publicID: id, userHandle: signedIn.user.handle,
            event: context.event(signedIn.user.handle, "recovery_cancelled", at: now(), ["recovery": id, "session": signedIn.sessionID]))
        else { throw APIError.notFound }
    }

    /// `--rate-limit-recovery`: an hour's attempts per name and per client address, counted
    /// across every instance on the database.
    func limitRecovery(nameKey: String) async throws {
        var keys = ["recovery-name:" + nameKey]
        if let address = RequestClient.current?.address { keys.append("recovery-address:" + IPAddress.limitKey(address)) }
        try await SharedLimit(store: store, limit: configuration.rateLimitRecovery, window: 3600).take(keys, now: now())
    }

    /// How many unspent codes the account has (`GET /me`'s `recovery_codes_left`).
    public func recoveryCodesLeft(_ userHandle: [UInt8]) async throws -> Int {
        try await store.recoveryCodeCount(userHandle: userHandle)
    }
}

/// What a recovery answers: its session, or that it waits (`--recovery-delay`), or that the
/// account's owner cancelled it.
public enum RecoveryStart: Sendable {
    case opened(RecoveryAnswer, token: String)
    case waiting(RecoveryWaiting)
    case cancelled
}

/// A recovery that waits: the token to ask `GET /recovery/{id}` with, and when it is ready.
public struct RecoveryWaiting: Encodable, Sendable {
    public var status = "waiting"
    public let recoveryID: String
    public let readyAt: String
    public let secondsLeft: Int

    enum CodingKeys: String, CodingKey { case status, recoveryID = "recovery_id", readyAt = "ready_at", secondsLeft = "seconds_left" }
}

/// `POST /me/recovery-codes`.
public struct RecoveryCodesAnswer: Encodable, Sendable {
    public let codes: [String]
}

/// `POST /recovery`: answered like a finalize, with `recovery: true`.
public struct RecoveryAnswer: Encodable, Sendable {
    public var status = "ok"
    public let userName: String
    public let session: String
    public var recovery = true

    enum CodingKeys: String, CodingKey { case status, userName = "user_name", session, recovery }
}
