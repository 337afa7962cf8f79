import Foundation
import Testing
import PasskeyStorage

/// The store contract: CIBA requests, their fatigue limits, answers and one redemption.
struct BackchannelContract {
    static let checks: [StoreCheck] = [
        StoreCheck("a CIBA request starts with its push, refused while one of the client waits or past the hourly limit") { try await BackchannelContract().limits($0) },
        StoreCheck("a CIBA request is answered once and redeemed once, with its session and grant") { try await BackchannelContract().answerAndRedeem($0) },
        StoreCheck("two instances starting a request for one user and client store one") { try await BackchannelContract().twoInstances($0) },
    ]

    /// A request of `client` for `user`, and its push request.
    static func request(_ user: UserRecord, client: String = "wiki", at offset: Int64 = 0) -> (BackchannelRequestRecord, PushRequestRecord) {
        let push = PushRequestRecord(
            id: UUID().uuidString.lowercased(), userHandle: user.handle, watchHash: Fixture.bytes(32), challenge: UUID().uuidString, number: nil,
            createdAt: Fixture.date(offset), expiresAt: Fixture.date(offset + 300_000), purpose: PushRequestRecord.cibaPurpose)
        let request = BackchannelRequestRecord(
            idHash: Fixture.bytes(32), pushID: push.id, clientID: client, userHandle: user.handle, scopes: ["openid"], bindingMessage: "Call #42",
            acrValues: nil, ip: "192.0.2.1", notificationToken: "nt", interval: 5, createdAt: Fixture.date(offset), expiresAt: push.expiresAt)
        return (request, push)
    }

    func limits(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let ada = try await GrantContract.prepare(store)
            #expect(try await store.insertClient(ClientContract.client("desk")) == true)
            let (first, firstPush) = Self.request(ada)
            let hourStart = Fixture.date(-3_600_000)
            #expect(try await store.startBackchannel(first, push: firstPush, hourlyLimit: 2, hourStart: hourStart, event: nil) == .started)
            let stored = try #require(try await store.backchannelRequest(idHash: first.idHash))
            #expect(stored == first)
            #expect(try await store.backchannelRequest(pushID: firstPush.id) == first)
            #expect(try await store.pushRequest(id: firstPush.id)?.purpose == PushRequestRecord.cibaPurpose)
            // A second of the same client while the first waits: nothing stored.
            let (again, againPush) = Self.request(ada)
            #expect(try await store.startBackchannel(again, push: againPush, hourlyLimit: 2, hourStart: hourStart, event: nil) == .pendingForClient)
            #expect(try await store.backchannelRequest(idHash: again.idHash) == nil)
            #expect(try await store.pushRequest(id: againPush.id) == nil)
            // Another client's: started, then the hourly limit (2) is reached.
            let (desk, deskPush) = Self.request(ada, client: "desk")
            #expect(try await store.startBackchannel(desk, push: deskPush, hourlyLimit: 2, hourStart: hourStart, event: nil) == .started)
            #expect(try await store.insertClient(ClientContract.client("ops")) == true)
            let (third, thirdPush) = Self.request(ada, client: "ops")
            #expect(try await store.startBackchannel(third, push: thirdPush, hourlyLimit: 2, hourStart: hourStart, event: nil) == .hourlyLimit)
            #expect(try await store.pushRequest(id: thirdPush.id) == nil)
            // Requests older than the hour no longer count.
            #expect(try await store.startBackchannel(third, push: thirdPush, hourlyLimit: 2, hourStart: Fixture.date(1), event: nil) == .started)
            // A sign-in's push does not replace a CIBA one, nor the reverse.
            try await store.insertPushRequest(PushRequestRecord(
                id: "sign-in", userHandle: ada.handle, watchHash: Fixture.bytes(32), challenge: "c", number: 7, createdAt: Fixture.date(),
                expiresAt: Fixture.date(60_000)))
            #expect(try await store.pushRequest(id: firstPush.id)?.status == "pending")
            #expect(Set(try await store.pendingBackchannel(userHandle: ada.handle, now: Fixture.date()).map(\.pushID)) == [firstPush.id, deskPush.id, thirdPush.id])
            #expect(try await store.pendingBackchannel(userHandle: ada.handle, now: Fixture.date(300_000)).isEmpty)
        }
    }

    func answerAndRedeem(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let ada = try await GrantContract.prepare(store)
            let (request, push) = Self.request(ada)
            #expect(try await store.startBackchannel(request, push: push, hourlyLimit: 10, hourStart: Fixture.date(-3_600_000), event: nil) == .started)
            let session = Fixture.session(for: ada)
            var grant = GrantContract.grant(ada)
            grant.sessionHash = session.tokenHash
            // Not approved: nothing redeemed.
            #expect(try await store.redeemBackchannel(idHash: request.idHash, session: session, grant: grant, event: nil) == false)
            let credential = try await store.credentials(userHandle: ada.handle).first?.id
            #expect(try await store.answerBackchannel(
                pushID: push.id, userHandle: Fixture.user(name: "eve").handle, approve: true, credentialID: nil, now: Fixture.date(), event: nil) == false)
            #expect(try await store.answerBackchannel(
                pushID: push.id, userHandle: ada.handle, approve: true, credentialID: credential, now: Fixture.date(), event: GrantContract.event(ada, "ciba_approved")))
            #expect(try await store.answerBackchannel(
                pushID: push.id, userHandle: ada.handle, approve: false, credentialID: nil, now: Fixture.date(), event: nil) == false)
            let approved = try #require(try await store.backchannelRequest(idHash: request.idHash))
            #expect(approved.status == "approved" && approved.approvedCredentialID == credential)
            try await store.recordBackchannelPoll(idHash: request.idHash, at: Fixture.date(1000), interval: 10)
            #expect(try await store.backchannelRequest(idHash: request.idHash)?.interval == 10)
            #expect(try await store.backchannelRequest(idHash: request.idHash)?.lastPolledAt == Fixture.date(1000))
            #expect(try await store.redeemBackchannel(idHash: request.idHash, session: session, grant: grant, event: nil))
            #expect(try await store.backchannelRequest(idHash: request.idHash)?.redeemed == true)
            #expect(try await store.grant(id: grant.id) == grant)
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date()) != nil)
            var second = GrantContract.grant(ada)
            second.sessionHash = Fixture.bytes(32)
            #expect(try await store.redeemBackchannel(idHash: request.idHash, session: Fixture.session(for: ada), grant: second, event: nil) == false)
            #expect(try await store.grant(id: second.id) == nil)
        }
    }

    func twoInstances(_ engine: any StoreEngine) async throws {
        try await withTwoStores(engine) { (first: any StoreFixtures, second: any StoreFixtures) async throws in
            let ada = try await GrantContract.prepare(first)
            let (a, aPush) = Self.request(ada), (b, bPush) = Self.request(ada)
            let hourStart = Fixture.date(-3_600_000)
            async let one = first.startBackchannel(a, push: aPush, hourlyLimit: 10, hourStart: hourStart, event: nil)
            async let two = second.startBackchannel(b, push: bPush, hourlyLimit: 10, hourStart: hourStart, event: nil)
            let outcomes = try await [one, two]
            #expect(outcomes.filter { $0 == .started }.count == 1)
            #expect(outcomes.filter { $0 == .pendingForClient }.count == 1)
        }
    }
}
