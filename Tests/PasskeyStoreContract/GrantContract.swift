import Foundation
import Testing
import PasskeyStorage

/// The store contract: the OpenID provider's held requests and grants (codes and refresh
/// token families), and what sessions keep for the ID token's `amr`.
struct GrantContract {
    static let checks: [StoreCheck] = [
        StoreCheck("a held request is read until it expires, spent once, and goes with its client") { try await GrantContract().heldRequests($0) },
        StoreCheck("a grant round-trips; its code is spent once, never after expiry or revocation") { try await GrantContract().codes($0) },
        StoreCheck("refresh rotation retires the old token, which then finds its grant as retired and cannot rotate") { try await GrantContract().refreshRotation($0) },
        StoreCheck("grants go with their client and their account; a code spent on one instance is spent on the other") { try await GrantContract().lifecycle($0) },
        StoreCheck("a session keeps whether its ceremony verified the user") { try await GrantContract().sessionVerification($0) },
        StoreCheck("expired held requests and grants are swept") { try await GrantContract().sweep($0) },
        StoreCheck("an account's live sessions and its grants are listed, newest first; an event is stored on its own") { try await GrantContract().listings($0) },
    ]

    static func grant(_ user: UserRecord, client: String = "wiki", id: String = "g-\(UUID().uuidString.prefix(8))", codeExpiresIn: Int64 = 60_000) -> GrantRecord {
        GrantRecord(
            id: id, clientID: client, userHandle: user.handle, sessionHash: Fixture.bytes(32), offline: false,
            scopes: ["openid", "profile", "groups"], nonce: "n-0S6_WzA2Mj", authTime: Fixture.date(-5000), amr: ["hwk", "user", "mfa"],
            acr: "phrh", credentialID: Fixture.bytes(16), codeHash: Fixture.bytes(32), codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            redirectURI: "https://wiki.example/callback", codeExpiresAt: Fixture.date(codeExpiresIn), createdAt: Fixture.date(),
            expiresAt: Fixture.date(codeExpiresIn))
    }

    static func event(_ user: UserRecord, _ type: String) -> AuditEvent {
        AuditEvent(userHandle: user.handle, type: type, at: Fixture.date(), ip: nil, userAgent: nil, details: ["client": "wiki"])
    }

    /// A store with the client `wiki` and the account `ada`.
    static func prepare(_ store: any StoreFixtures) async throws -> UserRecord {
        #expect(try await store.insertClient(ClientContract.client("wiki")) == true)
        let ada = Fixture.user(name: "ada")
        try await store.registerCredential(Fixture.credential(for: ada), newUser: ada)
        return ada
    }

    func heldRequests(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            _ = try await Self.prepare(store)
            let held = HeldAuthorizationRecord(
                handleHash: Fixture.bytes(32), clientID: "wiki", parameters: "client_id=wiki&state=%C3%A9t%C3%A9", createdAt: Fixture.date(),
                expiresAt: Fixture.date(600_000))
            try await store.insertHeldAuthorization(held)
            #expect(try await store.heldAuthorization(handleHash: held.handleHash, now: Fixture.date(599_999)) == held)
            #expect(try await store.heldAuthorization(handleHash: held.handleHash, now: Fixture.date(600_000)) == nil)
            #expect(try await store.deleteHeldAuthorization(handleHash: held.handleHash) == true)
            #expect(try await store.deleteHeldAuthorization(handleHash: held.handleHash) == false)
            #expect(try await store.heldAuthorization(handleHash: held.handleHash, now: Fixture.date()) == nil)

            let other = HeldAuthorizationRecord(
                handleHash: Fixture.bytes(32), clientID: "wiki", parameters: "x=1", createdAt: Fixture.date(), expiresAt: Fixture.date(600_000))
            try await store.insertHeldAuthorization(other)
            #expect(try await store.deleteClient(id: "wiki") == true)
            #expect(try await store.heldAuthorization(handleHash: other.handleHash, now: Fixture.date()) == nil)
        }
    }

    func codes(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let ada = try await Self.prepare(store)
            var grant = Self.grant(ada)
            try await store.insertGrant(grant, event: Self.event(ada, "oauth_code_issued"))
            #expect(try await store.grant(id: grant.id) == grant)
            #expect(try await store.grant(codeHash: grant.codeHash) == grant)
            #expect(try await store.grant(codeHash: Fixture.bytes(32)) == nil)

            // Not after it expired.
            #expect(try await store.spendCode(grantID: grant.id, now: Fixture.date(60_000), refreshHash: nil, refreshExpiresAt: nil, expiresAt: Fixture.date(600_000), dpopJKT: nil, event: nil) == false)
            #expect(try await store.grant(id: grant.id)?.codeSpent == false)
            // Once.
            let refresh = Fixture.bytes(32)
            #expect(try await store.spendCode(
                grantID: grant.id, now: Fixture.date(1000), refreshHash: refresh, refreshExpiresAt: Fixture.date(86_400_000),
                expiresAt: Fixture.date(86_400_000), dpopJKT: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I",
                event: Self.event(ada, "oauth_token_issued")) == true)
            #expect(try await store.spendCode(grantID: grant.id, now: Fixture.date(1000), refreshHash: Fixture.bytes(32), refreshExpiresAt: nil, expiresAt: Fixture.date(1), dpopJKT: nil, event: Self.event(ada, "x")) == false)
            grant.codeSpent = true
            grant.refreshHash = refresh
            grant.refreshExpiresAt = Fixture.date(86_400_000)
            grant.dpopJKT = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
            grant.expiresAt = Fixture.date(86_400_000)
            #expect(try await store.grant(id: grant.id) == grant)
            #expect(try await store.grant(refreshHash: refresh) == .current(grant))
            #expect(try await store.events(userHandle: ada.handle, before: nil, limit: 10).map(\.type) == ["oauth_token_issued", "oauth_code_issued"])

            // Never after revocation; revocation is once.
            let second = Self.grant(ada)
            try await store.insertGrant(second, event: nil)
            #expect(try await store.revokeGrant(id: second.id, event: Self.event(ada, "oauth_token_revoked")) == true)
            #expect(try await store.revokeGrant(id: second.id, event: Self.event(ada, "oauth_token_revoked")) == false)
            #expect(try await store.revokeGrant(id: "absent", event: nil) == false)
            #expect(try await store.spendCode(grantID: second.id, now: Fixture.date(1000), refreshHash: nil, refreshExpiresAt: nil, expiresAt: Fixture.date(1), dpopJKT: nil, event: nil) == false)
            #expect(try await store.grant(id: second.id)?.revoked == true)
            #expect(try await store.events(userHandle: ada.handle, before: nil, limit: 10).filter { $0.type == "oauth_token_revoked" }.count == 1)
        }
    }

    func refreshRotation(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let ada = try await Self.prepare(store)
            let grant = Self.grant(ada)
            try await store.insertGrant(grant, event: nil)
            let first = Fixture.bytes(32), second = Fixture.bytes(32), third = Fixture.bytes(32)
            #expect(try await store.spendCode(grantID: grant.id, now: Fixture.date(), refreshHash: first, refreshExpiresAt: Fixture.date(1_000_000), expiresAt: Fixture.date(1_000_000), dpopJKT: nil, event: nil))
            #expect(try await store.rotateRefreshToken(grantID: grant.id, old: first, new: second, refreshExpiresAt: Fixture.date(2_000_000), expiresAt: Fixture.date(2_000_000), event: Self.event(ada, "oauth_token_issued")) == true)
            guard case .current(let current)? = try await store.grant(refreshHash: second) else {
                Issue.record("the new refresh token is not the one in force")
                return
            }
            #expect(current.refreshExpiresAt == Fixture.date(2_000_000))
            #expect(current.expiresAt == Fixture.date(2_000_000))
            guard case .retired(let retired)? = try await store.grant(refreshHash: first) else {
                Issue.record("the old refresh token is not retired")
                return
            }
            #expect(retired.id == grant.id)
            // The old token cannot rotate again, and nothing changes.
            #expect(try await store.rotateRefreshToken(grantID: grant.id, old: first, new: third, refreshExpiresAt: Fixture.date(3_000_000), expiresAt: Fixture.date(3_000_000), event: Self.event(ada, "x")) == false)
            #expect(try await store.grant(refreshHash: third) == nil)
            #expect(try await store.events(userHandle: ada.handle, before: nil, limit: 10).map(\.type) == ["oauth_token_issued"])
            // A revoked grant does not rotate.
            #expect(try await store.revokeGrant(id: grant.id, event: nil))
            #expect(try await store.rotateRefreshToken(grantID: grant.id, old: second, new: third, refreshExpiresAt: Fixture.date(3_000_000), expiresAt: Fixture.date(3_000_000), event: nil) == false)
        }
    }

    func lifecycle(_ engine: any StoreEngine) async throws {
        try await withTwoStores(engine) { (first: any StoreFixtures, second: any StoreFixtures) async throws in
            let ada = try await Self.prepare(first)
            let grant = Self.grant(ada)
            try await first.insertGrant(grant, event: nil)
            #expect(try await second.spendCode(grantID: grant.id, now: Fixture.date(), refreshHash: nil, refreshExpiresAt: nil, expiresAt: Fixture.date(600_000), dpopJKT: nil, event: nil))
            #expect(try await first.spendCode(grantID: grant.id, now: Fixture.date(), refreshHash: nil, refreshExpiresAt: nil, expiresAt: Fixture.date(600_000), dpopJKT: nil, event: nil) == false)

            let other = Self.grant(ada)
            try await first.insertGrant(other, event: nil)
            #expect(try await first.deleteClient(id: "wiki"))
            #expect(try await second.grant(id: grant.id) == nil)
            #expect(try await second.grant(id: other.id) == nil)

            #expect(try await first.insertClient(ClientContract.client("wiki")))
            let third = Self.grant(ada)
            try await first.insertGrant(third, event: nil)
            #expect(try await first.deleteUser(handle: ada.handle))
            #expect(try await second.grant(id: third.id) == nil)
        }
    }

    func sessionVerification(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let ada = Fixture.user(name: "ada")
            try await store.registerCredential(Fixture.credential(for: ada), newUser: ada)
            for verified in [true, false, nil] as [Bool?] {
                var session = Fixture.session(for: ada)
                session.userVerified = verified
                try await store.insertSession(session)
                #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date())?.userVerified == verified)
            }
        }
    }

    func sweep(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let ada = try await Self.prepare(store)
            let stale = Self.grant(ada, codeExpiresIn: 1000), live = Self.grant(ada, codeExpiresIn: 100_000)
            try await store.insertGrant(stale, event: nil)
            try await store.insertGrant(live, event: nil)
            let held = HeldAuthorizationRecord(handleHash: Fixture.bytes(32), clientID: "wiki", parameters: "a=b", createdAt: Fixture.date(), expiresAt: Fixture.date(1000))
            try await store.insertHeldAuthorization(held)
            _ = try await store.sweepExpired(now: Fixture.date(2000))
            #expect(try await store.grant(id: stale.id) == nil)
            #expect(try await store.grant(id: live.id) == live)
            #expect(try await store.deleteHeldAuthorization(handleHash: held.handleHash) == false)
        }
    }

    func listings(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { (store: any StoreFixtures) async throws in
            let ada = try await Self.prepare(store)
            let bob = Fixture.user(name: "bob")
            try await store.registerCredential(Fixture.credential(for: bob), newUser: bob)
            var older = Fixture.session(for: ada), newer = Fixture.session(for: ada), expired = Fixture.session(for: ada)
            older.createdAt = Fixture.date(-2000)
            newer.createdAt = Fixture.date(-1000)
            expired.expiresAt = Fixture.date(-1)
            for session in [older, newer, expired, Fixture.session(for: bob)] { try await store.insertSession(session) }
            #expect(try await store.sessions(userHandle: ada.handle, now: Fixture.date()) == [newer, older])

            var first = Self.grant(ada), second = Self.grant(ada)
            first.createdAt = Fixture.date(-5000)
            second.createdAt = Fixture.date(-100)
            try await store.insertGrant(first, event: nil)
            try await store.insertGrant(second, event: nil)
            try await store.insertGrant(Self.grant(bob), event: nil)
            #expect(try await store.grants(userHandle: ada.handle) == [second, first])

            try await store.insertEvent(Self.event(ada, "backchannel_logout_failed"))
            #expect(try await store.events(userHandle: ada.handle, before: nil, limit: 10).map(\.type) == ["backchannel_logout_failed"])
        }
    }
}
