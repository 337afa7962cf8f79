import Foundation
import PasskeyStorage
import Testing

/// The store contract: Messages for Business.
struct MfBContract {
    static let checks: [StoreCheck] = [
        StoreCheck("a request round-trips, is found by its key's hash, and binds the first device only") { try await MfBContract().requestAndKeyAudit($0) },
        StoreCheck("a code is exchanged once, only by its client and redirect, for an access token of the same account") { try await MfBContract().codeExchange($0) },
        StoreCheck("a reply needs a live grant of its own request; failures and expiry delete the key") { try await MfBContract().repliesAndExpiry($0) },
        StoreCheck("a message the gateway took keeps its id and the request pending; a refused one fails it once, key deleted, with its event") {
            try await MfBContract().gatewaySends($0)
        },
    ]

    static func request(id: String = UUID().uuidString, expiresIn: Int64 = 600_000) -> MfBRequestRecord {
        MfBRequestRecord(
            id: id, privateKey: Fixture.bytes(48), publicPoint: [0x04] + Fixture.bytes(96), pointHash: Fixture.bytes(32),
            createdAt: Fixture.date(), expiresAt: Fixture.date(expiresIn))
    }

    static func grant(_ kind: MfBGrantRecord.Kind, of request: MfBRequestRecord, user: UserRecord, expiresIn: Int64 = 60_000) -> MfBGrantRecord {
        MfBGrantRecord(
            hash: Fixture.bytes(32), kind: kind, requestID: request.id, userHandle: user.handle, clientID: "client",
            redirectURI: "https://auth.example.com/cb", expiresAt: Fixture.date(expiresIn))
    }

    static func event(_ type: String, _ user: UserRecord? = nil) -> AuditEvent {
        AuditEvent(userHandle: user?.handle ?? [], type: type, at: Fixture.date(), ip: nil, userAgent: nil)
    }

    static func account(_ store: any StoreFixtures, _ name: String) async throws -> UserRecord {
        let user = Fixture.user(name: name)
        try await store.registerCredential(Fixture.credential(for: user), newUser: user)
        return user
    }

    func requestAndKeyAudit(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = try await Self.account(store, "mfb-cy")
            let mismatch = Self.event("mfb_key_mismatch", user)
            let request = Self.request()
            try await store.insertMfBRequest(request)
            #expect(try await store.mfbRequest(id: request.id) == request)
            #expect(try await store.mfbRequest(pointHash: request.pointHash) == request)
            #expect(try await store.mfbRequest(id: UUID().uuidString) == nil)
            // The same key twice is refused by the store, whatever the caller does.
            var clash = Self.request()
            clash.pointHash = request.pointHash
            await #expect(throws: (any Error).self) { try await store.insertMfBRequest(clash) }

            #expect(try await store.auditMfBDevice(requestID: request.id, deviceUserHandle: "device-a", now: Fixture.date(1), mismatch: mismatch))
            #expect(try await store.auditMfBDevice(requestID: request.id, deviceUserHandle: "device-a", now: Fixture.date(2), mismatch: mismatch))
            #expect(try await !store.auditMfBDevice(requestID: request.id, deviceUserHandle: "device-b", now: Fixture.date(3), mismatch: mismatch))
            #expect(try await !store.auditMfBDevice(requestID: nil, deviceUserHandle: "device-c", now: Fixture.date(3), mismatch: mismatch))
            #expect(try await store.mfbRequest(id: request.id)?.deviceUserHandle == "device-a")
            // Each refusal left one event behind.
            let events = try await store.events(userHandle: user.handle, before: nil, limit: 10)
            #expect(events.filter { $0.type == "mfb_key_mismatch" }.count == 2)
        }
    }

    func codeExchange(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = try await Self.account(store, "mfb-ana")
            let request = Self.request()
            try await store.insertMfBRequest(request)
            let code = Self.grant(.code, of: request, user: user)
            #expect(try await store.insertMfBGrant(code, now: Fixture.date(1)))
            let token = Fixture.bytes(32)
            func exchange(client: String = "client", redirect: String = code.redirectURI, at offset: Int64) async throws -> Bool {
                try await store.exchangeMfBCode(
                    hash: code.hash, clientID: client, redirectURI: redirect, now: Fixture.date(offset), accessTokenHash: token,
                    accessTokenExpiresAt: Fixture.date(600_000))
            }
            #expect(try await !exchange(client: "other", at: 2))
            #expect(try await !exchange(redirect: "https://x.example/cb", at: 2))
            #expect(try await !exchange(at: 60_000))
            #expect(try await exchange(at: 3))
            #expect(try await !exchange(at: 4))
            // The token answers the request, for the code's account.
            let outcome = try await store.completeMfBRequest(id: request.id, grantHash: token, now: Fixture.date(5), signedIn: Self.event("mfb_signed_in"))
            #expect(outcome == .authenticated(userName: "mfb-ana", userHandle: user.handle))
            let done = try #require(try await store.mfbRequest(id: request.id))
            #expect(done.status == "authenticated" && done.userHandle == user.handle && done.privateKey == nil)
            #expect(try await store.events(userHandle: user.handle, before: nil, limit: 10).map(\.type).contains("mfb_signed_in"))
            // Answered: no more grants, no second answer.
            #expect(try await !store.insertMfBGrant(Self.grant(.code, of: request, user: user), now: Fixture.date(6)))
            #expect(try await store.completeMfBRequest(id: request.id, grantHash: token, now: Fixture.date(6), signedIn: Self.event("mfb_signed_in")) == .alreadyAnswered)
            #expect(try await store.failMfBRequest(id: request.id, errors: "[]", now: Fixture.date(6), event: nil) == .alreadyAnswered)
        }
    }

    func repliesAndExpiry(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = try await Self.account(store, "mfb-ben")
            let first = Self.request()
            let second = Self.request(expiresIn: 10_000)
            try await store.insertMfBRequest(first)
            try await store.insertMfBRequest(second)
            let code = Self.grant(.code, of: first, user: user)
            #expect(try await store.insertMfBGrant(code, now: Fixture.date(1)))
            // Another request's grant, an unknown one, an expired one: nothing changes.
            #expect(try await store.completeMfBRequest(id: second.id, grantHash: code.hash, now: Fixture.date(2), signedIn: Self.event("x")) == .grantUnknown)
            #expect(try await store.completeMfBRequest(id: first.id, grantHash: Fixture.bytes(32), now: Fixture.date(2), signedIn: Self.event("x")) == .grantUnknown)
            #expect(try await store.completeMfBRequest(id: first.id, grantHash: code.hash, now: Fixture.date(60_000), signedIn: Self.event("x")) == .grantUnknown)
            #expect(try await store.completeMfBRequest(id: UUID().uuidString, grantHash: code.hash, now: Fixture.date(2), signedIn: Self.event("x")) == .notFound)
            #expect(try await store.mfbRequest(id: first.id)?.status == "pending")

            #expect(try await store.failMfBRequest(id: first.id, errors: #"[{"code":2}]"#, now: Fixture.date(3), event: Self.event("mfb_failed", user)) == .failed)
            #expect(try await store.events(userHandle: user.handle, before: nil, limit: 10).map(\.type).contains("mfb_failed"))
            let failed = try #require(try await store.mfbRequest(id: first.id))
            #expect(failed.status == "failed" && failed.errors == #"[{"code":2}]"# && failed.privateKey == nil)
            #expect(try await store.completeMfBRequest(id: first.id, grantHash: code.hash, now: Fixture.date(4), signedIn: Self.event("x")) == .alreadyAnswered)

            // Expired: no grant, no answer; the sweep deletes its key, and a day later the request.
            #expect(try await !store.insertMfBGrant(Self.grant(.code, of: second, user: user), now: Fixture.date(10_000)))
            #expect(try await store.failMfBRequest(id: second.id, errors: "[]", now: Fixture.date(10_000), event: nil) == .notFound)
            _ = try await store.sweepExpired(now: Fixture.date(10_000))
            #expect(try await store.mfbRequest(id: second.id)?.privateKey == nil)
            #expect(try await store.mfbRequest(id: first.id) != nil)
            _ = try await store.sweepExpired(now: Fixture.date(600_000 + 86_400_000))
            #expect(try await store.mfbRequest(id: second.id) == nil)
            #expect(try await store.mfbRequest(id: first.id) == nil)
        }
    }

    func gatewaySends(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = try await Self.account(store, "gale")
            let sent = Self.request()
            try await store.insertMfBRequest(sent)
            try await store.recordMfBSend(id: sent.id, messageID: "message-1", gatewayStatus: 200, failure: nil, event: nil)
            let read = try #require(try await store.mfbRequest(id: sent.id))
            #expect(read.status == "pending" && read.gatewayMessageID == "message-1" && read.gatewayStatus == 200 && read.privateKey != nil)

            let refused = Self.request()
            try await store.insertMfBRequest(refused)
            try await store.recordMfBSend(
                id: refused.id, messageID: "message-2", gatewayStatus: 404, failure: #"[{"code":404}]"#, event: Self.event("mfb_gateway_failed", user))
            let failed = try #require(try await store.mfbRequest(id: refused.id))
            #expect(failed.status == "failed" && failed.privateKey == nil && failed.gatewayStatus == 404 && failed.errors == #"[{"code":404}]"#)
            // Once: a second record changes nothing and writes no second event.
            try await store.recordMfBSend(id: refused.id, messageID: "message-3", gatewayStatus: nil, failure: "[]", event: Self.event("mfb_gateway_failed", user))
            #expect(try await store.mfbRequest(id: refused.id)?.gatewayMessageID == "message-2")
            let events = try await store.events(userHandle: user.handle, before: nil, limit: 10).map(\.type)
            #expect(events.filter { $0 == "mfb_gateway_failed" }.count == 1)
        }
    }
}
