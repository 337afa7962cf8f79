public import Foundation
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyHTTPParsing
internal import PasskeyJSON
internal import PasskeyQR
internal import PasskeyStorage

/// The device authorization grant (RFC 8628; docs/contracts/identity.md, "Pushed authorization requests and the
/// device flow"): a TV or a command-line tool asks at `/oauth/device`, shows a user code (and its
/// QR code), and polls the token endpoint while its user approves at `/device` with a passkey.
extension OpenIDProvider {
    static let deviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"
    /// A device authorization lives 10 minutes; the client polls every 5 s (docs/contracts/identity.md).
    public static let deviceTTL: TimeInterval = 600
    public static let deviceInterval = 5
    /// RFC 8628 §3.5: each `slow_down` adds 5 seconds to the interval, for good.
    static let slowDownStep = 5
    // MARK: Device authorization endpoint

    /// `POST /oauth/device` (RFC 8628 §3.1–3.2): an authenticated client registered with
    /// `--device-flow` asks for `scope` (with `openid`, only its own scopes); the answer carries
    /// the device code (256 random bits, only its hash kept), the user code, where to enter it,
    /// and `verification_uri_complete` as a QR code (`qr_svg`, and `qr_text` for a terminal).
    public func deviceAuthorization(
        _ parameters: [(name: String, value: String)], basic: (id: String, secret: String)?
    ) async throws -> DeviceAuthorizationAnswer {
        let values = try Self.singleValues(parameters)
        let client = try await authenticateClient(values, basic: basic)
        guard client.deviceFlow else { throw OAuthError("unauthorized_client", "this client is not registered for the device flow") }
        let scopes: [String]
        do {
            scopes = try AuthorizationRequest.checkScopes(values["scope"], client: client) { .shown(error: $0, description: $1) }
        } catch {
            guard case .shown(let error, let description) = error else { throw OAuthError.invalidRequest("scope is not valid") }
            throw OAuthError(error, description)
        }
        let at = now()
        let deviceCode = SecureRandom.bytes(32)
        // A user code already held by a live request is drawn again; four collisions in a row
        // would take billions of live requests.
        for _ in 0..<4 {
            let userCode = Self.newUserCode()
            let record = DeviceAuthorizationRecord(
                deviceCodeHash: Digest.sha256.hash(deviceCode), userCodeHash: Self.userCodeHash(userCode), clientID: client.id,
                scopes: scopes, interval: Self.deviceInterval, createdAt: at, expiresAt: at.addingTimeInterval(Self.deviceTTL))
            guard try await store.insertDeviceAuthorization(record) else { continue }
            let shown = userCode.display
            let page = context.rp.pageOrigin + "/device"
            let complete = FormURLEncoded.appending([("user_code", shown)], to: page)
            var response = DeviceAuthorizationAnswer(
                deviceCode: Base64URL.encode(deviceCode), userCode: shown, verificationURI: page, verificationURIComplete: complete,
                expiresIn: Int(Self.deviceTTL), interval: Self.deviceInterval)
            if let qr = try? QRCode(complete) {
                response.qrSVG = qr.svg(title: "Scan to sign in")
                response.qrText = qr.text()
            }
            return response
        }
        throw OAuthError("temporarily_unavailable", "no free user code was found; try again")
    }

    /// Eight letters of the alphabet (RFC 8628 §6.1's example: 20⁸ ≈ 2.6·10¹⁰ codes, ~34.5
    /// bits), each drawn uniformly: a byte of 240 or more is drawn again, so that no letter is
    /// likelier than another.
    static func newUserCode() -> DeviceUserCode {
        let alphabet = DeviceUserCode.alphabet
        var letters: [UInt8] = []
        while letters.count < DeviceUserCode.length {
            for byte in SecureRandom.bytes(16) where byte < 240 && letters.count < DeviceUserCode.length {
                letters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return DeviceUserCode(letters: letters)!
    }

    /// User codes are kept as hashes of their own kind, never equal to a hash of another secret.
    static func userCodeHash(_ code: DeviceUserCode) -> [UInt8] { Digest.sha256.hash(Array("device-user-code:".utf8) + code.letters) }

    // MARK: The page

    /// Whether the signed-in user can approve a device request now.
    public enum DeviceApproval: Sendable, Equatable {
        case approvable
        /// A passkey ceremony is needed first: no session, one opened before the request was
        /// made, or one of a class the client does not accept.
        case signIn
        /// This account may not approve it (`access_denied`, `unmet_authentication_requirements`).
        case refused(error: String, description: String)
    }

    /// Wrong user codes per client address, and per account when signed in: 5 a minute (the
    /// bucket refills one every 12 s), checked before a code is looked up and spent only by a
    /// wrong one, so a guesser learns nothing once it is out (docs/contracts/identity.md: "rate-limited like
    /// recovery codes").
    static let wrongUserCodesPerMinute = 5

    func userCodeLimitKeys(_ session: SignedInUser?) -> [String] {
        var keys: [String] = []
        if let address = RequestClient.current?.address { keys.append("device-address:" + IPAddress.limitKey(address)) }
        if let session { keys.append("device-user:" + Base64URL.encode(session.user.handle)) }
        return keys
    }

    /// The pending request a user code names; a wrong code is `unknown_user_code` and spends
    /// the caller's budget of wrong codes.
    func pendingDevice(userCode: String, session: SignedInUser?) async throws -> (DeviceAuthorizationRecord, ClientRecord, DeviceUserCode) {
        let at = now()
        let keys = userCodeLimitKeys(session)
        let limit = SharedLimit(store: store, limit: Self.wrongUserCodesPerMinute, window: 60)
        try await limit.check(keys, now: at)
        if let code = DeviceUserCode(typed: userCode), let record = try await store.deviceAuthorization(userCodeHash: Self.userCodeHash(code), now: at),
           record.status == .pending, let client = try await store.client(id: record.clientID), client.deviceFlow
        {
            return (record, client, code)
        }
        try await limit.take(keys, now: at)
        throw APIError(code: "unknown_user_code", message: "That code is not one a device is waiting with: check it, or start again on the device.")
    }

    /// `POST /device/lookup`: the client's name, the scopes, and whether this session can
    /// approve it now.
    public func deviceRequest(userCode: String, session: SignedInUser?) async throws -> DeviceRequestAnswer {
        let (record, client, code) = try await pendingDevice(userCode: userCode, session: session)
        return DeviceRequestAnswer(
            clientName: client.name ?? client.id, userCode: code.display, scopes: record.scopes,
            approval: try await deviceApproval(record, client: client, session: session))
    }

    /// docs/contracts/identity.md's conditions for the device flow: a session opened by a ceremony after the
    /// device asked (the page always signs the user in for it), a user the client admits, a
    /// session of the class the client needs.
    func deviceApproval(_ record: DeviceAuthorizationRecord, client: ClientRecord, session: SignedInUser?) async throws -> DeviceApproval {
        guard let session, let opened = session.session else { return .signIn }
        if case .refused(let error, let description)? = try await checkAllowedGroups(client, userHandle: session.user.handle) {
            return .refused(error: error, description: description)
        }
        guard opened.createdAt >= record.createdAt else { return .signIn }
        if let required = client.requiredACR {
            switch try await checkClass(opened, required: required, userHandle: session.user.handle) {
            case nil, .fits?: break
            case .needsSignIn?: return .signIn
            case .refused(let error, let description)?: return .refused(error: error, description: description)
            }
        }
        return .approvable
    }

    /// `POST /device/decision`: approves (writing the grant the device's tokens come from) or
    /// denies. Approval needs `.approvable`; denial needs only a session. A request decided
    /// meanwhile is `already_answered`.
    public func decideDevice(userCode: String, approve: Bool, session: SignedInUser?) async throws {
        guard let session, let opened = session.session else { throw APIError.unauthorized }
        let (record, client, code) = try await pendingDevice(userCode: userCode, session: session)
        let at = now()
        var grant: GrantRecord?
        if approve {
            switch try await deviceApproval(record, client: client, session: session) {
            case .approvable: break
            case .signIn: throw APIError(code: "device_sign_in_required", message: "Sign in with your passkey again to approve this device.")
            case .refused(_, let description): throw APIError.forbidden(description.prefix(1).uppercased() + description.dropFirst() + ".")
            }
            let credential = try await opened.credentialID.asyncMap { try await store.credential(id: $0) } ?? nil
            // The device's own sign-in: it outlives the browser session that approved it
            // (`offline`), and ends when the user removes the application or it expires.
            grant = GrantRecord(
                id: Base64URL.encode(SecureRandom.bytes(16)), clientID: client.id, userHandle: session.user.handle,
                sessionHash: session.tokenHash, offline: true, scopes: record.scopes, nonce: nil, authTime: opened.createdAt,
                amr: Self.amr(opened, credential: credential), acr: Self.acr(credential), credentialID: credential?.id,
                codeHash: Digest.sha256.hash(SecureRandom.bytes(32)), codeChallenge: "", redirectURI: "", codeExpiresAt: record.expiresAt,
                createdAt: at, expiresAt: record.expiresAt)
        }
        let decided = try await store.decideDeviceAuthorization(
            userCodeHash: Self.userCodeHash(code), grant: grant, now: at,
            event: context.event(session.user.handle, approve ? "oauth_device_approved" : "oauth_device_denied", at: at, ["client": client.id]))
        guard decided else { throw APIError(code: "already_answered", message: "This device request was already answered.") }
    }

    // MARK: Token endpoint

    /// `grant_type=urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4–3.5): while the
    /// user has not decided, `authorization_pending`, or `slow_down` for a poll sooner than the
    /// interval (which then grows by 5 s); `access_denied`; `expired_token`; then the tokens,
    /// once (a second redemption revokes them, as a reused code does).
    func redeemDeviceCode(_ values: [String: String], client: ClientRecord, jkt: String?) async throws -> TokenAnswer {
        guard client.deviceFlow else { throw OAuthError("unauthorized_client", "this client is not registered for the device flow") }
        guard let deviceCode = values["device_code"] else { throw OAuthError.invalidRequest("device_code is missing") }
        let at = now()
        guard let bytes = Base64URL.decodeStrict(deviceCode), bytes.count == 32,
              let poll = try await store.pollDeviceAuthorization(deviceCodeHash: Digest.sha256.hash(bytes), now: at, slowDownStep: Self.slowDownStep),
              poll.authorization.clientID == client.id
        else { throw OAuthError.invalidGrant("the device code is not one this server issued to this client") }
        let authorization = poll.authorization
        guard authorization.expiresAt > at else { throw OAuthError("expired_token", "the device code has expired; start again") }
        switch authorization.status {
        case .pending:
            if poll.tooFast { throw OAuthError("slow_down", "polling faster than the interval; wait \(authorization.interval) s between polls") }
            throw OAuthError("authorization_pending", "the user has not answered yet")
        case .denied:
            throw OAuthError("access_denied", "the user denied the request")
        case .approved:
            guard let grantID = authorization.grantID, let grant = try await store.grant(id: grantID) else {
                throw OAuthError.invalidGrant("the approval is no longer on record")
            }
            guard !grant.revoked, !grant.codeSpent else {
                if !grant.revoked { try await revokeForReuse(grant, type: "oauth_device_code_reuse", at: at) }
                throw OAuthError.invalidGrant("the device code was already used; every token issued with it is revoked")
            }
            try await checkPolicy(client, userHandle: grant.userHandle, acr: grant.acr)
            let refresh = try await spendStart(grant, client: client, grantType: "device_code", reuse: "oauth_device_code_reuse", jkt: jkt, at: at)
            return try await tokenResponse(grant, client: client, scopes: grant.scopes, refreshToken: refresh, at: at, includeNonce: false, jkt: jkt)
        }
    }
}
