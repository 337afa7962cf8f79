public import Foundation

/// The push authenticator: enrolled devices and the requests sent to them (docs/contracts/push.md).
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol PushStore: Sendable {
    // MARK: Push authenticator

    func insertPushDiscovery(_ discovery: PushDiscoveryRecord) async throws
    /// The discovery, if present and unexpired at `now`.
    func pushDiscovery(deviceID: String, now: Date) async throws -> PushDiscoveryRecord?

    /// Spends the discovery (unexpired at `now`) and stores the device with `event`, in one
    /// write; refused when the account has `maxDevices` devices already.
    func registerPushDevice(_ device: PushDeviceRecord, now: Date, maxDevices: Int, event: AuditEvent?) async throws -> PushEnrolmentOutcome

    func pushDevice(id: String) async throws -> PushDeviceRecord?
    /// The account's devices, oldest first.
    func pushDevices(userHandle: [UInt8]) async throws -> [PushDeviceRecord]
    /// Deletes the account's device and the sessions it approved; false when there is none.
    func deletePushDevice(id: String, userHandle: [UInt8], event: AuditEvent?) async throws -> Bool
    /// The provider reported the device gone: no more pushes to it.
    func disablePushDevice(id: String) async throws

    /// Stores a new request; the account's pending one (if any) expires with it.
    func insertPushRequest(_ request: PushRequestRecord) async throws
    func pushRequest(id: String) async throws -> PushRequestRecord?
    func pushRequest(watchHash: [UInt8]) async throws -> PushRequestRecord?

    /// Moves the request from pending (unexpired at `now`, of the device's account) to
    /// `status` with the answering device, marks the device used, stores `event`: once. False
    /// (nothing changed) when the request is no longer pending.
    func answerPushRequest(id: String, deviceID: String, status: String, now: Date, event: AuditEvent?) async throws -> Bool

    /// Opens the session of an approved request the first time it is asked for, with `event`;
    /// the account's name then, nil when the session was issued before (or not approved).
    func issuePushSession(id: String, session: SessionRecord, event: AuditEvent?) async throws -> String?
}
