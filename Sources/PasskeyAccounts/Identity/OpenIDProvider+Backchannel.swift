public import Foundation
internal import PasskeyCrypto
internal import PasskeyJSON
public import PasskeyStorage

/// Where a ping client hears that its request was answered; the composition root fills it.
public protocol BackchannelNotificationDelivery: Sendable {
    /// POSTs `{"auth_req_id": …}` with `Authorization: Bearer <token>` to `url`; throws unless
    /// the client answered 2xx.
    func notify(authReqID: String, token: String, to url: String) async throws
}

/// Client-initiated backchannel authentication (OpenID CIBA Core 1.0; docs/contracts/identity.md,
/// "Approval on the phone"), with the push authenticator as the authentication device: a client
/// asks at `/oauth/bc-authorize`, the user's phones are pushed, a phone (or the signed-in page)
/// answers, and the client gets its tokens at the token endpoint, by polling or after a ping.
extension OpenIDProvider {
    public static let cibaGrant = "urn:openid:params:grant-type:ciba"
    /// How long a request waits when the client asks no `requested_expiry`, and the most it may ask.
    static let cibaDefaultExpiry = 300, cibaMaximumExpiry = 600
    /// The first interval between polls, in seconds; `slow_down` adds `slowDownStep`.
    static let cibaInterval = 5
    static let maximumBindingMessage = 64
    static let maximumNotificationToken = 1024

    /// The `auth_req_id` of the request whose push is `pushID`: an HMAC under the server's
    /// secret, so that the store keeps only its hash and a ping can still name it.
    func authReqID(pushID: String) -> String {
        Base64URL.encode(HMAC.sha256(key: context.serverSecret, data: Array("ciba:".utf8) + Array(pushID.utf8)))
    }

    /// The store's key for an `auth_req_id`: its SHA-256; nil for text that is no id of ours.
    static func authReqHash(_ id: String) -> [UInt8]? {
        guard let bytes = Base64URL.decodeStrict(id), bytes.count == 32 else { return nil }
        return Digest.sha256.hash(Array(id.utf8))
    }

    // MARK: The request

    /// `POST /oauth/bc-authorize` (CIBA §7): the client authenticated and registered for CIBA,
    /// its parameters checked (§7.1, §13), the user found and allowed, the fatigue limits
    /// passed, then the push; nothing is stored or pushed on a refusal.
    public func backchannelAuthorize(
        _ parameters: [(name: String, value: String)], basic: (id: String, secret: String)?
    ) async throws -> BackchannelAnswer {
        let values = try Self.singleValues(parameters)
        let client = try await authenticateClient(values, basic: basic)
        guard client.cibaMode != nil, let push else {
            throw OAuthError("unauthorized_client", "this client is not registered for backchannel authentication (--ciba)")
        }
        let scopes = try AuthorizationRequest.asOAuthError { refuse throws(AuthorizationRequest.Refusal) in
            try AuthorizationRequest.checkScopes(values["scope"], client: client, refuse: refuse)
        }
        let bindingMessage = try Self.checkBindingMessage(values["binding_message"])
        let expiry = try Self.checkRequestedExpiry(values["requested_expiry"])
        let acrValues = try Self.checkACRValues(values["acr_values"])
        let token = try Self.checkNotificationToken(values["client_notification_token"], ping: client.cibaMode == "ping")
        let user = try await hintedUser(values, client: client)
        let devices = try await push.approvalDevices(userHandle: user.handle)
        // Alike for an unknown name: no push device, nobody to ask.
        guard !devices.isEmpty else { throw Self.unknownUser }
        guard !user.disabled else { throw OAuthError("access_denied", "the account is disabled") }
        if case .refused(_, let description)? = try await checkAllowedGroups(client, userHandle: user.handle) {
            throw OAuthError("access_denied", description)
        }
        let at = now()
        let request = push.approvalRequest(userHandle: user.handle, now: at, expiresAt: at.addingTimeInterval(TimeInterval(expiry)))
        let id = authReqID(pushID: request.id)
        let ip = RequestClient.current?.address
        let record = BackchannelRequestRecord(
            idHash: Digest.sha256.hash(Array(id.utf8)), pushID: request.id, clientID: client.id, userHandle: user.handle, scopes: scopes,
            bindingMessage: bindingMessage, acrValues: acrValues, ip: ip, notificationToken: token, interval: Self.cibaInterval,
            createdAt: at, expiresAt: request.expiresAt)
        let event = context.event(user.handle, "ciba_requested", at: at, ["client": client.id, "request": request.id])
        switch try await store.startBackchannel(
            record, push: request, hourlyLimit: configuration.cibaRate, hourStart: at.addingTimeInterval(-3600), event: event)
        {
        case .started: break
        case .pendingForClient:
            throw OAuthError("access_denied", "a request of this client for this user is waiting for an answer already")
        case .hourlyLimit:
            throw OAuthError("access_denied", "this user was asked \(configuration.cibaRate) times in the last hour; try again later")
        }
        push.sendApproval(request, to: devices, user: user, clientName: client.name ?? client.id, bindingMessage: bindingMessage, ip: ip)
        return BackchannelAnswer(authReqID: id, expiresIn: expiry, interval: Self.cibaInterval)
    }

    static let unknownUser = OAuthError("unknown_user_id", "no user with a push authenticator matches the hint")

    /// Exactly one of `login_hint` (a user name) and `id_token_hint` (an ID token this server
    /// issued to this client); `login_hint_token` is not supported.
    func hintedUser(_ values: [String: String], client: ClientRecord) async throws -> UserRecord {
        if values["login_hint_token"] != nil { throw OAuthError.invalidRequest("login_hint_token is not supported: send login_hint or id_token_hint") }
        switch (values["login_hint"], values["id_token_hint"]) {
        case (let name?, nil):
            guard let key = try? UserName(name).key, let user = try await store.user(nameKey: key) else { throw Self.unknownUser }
            return user
        case (nil, let token?):
            guard let claims = try await checkIDTokenHint(token), claims["aud"]?.stringValue == client.id
                    || claims["aud"]?.arrayValue?.contains(.string(client.id)) == true
            else { throw OAuthError.invalidRequest("id_token_hint is not an ID token this server issued to this client") }
            guard let handle = claims["sub"]?.stringValue.flatMap(Base64URL.decodeStrict), let user = try await store.user(handle: handle) else {
                throw Self.unknownUser
            }
            return user
        default:
            throw OAuthError.invalidRequest("send exactly one of login_hint and id_token_hint")
        }
    }

    /// At most 64 characters, none a control or format character (it is shown on a phone's
    /// lock screen); `invalid_binding_message` otherwise (CIBA §13).
    static func checkBindingMessage(_ text: String?) throws(OAuthError) -> String? {
        guard let text else { return nil }
        guard !text.isEmpty, text.count <= maximumBindingMessage,
              !text.unicodeScalars.contains(where: { [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) })
        else {
            throw OAuthError("invalid_binding_message", "binding_message must be 1 to \(maximumBindingMessage) printable characters")
        }
        return text
    }

    /// `requested_expiry`: whole seconds, 1 to 600; the default 300.
    static func checkRequestedExpiry(_ text: String?) throws(OAuthError) -> Int {
        guard let text else { return cibaDefaultExpiry }
        guard text.utf8.count <= 6, text.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int(text), (1...cibaMaximumExpiry).contains(seconds) else {
            throw OAuthError.invalidRequest("requested_expiry must be 1 to \(cibaMaximumExpiry) seconds")
        }
        return seconds
    }

    /// `acr_values`: `phr` and `phrh` only, as at the authorization endpoint.
    static func checkACRValues(_ text: String?) throws(OAuthError) -> String? {
        guard let text else { return nil }
        let asked = text.split(separator: " ").map(String.init)
        guard !asked.isEmpty, asked.allSatisfy(ClientRegistry.authenticationClasses.contains) else {
            throw OAuthError.invalidRequest("acr_values may name phr and phrh only")
        }
        return asked.joined(separator: " ")
    }

    /// A ping client's `client_notification_token`: required, 1 to 1024 visible ASCII
    /// characters (it comes back as a Bearer token). A poll client's is not kept.
    static func checkNotificationToken(_ text: String?, ping: Bool) throws(OAuthError) -> String? {
        guard ping else { return nil }
        guard let text, (1...maximumNotificationToken).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw OAuthError.invalidRequest("client_notification_token is required of a ping client: 1 to \(maximumNotificationToken) visible characters")
        }
        return text
    }
}
