public import Foundation
internal import PasskeyCrypto
internal import PasskeyJSON
public import PasskeyPush
public import PasskeyStorage

/// The push authenticator as CIBA's authentication device (docs/contracts/identity.md,
/// "Approval on the phone"): a client's request for the user's approval goes to the phones the
/// account has now, which answer at `/push/authenticate` as for a sign-in, without a number.
extension PushSignIn {
    /// `observer` hears the push id of each CIBA request a phone answered.
    public func onApprovalAnswered(_ observer: @escaping @Sendable (String) -> Void) {
        approvalAnswers.add(observer)
    }

    /// The phones a request for `userHandle` goes to: the enabled ones enrolled now.
    public func approvalDevices(userHandle: [UInt8]) async throws -> [PushDeviceRecord] {
        try await store.pushDevices(userHandle: userHandle).filter { !$0.disabled }
    }

    /// A CIBA request's push request: no number, no browser watching (its watch hash is random
    /// and never handed out), `purpose` `ciba`.
    public func approvalRequest(userHandle: [UInt8], now: Date, expiresAt: Date) -> PushRequestRecord {
        PushRequestRecord(
            id: UUID().uuidString.lowercased(), userHandle: userHandle, watchHash: Digest.sha256.hash(SecureRandom.bytes(32)),
            challenge: UUID().uuidString.lowercased(), number: nil, createdAt: now, expiresAt: expiresAt,
            purpose: PushRequestRecord.cibaPurpose)
    }

    /// The push of a CIBA request: the seed's data (`pushId`, `challenge`, the user and the RP;
    /// `ipAddress` the requesting client's), and `ciba`: a JSON object as a string (every value
    /// of the data is a string) with `client_name`, `binding_message` and `ip`.
    public func sendApproval(
        _ request: PushRequestRecord, to devices: [PushDeviceRecord], user: UserRecord, clientName: String, bindingMessage: String?, ip: String?
    ) {
        var ciba: [String: JSONValue] = ["client_name": .string(clientName), "ip": ip.map(JSONValue.string) ?? .null]
        ciba["binding_message"] = bindingMessage.map(JSONValue.string) ?? .null
        let member = String(decoding: JSONValue.object(ciba).encoded(), as: UTF8.self)
        deliver(devices.map { device in
            var data = pushData(request, device: device, user: user, client: RequestClient(address: ip ?? "", userAgent: nil))
            data["ciba"] = member
            let body = bindingMessage.map { "\(clientName) asks: \($0)" } ?? "\(clientName) asks for your approval."
            return PushMessage(
                deviceID: device.id, deviceToken: device.deviceToken, data: data, alertTitle: "Approval request",
                alertBody: String(body.prefix(200)), apnsEnvironment: Self.environment(of: device, fallback: defaultEnvironment))
        })
    }
}
