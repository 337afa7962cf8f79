import Foundation
import Testing
import PasskeyStorage

/// The store contract: the OpenID provider's device authorizations (RFC 8628).
struct DeviceContract {
    static let checks: [StoreCheck] = [
        StoreCheck("a device authorization round-trips by user code until it expires; a taken user code is refused") { try await DeviceContract().roundTrip($0) },
        StoreCheck("a poll notes its time; one sooner than the interval is too fast and raises the interval") { try await DeviceContract().polls($0) },
        StoreCheck("a decision is taken once, only while pending and unexpired; an approval writes its grant with it") { try await DeviceContract().decisions($0) },
        StoreCheck("device authorizations go with their client and are swept once expired") { try await DeviceContract().lifecycle($0) },
    ]

    static func authorization(client: String = "wiki", expiresIn: Int64 = 600_000) -> DeviceAuthorizationRecord {
        DeviceAuthorizationRecord(
            deviceCodeHash: Fixture.bytes(32), userCodeHash: Fixture.bytes(32), clientID: client, scopes: ["openid", "profile"], interval: 5,
            createdAt: Fixture.date(), expiresAt: Fixture.date(expiresIn))
    }

    func roundTrip(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            _ = try await GrantContract.prepare(store)
            let device = Self.authorization()
            #expect(try await store.insertDeviceAuthorization(device) == true)
            #expect(try await store.deviceAuthorization(userCodeHash: device.userCodeHash, now: Fixture.date(599_999)) == device)
            #expect(try await store.deviceAuthorization(userCodeHash: device.userCodeHash, now: Fixture.date(600_000)) == nil)
            var clash = Self.authorization()
            clash.userCodeHash = device.userCodeHash
            #expect(try await store.insertDeviceAuthorization(clash) == false)
            #expect(try await store.pollDeviceAuthorization(deviceCodeHash: clash.deviceCodeHash, now: Fixture.date(), slowDownStep: 5) == nil)
        }
    }

    func polls(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            _ = try await GrantContract.prepare(store)
            let device = Self.authorization()
            #expect(try await store.insertDeviceAuthorization(device) == true)
            let first = try #require(try await store.pollDeviceAuthorization(deviceCodeHash: device.deviceCodeHash, now: Fixture.date(1000), slowDownStep: 5))
            #expect(first.tooFast == false)
            #expect(first.authorization.lastPolledAt == Fixture.date(1000))
            #expect(first.authorization.interval == 5)
            let fast = try #require(try await store.pollDeviceAuthorization(deviceCodeHash: device.deviceCodeHash, now: Fixture.date(5999), slowDownStep: 5))
            #expect(fast.tooFast == true)
            #expect(fast.authorization.interval == 10)
            // The raised interval holds: 9.999 s later is still too fast, 10 s is not.
            let still = try #require(try await store.pollDeviceAuthorization(deviceCodeHash: device.deviceCodeHash, now: Fixture.date(15_998), slowDownStep: 5))
            #expect(still.tooFast == true)
            #expect(still.authorization.interval == 15)
            let calm = try #require(try await store.pollDeviceAuthorization(deviceCodeHash: device.deviceCodeHash, now: Fixture.date(30_998), slowDownStep: 5))
            #expect(calm.tooFast == false)
            #expect(calm.authorization.interval == 15)
            // Polls of an expired one still answer (so that the client hears expired_token).
            #expect(try await store.pollDeviceAuthorization(deviceCodeHash: device.deviceCodeHash, now: Fixture.date(700_000), slowDownStep: 5) != nil)
        }
    }

    func decisions(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let ada = try await GrantContract.prepare(store)
            let approved = Self.authorization(), denied = Self.authorization(), stale = Self.authorization(expiresIn: 1000)
            for device in [approved, denied, stale] { #expect(try await store.insertDeviceAuthorization(device) == true) }
            let grant = GrantContract.grant(ada)
            #expect(try await store.decideDeviceAuthorization(
                userCodeHash: approved.userCodeHash, grant: grant, now: Fixture.date(), event: GrantContract.event(ada, "oauth_device_approved")) == true)
            #expect(try await store.grant(id: grant.id) == grant)
            let polled = try #require(try await store.pollDeviceAuthorization(deviceCodeHash: approved.deviceCodeHash, now: Fixture.date(), slowDownStep: 5))
            #expect(polled.authorization.status == .approved)
            #expect(polled.authorization.grantID == grant.id)
            // Decided once: a second decision writes nothing, not even its grant or event.
            let second = GrantContract.grant(ada)
            #expect(try await store.decideDeviceAuthorization(
                userCodeHash: approved.userCodeHash, grant: second, now: Fixture.date(), event: GrantContract.event(ada, "second")) == false)
            #expect(try await store.grant(id: second.id) == nil)
            #expect(try await store.events(userHandle: ada.handle, before: nil, limit: 10).map(\.type) == ["oauth_device_approved"])

            #expect(try await store.decideDeviceAuthorization(userCodeHash: denied.userCodeHash, grant: nil, now: Fixture.date(), event: nil) == true)
            let deniedPoll = try #require(try await store.pollDeviceAuthorization(deviceCodeHash: denied.deviceCodeHash, now: Fixture.date(), slowDownStep: 5))
            #expect(deniedPoll.authorization.status == .denied)
            #expect(deniedPoll.authorization.grantID == nil)
            #expect(try await store.deviceAuthorization(userCodeHash: denied.userCodeHash, now: Fixture.date())?.status == .denied)

            #expect(try await store.decideDeviceAuthorization(userCodeHash: stale.userCodeHash, grant: nil, now: Fixture.date(1000), event: nil) == false)
            #expect(try await store.decideDeviceAuthorization(userCodeHash: Fixture.bytes(32), grant: nil, now: Fixture.date(), event: nil) == false)
        }
    }

    func lifecycle(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            _ = try await GrantContract.prepare(store)
            #expect(try await store.insertClient(ClientContract.client("tv")) == true)
            let stale = Self.authorization(expiresIn: 1000), live = Self.authorization(expiresIn: 100_000), removed = Self.authorization(client: "tv")
            for device in [stale, live, removed] { #expect(try await store.insertDeviceAuthorization(device) == true) }
            _ = try await store.sweepExpired(now: Fixture.date(2000))
            #expect(try await store.pollDeviceAuthorization(deviceCodeHash: stale.deviceCodeHash, now: Fixture.date(2000), slowDownStep: 5) == nil)
            #expect(try await store.deviceAuthorization(userCodeHash: live.userCodeHash, now: Fixture.date(2000)) == live)
            #expect(try await store.deleteClient(id: "tv") == true)
            #expect(try await store.deviceAuthorization(userCodeHash: removed.userCodeHash, now: Fixture.date()) == nil)
        }
    }
}
