import Foundation
import Testing
import PasskeyStorage

/// The store contract: recovery codes, admin tokens, and the groups an invitation's account
/// joins (docs/contracts/accounts.md).
struct RecoveryContract {
    static let checks: [StoreCheck] = [
        StoreCheck("recovery codes: a new set voids the old; a code is spent once, with its recovery session and event, in one write") {
            try await RecoveryContract().recoveryCodes($0)
        },
        StoreCheck("recovery codes are per account, and go with the account") { try await RecoveryContract().perAccount($0) },
        StoreCheck("a recovery that waits: started with its code in one write, cancelled or claimed once, only when ready") {
            try await RecoveryContract().waitingRecovery($0)
        },
        StoreCheck("admin tokens: unique names, found by hash, listed by name, revoked once, each change with its event") {
            try await RecoveryContract().adminTokens($0)
        },
        StoreCheck("an invitation's groups are joined in the registration's write; a spent invitation adds nothing") {
            try await RecoveryContract().invitationGroups($0)
        },
    ]

    static let none: [UInt8] = []

    static func event(_ handle: [UInt8], _ type: String) -> AuditEvent {
        AuditEvent(userHandle: handle, type: type, at: Fixture.date(), ip: nil, userAgent: nil)
    }

    func recoveryCodes(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ada = Fixture.user(name: "ada")
            try await store.registerCredential(Fixture.credential(for: ada), newUser: ada)
            #expect(try await store.recoveryCodeCount(userHandle: ada.handle) == 0)
            let first = (0..<10).map { _ in Fixture.bytes(32) }
            try await store.replaceRecoveryCodes(userHandle: ada.handle, codeHashes: first, at: Fixture.date(), event: Self.event(ada.handle, "recovery_codes_created"))
            #expect(try await store.recoveryCodeCount(userHandle: ada.handle) == 10)
            let second = (0..<10).map { _ in Fixture.bytes(32) }
            try await store.replaceRecoveryCodes(userHandle: ada.handle, codeHashes: second, at: Fixture.date(), event: nil)
            #expect(try await store.recoveryCodeCount(userHandle: ada.handle) == 10)

            // An old code is void: nothing spent, no session, no event.
            var recovery = Fixture.session(for: ada)
            recovery.via = SessionRecord.recoveryVia
            #expect(try await store.redeemRecoveryCode(userHandle: ada.handle, codeHash: first[0], session: recovery, event: Self.event(ada.handle, "recovery_started")) == false)
            #expect(try await store.session(tokenHash: recovery.tokenHash, now: Fixture.date()) == nil)
            #expect(try await store.recoveryCodeCount(userHandle: ada.handle) == 10)

            // A good code: spent with the session and the event.
            #expect(try await store.redeemRecoveryCode(userHandle: ada.handle, codeHash: second[3], session: recovery, event: Self.event(ada.handle, "recovery_started")) == true)
            let opened = try await store.session(tokenHash: recovery.tokenHash, now: Fixture.date())
            #expect(opened?.isRecovery == true)
            #expect(try await store.recoveryCodeCount(userHandle: ada.handle) == 9)
            #expect(try await store.events(userHandle: ada.handle, before: nil, limit: 10).map(\.type) == ["recovery_started", "recovery_codes_created"])

            // Spent once only.
            var again = Fixture.session(for: ada)
            again.via = SessionRecord.recoveryVia
            #expect(try await store.redeemRecoveryCode(userHandle: ada.handle, codeHash: second[3], session: again, event: nil) == false)
            #expect(try await store.session(tokenHash: again.tokenHash, now: Fixture.date()) == nil)
        }
    }

    func perAccount(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ada = Fixture.user(name: "ada"), bob = Fixture.user(name: "bob")
            try await store.registerCredential(Fixture.credential(for: ada), newUser: ada)
            try await store.registerCredential(Fixture.credential(for: bob), newUser: bob)
            let code = Fixture.bytes(32)
            try await store.replaceRecoveryCodes(userHandle: ada.handle, codeHashes: [code], at: Fixture.date(), event: nil)
            // Bob cannot spend Ada's code.
            #expect(try await store.redeemRecoveryCode(userHandle: bob.handle, codeHash: code, session: Fixture.session(for: bob), event: nil) == false)
            #expect(try await store.recoveryCodeCount(userHandle: ada.handle) == 1)
            #expect(try await store.deleteUser(handle: ada.handle) == true)
            #expect(try await store.recoveryCodeCount(userHandle: ada.handle) == 0)
        }
    }

    func adminTokens(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ci = AdminTokenRecord(name: "ci", tokenHash: Fixture.bytes(32), createdAt: Fixture.date())
            let ops = AdminTokenRecord(name: "ops", tokenHash: Fixture.bytes(32), createdAt: Fixture.date(5))
            let inserted = try await store.insertAdminToken(ops, event: Self.event(Self.none, "admin_token_created"))
            #expect(inserted)
            #expect(try await store.insertAdminToken(ci, event: nil) == true)
            // A taken name: refused, nothing written.
            let twin = AdminTokenRecord(name: "ci", tokenHash: Fixture.bytes(32), createdAt: Fixture.date())
            #expect(try await store.insertAdminToken(twin, event: Self.event(Self.none, "admin_token_created")) == false)
            #expect(try await store.adminToken(tokenHash: twin.tokenHash) == nil)
            #expect(try await store.adminTokens() == [ci, ops])
            #expect(try await store.adminToken(tokenHash: ops.tokenHash) == ops)
            #expect(try await store.deleteAdminToken(name: "ops", event: Self.event(Self.none, "admin_token_revoked")) == true)
            #expect(try await store.deleteAdminToken(name: "ops", event: nil) == false)
            #expect(try await store.adminToken(tokenHash: ops.tokenHash) == nil)
            #expect(try await store.events(userHandle: [], before: nil, limit: 10).map(\.type) == ["admin_token_revoked", "admin_token_created"])
        }
    }

    func invitationGroups(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let carol = Fixture.user(name: "carol")
            let token = Fixture.bytes(32)
            let invitation = InvitationRecord(
                tokenHash: token, userName: "carol", nameKey: "carol", userHandle: nil, createdBy: "test", createdAt: Fixture.date(),
                expiresAt: Fixture.date(86_400_000), groups: [InvitationGroup(name: "Staff", nameKey: "staff"), InvitationGroup(name: "ops", nameKey: "ops")])
            try await store.insertInvitation(invitation, event: nil)
            #expect(try await store.invitation(tokenHash: token, now: Fixture.date()) == invitation)
            let registration = Fixture.ceremony(.registration)
            try await store.insertCeremony(registration)
            let outcome = try await store.completeRegistration(
                challenge: registration.challenge, now: Fixture.date(1), credential: Fixture.credential(for: carol), newUser: carol,
                session: Fixture.session(for: carol), invitation: token, endingOtherSessions: false, event: nil)
            #expect(outcome == .registered)
            #expect(try await store.groups(userHandle: carol.handle).map(\.name) == ["ops", "Staff"])
            #expect(try await store.invitation(tokenHash: token, now: Fixture.date()) == nil)

            // Spent: a second registration with it stores nothing.
            let dave = Fixture.user(name: "dave")
            let second = Fixture.ceremony(.registration)
            try await store.insertCeremony(second)
            let gone = try await store.completeRegistration(
                challenge: second.challenge, now: Fixture.date(1), credential: Fixture.credential(for: dave), newUser: dave,
                session: Fixture.session(for: dave), invitation: token, endingOtherSessions: false, event: nil)
            #expect(gone == .invitationGone)
            #expect(try await store.user(handle: dave.handle) == nil)
            #expect(try await store.groups(userHandle: dave.handle).isEmpty == true)
        }
    }

    func waitingRecovery(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ada = Fixture.user(name: "ada")
            try await store.registerCredential(Fixture.credential(for: ada), newUser: ada)
            let codes = (0..<2).map { _ in Fixture.bytes(32) }
            try await store.replaceRecoveryCodes(userHandle: ada.handle, codeHashes: codes, at: Fixture.date(), event: nil)
            let first = RecoveryRequestRecord(
                idHash: Fixture.bytes(32), publicID: "r1", userHandle: ada.handle, createdAt: Fixture.date(), readyAt: Fixture.date(60_000),
                ip: "192.0.2.1", userAgent: "UA")
            // A code that is not the account's starts nothing.
            #expect(try await store.startRecovery(first, codeHash: Fixture.bytes(32), event: Self.event(ada.handle, "recovery_started")) == false)
            #expect(try await store.recoveryRequest(idHash: first.idHash) == nil)
            #expect(try await store.startRecovery(first, codeHash: codes[0], event: Self.event(ada.handle, "recovery_started")) == true)
            #expect(try await store.recoveryCodeCount(userHandle: ada.handle) == 1)
            #expect(try await store.recoveryRequest(idHash: first.idHash) == first)
            #expect(try await store.waitingRecoveries(userHandle: ada.handle) == [first])

            // Not ready yet: no claim, no session.
            var session = Fixture.session(for: ada)
            session.via = SessionRecord.recoveryVia
            #expect(try await store.claimRecovery(idHash: first.idHash, now: Fixture.date(59_999), session: session, event: nil) == false)
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date()) == nil)
            // Cancelled by the owner: it can no longer be claimed, and is cancelled once.
            #expect(try await store.cancelRecovery(publicID: "r1", userHandle: ada.handle, event: Self.event(ada.handle, "recovery_cancelled")) == true)
            #expect(try await store.cancelRecovery(publicID: "r1", userHandle: ada.handle, event: nil) == false)
            #expect(try await store.recoveryRequest(idHash: first.idHash)?.state == .cancelled)
            #expect(try await store.claimRecovery(idHash: first.idHash, now: Fixture.date(60_000), session: session, event: nil) == false)
            #expect(try await store.waitingRecoveries(userHandle: ada.handle).isEmpty)

            // The second code: claimed once it is ready, with its session, once.
            let second = RecoveryRequestRecord(
                idHash: Fixture.bytes(32), publicID: "r2", userHandle: ada.handle, createdAt: Fixture.date(), readyAt: Fixture.date(60_000),
                ip: nil, userAgent: nil)
            #expect(try await store.startRecovery(second, codeHash: codes[1], event: nil) == true)
            let bob = Fixture.user(name: "bob")
            try await store.registerCredential(Fixture.credential(for: bob), newUser: bob)
            #expect(try await store.cancelRecovery(publicID: "r2", userHandle: bob.handle, event: nil) == false)  // not bob's
            #expect(try await store.claimRecovery(idHash: second.idHash, now: Fixture.date(60_000), session: session, event: Self.event(ada.handle, "recovery_claimed")) == true)
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date())?.isRecovery == true)
            var again = Fixture.session(for: ada)
            again.via = SessionRecord.recoveryVia
            #expect(try await store.claimRecovery(idHash: second.idHash, now: Fixture.date(70_000), session: again, event: nil) == false)
            #expect(try await store.recoveryRequest(idHash: second.idHash)?.state == .claimed)
            #expect(try await store.events(userHandle: ada.handle, before: nil, limit: 10).map(\.type) == [
                "recovery_claimed", "recovery_cancelled", "recovery_started",
            ])
        }
    }

}
