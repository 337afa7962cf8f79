import Foundation
import PasskeyStorage
import Testing

/// The store contract: Push authenticator.
struct PushContract {
    static let checks: [StoreCheck] = [
        StoreCheck("enrolment spends the discovery once, stores the device (its APNs environment too) with its event, and keeps to the limit") { try await PushContract().enrolment($0) },
        StoreCheck("a request is answered once, by a device of its account; a new request replaces the pending one") { try await PushContract().answering($0) },
        StoreCheck("concurrent answers: exactly one changes the request") { try await PushContract().concurrentAnswers($0) },
    ]

    static func device(_ user: UserRecord, id: String = UUID().uuidString, at offset: Int64 = 0) -> PushDeviceRecord {
        PushDeviceRecord(
            id: id, userHandle: user.handle, name: "Phone", model: "iPhone15,2", deviceToken: "token-\(id)", publicKey: Fixture.bytes(294),
            createdAt: Fixture.date(offset), apnsEnvironment: "sandbox")
    }

    static func request(_ user: UserRecord?, id: String = UUID().uuidString, expiresIn: Int64 = 120_000) -> PushRequestRecord {
        PushRequestRecord(
            id: id, userHandle: user?.handle, watchHash: Fixture.bytes(32), challenge: UUID().uuidString, number: 42,
            createdAt: Fixture.date(), expiresAt: Fixture.date(expiresIn))
    }

    static func event(_ user: UserRecord, _ type: String) -> AuditEvent {
        AuditEvent(userHandle: user.handle, type: type, at: Fixture.date(), ip: nil, userAgent: nil)
    }

    static func enrol(_ store: any StoreFixtures, _ user: UserRecord, max: Int = 5) async throws -> (PushDeviceRecord, PushEnrolmentOutcome) {
        let device = Self.device(user)
        try await store.insertPushDiscovery(
            PushDiscoveryRecord(deviceID: device.id, userHandle: user.handle, challenge: "c", expiresAt: Fixture.date(180_000)))
        return (device, try await store.registerPushDevice(device, now: Fixture.date(1), maxDevices: max, event: Self.event(user, "push_device_enrolled")))
    }

    func enrolment(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user(name: "pat")
            try await store.registerCredential(Fixture.credential(for: user), newUser: user)
            let (device, outcome) = try await Self.enrol(store, user)
            #expect(outcome == .registered)
            #expect(try await store.pushDevice(id: device.id) == device)
            #expect(try await store.pushDevices(userHandle: user.handle) == [device])
            #expect(try await store.pushDevice(id: device.id)?.apnsEnvironment == "sandbox")
            #expect(try await store.pushDiscovery(deviceID: device.id, now: Fixture.date(2)) == nil)
            // The same discovery again.
            var again = device
            again.deviceToken = "other"
            #expect(try await store.registerPushDevice(again, now: Fixture.date(2), maxDevices: 5, event: nil) == .discoveryGone)
            // An expired discovery.
            let late = Self.device(user)
            try await store.insertPushDiscovery(PushDiscoveryRecord(deviceID: late.id, userHandle: user.handle, challenge: "c", expiresAt: Fixture.date(10)))
            #expect(try await store.pushDiscovery(deviceID: late.id, now: Fixture.date(10)) == nil)
            #expect(try await store.registerPushDevice(late, now: Fixture.date(10), maxDevices: 5, event: nil) == .discoveryGone)
            // The limit: a second device with a limit of 1 is refused and the discovery stays.
            let (second, limited) = try await Self.enrol(store, user, max: 1)
            #expect(limited == .tooManyDevices)
            #expect(try await store.pushDiscovery(deviceID: second.id, now: Fixture.date(2)) != nil)
            #expect(try await store.events(userHandle: user.handle, before: nil, limit: 10).map(\.type) == ["push_device_enrolled"])
        }
    }

    func answering(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user(name: "quinn")
            try await store.registerCredential(Fixture.credential(for: user), newUser: user)
            let (device, _) = try await Self.enrol(store, user)
            let other = Fixture.user(name: "rory")
            try await store.registerCredential(Fixture.credential(for: other), newUser: other)
            let (stranger, _) = try await Self.enrol(store, other)

            let first = Self.request(user)
            try await store.insertPushRequest(first)
            let second = Self.request(user)
            try await store.insertPushRequest(second)
            #expect(try await store.pushRequest(id: first.id)?.status == "replaced")
            #expect(try await store.pushRequest(watchHash: second.watchHash) == second)

            // Another account's device cannot answer.
            #expect(try await !store.answerPushRequest(id: second.id, deviceID: stranger.id, status: "approved", now: Fixture.date(5), event: nil))
            #expect(try await store.answerPushRequest(
                id: second.id, deviceID: device.id, status: "approved", now: Fixture.date(5), event: Self.event(user, "push_approved")))
            #expect(try await !store.answerPushRequest(id: second.id, deviceID: device.id, status: "denied", now: Fixture.date(6), event: nil))
            let answered = try #require(try await store.pushRequest(id: second.id))
            #expect(answered.status == "approved" && answered.deviceID == device.id)
            #expect(try await store.pushDevice(id: device.id)?.lastUsedAt == Fixture.date(5))
            // Expired: no answer.
            let third = Self.request(user, expiresIn: 10)
            try await store.insertPushRequest(third)
            #expect(try await !store.answerPushRequest(id: third.id, deviceID: device.id, status: "approved", now: Fixture.date(10), event: nil))

            // The session is issued once.
            var session = Fixture.session(for: user)
            session.via = "push:" + device.id
            #expect(try await store.issuePushSession(id: second.id, session: session, event: Self.event(user, "sign_in")) == "quinn")
            #expect(try await store.issuePushSession(id: second.id, session: Fixture.session(for: user), event: nil) == nil)
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date(6))?.via == "push:" + device.id)
            // Deleting the device ends the sessions it approved.
            #expect(try await store.deletePushDevice(id: device.id, userHandle: user.handle, event: Self.event(user, "push_device_deleted")))
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date(6)) == nil)
            #expect(try await !store.deletePushDevice(id: device.id, userHandle: user.handle, event: nil))
            // A request for an unknown name has no account.
            let anonymous = Self.request(nil)
            try await store.insertPushRequest(anonymous)
            #expect(try await store.pushRequest(id: anonymous.id)?.userHandle == nil)
            try await store.disablePushDevice(id: stranger.id)
            #expect(try await store.pushDevice(id: stranger.id)?.disabled == true)
        }
    }

    func concurrentAnswers(_ engine: any StoreEngine) async throws {
        try await withTwoStores(engine) { a, b in
            let user = Fixture.user(name: "sam")
            try await a.registerCredential(Fixture.credential(for: user), newUser: user)
            let (device, _) = try await Self.enrol(a, user)
            let request = Self.request(user)
            try await a.insertPushRequest(request)
            let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<10 {
                    let store = index % 2 == 0 ? a : b
                    group.addTask {
                        try await store.answerPushRequest(
                            id: request.id, deviceID: device.id, status: index % 3 == 0 ? "denied" : "approved", now: Fixture.date(1), event: nil)
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1)
        }
    }
}
