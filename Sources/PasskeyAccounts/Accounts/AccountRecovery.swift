public import Foundation
public import PasskeyStorage
internal import PasskeyCrypto
internal import PasskeyHTTPParsing
internal import PasskeyJSON

/// Recovery codes and the recovery session (accounts.md, "Account recovery"): a user who lost
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
        try await requireRecentAuthentication(session)
        let codes = (0..<Self.recoveryCodeCount).map { _ in RecoveryCode(randomBytes: SecureRandom.bytes(10)) }
        let at = now()
        try await store.replaceRecoveryCodes(
            userHandle: session.user.handle, codeHashes: codes.map { recoveryCodeHash($0, userHandle: session.user.handle) }, at: at,
            event: event(session.user.handle, "recovery_codes_created", at: at, ["count": String(codes.count)]))
        return RecoveryCodesAnswer(codes: codes.map(\.display))
    }

    /// `POST /recovery {"user_name", "code"}`: spends the code and opens a recovery session.
    /// Every attempt counts against the name's and the address's hourly limits before anything
    /// is looked up (a good code refused with 429 stays unspent). A wrong code, an unknown name,
    /// a disabled account and a malformed code all answer `invalid_recovery_code` after the same
    /// work: a keyed hash and one write that finds nothing to spend.
    public func recover(userName rawName: String?, code rawCode: String?) async throws -> (RecoveryAnswer, token: String) {
        guard configuration.recoveryCodes else { throw APIError.recoveryCodesOff }
        guard let rawName, let rawCode else { throw APIError.invalidRequest("user_name and code are required.") }
        let name = try? UserName(rawName)
        try limitRecovery(nameKey: name?.key ?? rawName.lowercased())
        let code = RecoveryCode(typed: rawCode)
        let user = try await name.asyncMap { try await store.user(nameKey: $0.key) } ?? nil
        // Unknown names and disabled accounts do the same work against a handle no account has.
        let live = user.flatMap { $0.disabled ? nil : $0 }
        let handle = live?.handle ?? SecureRandom.bytes(32)
        let hash = recoveryCodeHash(code ?? RecoveryCode(randomBytes: SecureRandom.bytes(10)), userHandle: handle)
        var (token, session) = newSession(userHandle: handle, credentialID: nil, via: SessionRecord.recoveryVia, userVerified: false)
        session.expiresAt = session.createdAt.addingTimeInterval(Self.recoverySessionTTL)
        let spent = try await store.redeemRecoveryCode(
            userHandle: handle, codeHash: hash, session: session,
            event: event(handle, "recovery_started", at: session.createdAt, ["method": "recovery_code"]))
        guard spent, code != nil, let live else { throw APIError.invalidRecoveryCode }
        return (RecoveryAnswer(userName: live.name, session: token), token)
    }

    /// `--rate-limit-recovery`: an hour's attempts per name and per client address.
    func limitRecovery(nameKey: String) throws {
        let at = now()
        var wait: [Int] = []
        if let retry = recoveryLimiter.take("name:" + nameKey, now: at) { wait.append(retry) }
        if let address = RequestClient.current?.address, let retry = recoveryLimiter.take("address:" + address, now: at) { wait.append(retry) }
        if let longest = wait.max() { throw APIError.rateLimited(retryAfter: longest) }
    }

    /// How many unspent codes the account has (`GET /me`'s `recovery_codes_left`).
    public func recoveryCodesLeft(_ userHandle: [UInt8]) async throws -> Int {
        try await store.recoveryCodeCount(userHandle: userHandle)
    }
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
