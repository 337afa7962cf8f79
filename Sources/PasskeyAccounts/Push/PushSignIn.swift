internal import PasskeyJSON
public import Foundation
public import PasskeyPush
public import PasskeyStorage
internal import PasskeyCore
internal import PasskeyCrypto
internal import PasskeyQR
internal import PasskeyTelemetry
public import Logging

/// The push-notification authenticator (docs/contracts/push.md) on the passkey accounts, free of HTTP:
/// enrolment by QR code, pushes with a number to match, the phone's signed answer, and the
/// browser's wait for it.
public final class PushSignIn: Sendable {
    let context: UseCaseContext
    let sessions: Sessions
    /// The push ids of CIBA requests a phone (or the page) just answered.
    let approvalAnswers = Feed<String>(skipping: { _ in false })
    let store: any PushStore & AccountStore & SessionStore & RecoveryStore & ServerStateStore
    public let provider: any PushProvider
    let mode: NumberChallenge.Mode
    /// `--apns-environment`: the environment of a device that did not give one.
    let defaultEnvironment: APNsEnvironment
    var configuration: ServerConfiguration { context.configuration }
    var logger: Logger { context.logger }

    public init(
        context: UseCaseContext, sessions: Sessions, store: any PushStore & AccountStore & SessionStore & RecoveryStore & ServerStateStore, provider: any PushProvider
    ) throws {
        self.context = context
        self.sessions = sessions
        self.store = store
        self.provider = provider
        guard let mode = NumberChallenge.Mode(rawValue: context.configuration.pushNumberChallenge) else {
            throw ServerStartupError(message: "--push-number-challenge must be off, in-push or type-in")
        }
        self.mode = mode
        guard let environment = APNsEnvironment(rawValue: context.configuration.apnsEnvironment) else {
            throw ServerStartupError(message: "--apns-environment must be production or sandbox")
        }
        defaultEnvironment = environment
        context.recoveryStarts.add { [weak self] request in self?.alertRecovery(request) }
    }

    /// A recovery of the account started to wait (`--recovery-delay`): every enabled phone of
    /// the account is told, `notificationScenario: "ACCOUNT_RECOVERY"`, with the recovery's id
    /// and when it opens, so that its owner can stop it from a signed-in session.
    func alertRecovery(_ request: RecoveryRequestRecord) {
        let provider = provider, store = store, metrics = context.metrics, logger = logger, rp = context.rp
        let applicationName = applicationName, fallback = defaultEnvironment
        Task.detached {
            let devices: [PushDeviceRecord]
            do { devices = try await store.pushDevices(userHandle: request.userHandle).filter { !$0.disabled } } catch {
                logger.warning("could not read the phones to tell of a recovery", metadata: ["error": "\(error)"])
                return
            }
            for device in devices {
                let message = PushMessage(
                    deviceID: device.id, deviceToken: device.deviceToken,
                    data: [
                        "tenantDomain": rp.id, "deviceId": device.id, "applicationName": applicationName, "notificationScenario": "ACCOUNT_RECOVERY",
                        "recoveryId": request.publicID, "readyAt": PasskeySignIn.timestamp(request.readyAt),
                    ],
                    alertTitle: "Account recovery started",
                    alertBody: "Someone started recovering your \(applicationName) account. If it was not you, stop it from a signed-in browser.",
                    apnsEnvironment: Self.environment(of: device, fallback: fallback))
                let result = await provider.send(message)
                metrics.pushDelivered(provider: provider.name, result: result.label)
                if case .failed(let reason) = result {
                    logger.warning("recovery alert delivery failed", metadata: ["device": "\(device.id)", "reason": "\(LogText.escaped(reason))"])
                }
            }
        }
    }

    /// The RP's name as pushes carry it: clipped to 100 characters, so that a long name cannot
    /// push an APNs payload past its 4 KB.
    var applicationName: String { String(String.UnicodeScalarView(context.rp.name.unicodeScalars.prefix(100))) }

    /// Where pushes to `device` go: the environment it enrolled with, else `--apns-environment`.
    static func environment(of device: PushDeviceRecord, fallback: APNsEnvironment) -> APNsEnvironment {
        device.apnsEnvironment.flatMap(APNsEnvironment.init(rawValue:)) ?? fallback
    }

    /// `POST /push/recovery-veto`: the phone's "this wasn't me" to a waiting recovery of its
    /// account (docs/contracts/accounts.md: any enrolled device can cancel it). The JWT is verified with the
    /// device's key; the recovery must be a waiting one of the device's account, else 404
    /// `not_found` (a second veto too). The code the recovery spent stays spent.
    public func vetoRecovery(body: [UInt8]) async throws {
        let now = context.now()
        let (device, veto) = try await signedByDevice(body) { token, key throws(PushError) in
            try AnswerToken.verifyVeto(token, key: key, now: now)
        }
        let event = context.event(device.userHandle, "recovery_cancelled", at: now, ["recovery": veto.recoveryID, "device": device.id])
        guard try await store.cancelRecovery(publicID: veto.recoveryID, userHandle: device.userHandle, event: event) else {
            throw APIError.notFound
        }
    }

    // MARK: Enrolment

    /// `POST /push/devices/discovery`: a new device id and single-use challenge for the
    /// signed-in account, and the QR code that carries them to the phone.
    public func discovery(_ session: SignedInUser) async throws -> PushDiscoveryResponse {
        try await sessions.requireRecentAuthentication(session)
        let deviceID = UUID().uuidString.lowercased()
        let challenge = UUID().uuidString.lowercased()
        try await store.insertPushDiscovery(PushDiscoveryRecord(
            deviceID: deviceID, userHandle: session.user.handle, challenge: challenge,
            expiresAt: context.now().addingTimeInterval(configuration.pushDiscoveryTTL)))
        var response = PushDiscoveryResponse(
            deviceId: deviceID, username: session.user.name, host: context.rp.pageOrigin, tenantDomain: context.rp.id,
            challenge: challenge, qrSvg: nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(response), as: UTF8.self)
        do {
            response.qrSvg = try QRCode(text).svg(title: "Scan with the authenticator app")
        } catch {
            throw APIError.invalidRequest("The enrolment data does not fit in a QR code (the user name is too long).")
        }
        return response
    }

    /// The body of `POST /push/devices`.
    struct Registration: Decodable {
        let deviceId: String
        let name: String
        let model: String
        let deviceToken: String
        let publicKey: String
        let signature: String
        let apnsEnvironment: String?
    }

    /// `POST /push/devices`: the phone registers its key; the QR data is the capability. Checks
    /// in order — the body, the pending discovery, the key, the signature — and spends the
    /// discovery only when the device is stored.
    public func register(body: [UInt8]) async throws -> String {
        let registration = try JSONBody.decode(Registration.self, body)
        try Self.checkText(registration.name, "name", limit: 64)
        try Self.checkText(registration.model, "model", limit: 64)
        try Self.checkText(registration.deviceToken, "deviceToken", limit: 4096)
        do { try DeviceToken.check(registration.deviceToken, provider: provider.name) } catch { throw APIError(error) }
        let environment = try registration.apnsEnvironment.map { text in
            guard let environment = APNsEnvironment(rawValue: text) else {
                throw APIError.invalidRequest("apnsEnvironment must be production or sandbox.")
            }
            return environment
        } ?? defaultEnvironment
        guard registration.deviceId.utf8.count <= 64 else { throw APIError.invalidRequest("deviceId is too long.") }
        let now = context.now()
        guard let discovery = try await store.pushDiscovery(deviceID: registration.deviceId, now: now) else {
            throw APIError(code: "unknown_challenge", message: "deviceId is not a pending enrolment (or it expired).")
        }
        let key: PublicKey
        do {
            key = try DeviceKey.parse(registration.publicKey)
            try Enrolment.checkSignature(registration.signature, challenge: discovery.challenge, deviceToken: registration.deviceToken, key: key)
        } catch {
            throw APIError(error)
        }
        let device = PushDeviceRecord(
            id: discovery.deviceID, userHandle: discovery.userHandle, name: registration.name, model: registration.model,
            deviceToken: registration.deviceToken, publicKey: key.subjectPublicKeyInfo, createdAt: now,
            apnsEnvironment: environment.rawValue)
        let event = context.event(discovery.userHandle, "push_device_enrolled", at: now, ["device": device.id, "name": device.name])
        switch try await store.registerPushDevice(device, now: now, maxDevices: configuration.pushMaxDevices, event: event) {
        case .registered:
            return device.id
        case .discoveryGone:
            throw APIError(code: "unknown_challenge", message: "deviceId is not a pending enrolment (or it expired).")
        case .tooManyDevices:
            throw APIError(
                code: "too_many_devices",
                message: "This account has \(configuration.pushMaxDevices) devices already; remove one first.")
        }
    }

    /// Names, models and tokens: no control characters (PostgreSQL cannot hold NUL), bounded.
    static func checkText(_ text: String, _ field: String, limit: Int) throws {
        guard !text.isEmpty, text.utf8.count <= limit else {
            throw APIError.invalidRequest("\(field) must be 1 to \(limit) bytes.")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError.invalidRequest("\(field) must not contain control characters.")
        }
    }

    public func deleteDevice(_ session: SignedInUser, id: String) async throws {
        try await sessions.requireRecentAuthentication(session)
        let event = context.event(session.user.handle, "push_device_deleted", at: context.now(), ["device": id])
        guard id.utf8.count <= 64, try await store.deletePushDevice(id: id, userHandle: session.user.handle, event: event) else {
            throw APIError.notFound
        }
    }

    /// `GET /me`'s `push_devices`.
    package func meDevices(_ userHandle: [UInt8]) async throws -> [MeResponse.PushDevice] {
        try await store.pushDevices(userHandle: userHandle).map { device in
            let key = (try? PublicKey(subjectPublicKeyInfo: device.publicKey)).map(DeviceKey.label) ?? "unknown"
            return MeResponse.PushDevice(
                deviceId: device.id, name: device.name, model: device.model, key: key,
                createdAt: PasskeySignIn.timestamp(device.createdAt), lastUsedAt: device.lastUsedAt.map(PasskeySignIn.timestamp),
                disabled: device.disabled)
        }
    }

    // MARK: Authentication

    /// `POST /push/authentication_initialize`: a request for the named account, and a push to
    /// each of its devices. A name without devices, or unknown, gets the same answer and no push.
    public func initialize(userName rawName: String?) async throws -> PushInitializeResponse {
        guard let rawName else { throw APIError.invalidRequest("user_name is required.") }
        let name = try UserName(rawName)
        let user = try await store.user(nameKey: name.key)
        // Each request pushes to a person's phones: `--rate-limit-user` a minute per account (or
        // unknown name), counted across every instance on the database.
        let key = user.map { "push-user:" + Base64URL.encode($0.handle) } ?? "push-name:" + name.key
        try await SharedLimit(store: store, limit: context.configuration.rateLimitPerUser, window: 60).take([key], now: context.now())
        var devices: [PushDeviceRecord] = []
        // A disabled account is answered as one without phones: no push, nothing told.
        if let user, !user.disabled { devices = try await store.pushDevices(userHandle: user.handle).filter { !$0.disabled } }
        let now = context.now()
        let watch = SecureRandom.bytes(32)
        let number = mode == .off ? nil : NumberChallenge.draw()
        let request = PushRequestRecord(
            id: UUID().uuidString.lowercased(), userHandle: devices.isEmpty ? nil : user?.handle, watchHash: Digest.sha256.hash(watch),
            challenge: UUID().uuidString.lowercased(), number: number, createdAt: now, expiresAt: now.addingTimeInterval(configuration.pushTTL))
        try await store.insertPushRequest(request)
        if let user, !devices.isEmpty {
            send(request, to: devices, user: user, client: RequestClient.current)
        }
        return PushInitializeResponse(
            pushAuthId: request.id, watch: Base64URL.encode(watch), numberChallenge: number,
            expiresAt: PasskeySignIn.timestamp(request.expiresAt))
    }

    /// Hands the pushes to the provider without holding up the answer; counts each, disables
    /// a device the provider reports gone.
    func send(_ request: PushRequestRecord, to devices: [PushDeviceRecord], user: UserRecord, client: RequestClient?) {
        deliver(devices.map { device in
            PushMessage(
                deviceID: device.id, deviceToken: device.deviceToken,
                data: pushData(request, device: device, user: user, client: client),
                alertTitle: "Sign-in request", alertBody: "Approve the sign-in to \(applicationName) on this phone.",
                apnsEnvironment: Self.environment(of: device, fallback: defaultEnvironment))
        })
    }

    /// Hands `messages` to the provider in the background; counts each, disables a device the
    /// provider reports gone.
    func deliver(_ messages: [PushMessage]) {
        let provider = provider
        let store = store
        let metrics = context.metrics
        let logger = logger
        Task.detached {
            await withTaskGroup(of: Void.self) { group in
                for message in messages {
                    group.addTask {
                        let result = await provider.send(message)
                        metrics.pushDelivered(provider: provider.name, result: result.label)
                        switch result {
                        case .delivered:
                            break
                        case .deviceGone:
                            logger.notice("push device gone; disabled", metadata: ["device": "\(message.deviceID)"])
                            try? await store.disablePushDevice(id: message.deviceID)
                        case .failed(let reason):
                            logger.warning("push delivery failed", metadata: [
                                "device": "\(message.deviceID)", "provider": "\(provider.name)", "reason": "\(LogText.escaped(reason))",
                            ])
                        }
                    }
                }
            }
        }
    }

    /// The seed's push data, every value a string, the same on every provider: the phone shows
    /// whose sign-in it is and where it comes from (`username`, `ipAddress`, `deviceOS`,
    /// `browser`) so that its owner can tell a sign-in of their own from someone else's. Every
    /// value is bounded (names 256 bytes, the RP's name 100 characters), so the APNs payload
    /// stays under 4 KB.
    func pushData(_ request: PushRequestRecord, device: PushDeviceRecord, user: UserRecord, client: RequestClient?) -> [String: String] {
        let userAgent = client?.userAgent ?? ""
        var data = [
            "username": user.name, "tenantDomain": context.rp.id, "deviceId": device.id, "applicationName": applicationName,
            "notificationScenario": "AUTHENTICATION", "pushId": request.id, "challenge": request.challenge,
            "ipAddress": client?.address ?? "", "deviceOS": Self.operatingSystem(userAgent), "browser": Self.browser(userAgent),
        ]
        if mode == .inPush, let number = request.number { data["numberChallenge"] = String(number) }
        return data
    }

    static func operatingSystem(_ userAgent: String) -> String {
        for (marker, name) in [("iPhone", "iOS"), ("iPad", "iPadOS"), ("Android", "Android"), ("Mac OS X", "macOS"), ("Windows", "Windows"),
                               ("CrOS", "ChromeOS"), ("Linux", "Linux")] where userAgent.contains(marker) {
            return name
        }
        return "Unknown"
    }

    static func browser(_ userAgent: String) -> String {
        for (marker, name) in [("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari")]
        where userAgent.contains(marker) {
            return name
        }
        return "Unknown"
    }

    /// `POST /push/authenticate`: the phone's answer. Counted as `push`: an approval is `ok`,
    /// a denial is refused with `denied`.
    public func authenticate(body: [UInt8]) async throws {
        let status: PushRequestStatus
        do {
            status = try await answer(body: body)
        } catch {
            context.metrics.ceremony("push", .refused, error: APIError.code(for: error))
            throw error
        }
        if status == .approved {
            context.metrics.ceremony("push", .ok)
        } else {
            context.metrics.ceremony("push", .refused, error: status.rawValue)
        }
    }

    /// The checks of docs/contracts/push.md in order; the state the answer moved its request to (approved or
    /// denied; a number mismatch is stored, then thrown).
    private func answer(body: [UInt8]) async throws -> PushRequestStatus {
        let now = context.now()
        let (device, answer) = try await signedByDevice(body) { token, key throws(PushError) in
            try AnswerToken.verify(token, key: key, now: now)
        }
        guard let request = try await store.pushRequest(id: answer.pushAuthID), request.userHandle == device.userHandle else {
            throw Self.unknownRequest
        }
        try Self.checkEnrolledBefore(device, request)
        try Self.checkNotReplaced(request)
        guard request.status == PushRequestStatus.pending.rawValue, now < request.expiresAt else {
            throw Self.alreadyAnswered
        }
        // A CIBA approval has no number: its binding message plays that part.
        let approval = request.purpose == PushRequestRecord.cibaPurpose
        let status: PushRequestStatus
        do {
            status = try PushDecision.decide(answer, challenge: request.challenge, number: request.number, mode: approval ? .off : mode)
        } catch {
            throw APIError(error)
        }
        let event: AuditEvent? = switch (status, approval) {
        case (.approved, true): context.event(device.userHandle, "ciba_approved", at: now, ["device": device.id, "request": request.id])
        case (.denied, true): context.event(device.userHandle, "ciba_denied", at: now, ["device": device.id, "request": request.id])
        case (.denied, _): context.event(device.userHandle, "push_denied", at: now, ["device": device.id, "request": request.id])
        case (.numberMismatch, _): context.event(device.userHandle, "push_number_mismatch", at: now, ["device": device.id, "request": request.id])
        default: nil
        }
        guard try await store.answerPushRequest(id: request.id, deviceID: device.id, status: status.rawValue, now: now, event: event) else {
            throw Self.alreadyAnswered
        }
        if approval { approvalAnswers.publish(request.id) }
        if status == .numberMismatch {
            throw APIError(code: "number_mismatch", message: "The number chosen on the phone is not the one shown.")
        }
        return status
    }

    /// A body `{"authResponse": JWT}` from a phone: the enrolled, enabled device its header
    /// names, and what `verify` makes of the token with that device's key. An unknown or
    /// disabled device is `invalid_token`, as is anything `verify` refuses.
    private func signedByDevice<T>(
        _ body: [UInt8], verify: (String, PublicKey) throws(PushError) -> T
    ) async throws -> (PushDeviceRecord, T) {
        let token = try JSONBody.decode(SignedByPhone.self, body).authResponse
        do {
            let deviceID = try AnswerToken.deviceID(of: token)
            guard let device = try await store.pushDevice(id: deviceID), !device.disabled,
                  let key = try? PublicKey(subjectPublicKeyInfo: device.publicKey)
            else {
                throw PushError(code: "invalid_token", message: "The token's deviceId is not an enrolled device.")
            }
            return (device, try verify(token, key))
        } catch let error as PushError {
            throw APIError(error)
        }
    }

    /// The body of the phone's answers and vetoes.
    struct SignedByPhone: Decodable { let authResponse: String }

    static let unknownRequest = APIError(code: "unknown_challenge", message: "No request with that pushAuthId is waiting for this device.")

    /// Only a device enrolled when the request was made can answer it (docs/contracts/push.md): a phone
    /// enrolled afterwards was not asked, so its answer is for a request it never received.
    static func checkEnrolledBefore(_ device: PushDeviceRecord, _ request: PushRequestRecord) throws {
        guard device.createdAt <= request.createdAt else { throw unknownRequest }
    }

    /// A request a newer one replaced is no longer the account's: an answer to it is
    /// `unknown_challenge`, not `already_answered` (nobody answered it).
    static func checkNotReplaced(_ request: PushRequestRecord) throws {
        guard request.status != PushRequestStatus.replaced.rawValue else { throw unknownRequest }
    }

    static let alreadyAnswered = APIError(code: "already_answered", message: "The request was answered already, or expired.")

    /// `GET /push/authentication_status?watch=`: the request's state; the first call that sees
    /// it approved opens the session.
    public func status(watch: String?) async throws -> (PushStatusResponse, token: String?) {
        guard let watch, let secret = Base64URL.decodeStrict(watch), secret.count == 32,
              let request = try await store.pushRequest(watchHash: Digest.sha256.hash(secret))
        else {
            throw APIError.notFound
        }
        var status = request.status
        if status == PushRequestStatus.pending.rawValue, context.now() >= request.expiresAt {
            status = PushRequestStatus.expired.rawValue
        }
        // Its browser was not answered: for it the request is over, as one that expired.
        if status == PushRequestStatus.replaced.rawValue { status = PushRequestStatus.expired.rawValue }
        guard status == PushRequestStatus.approved.rawValue, !request.sessionIssued, let handle = request.userHandle else {
            return (PushStatusResponse(status: status), nil)
        }
        if try await sessions.isDisabled(handle) { throw APIError.accountDisabled }
        // Number matching (the user typed the number shown here) is the second factor of `amr`'s mfa.
        let (token, session) = sessions.newSession(
            userHandle: handle, credentialID: nil, via: request.deviceID.map { "push:" + $0 }, userVerified: request.number != nil)
        let event = context.event(handle, "sign_in", at: context.now(), ["method": "push", "device": request.deviceID ?? ""])
        guard let userName = try await store.issuePushSession(id: request.id, session: session, event: event) else {
            return (PushStatusResponse(status: status), nil)
        }
        return (PushStatusResponse(status: status, session: token, userName: userName), token)
    }
}

