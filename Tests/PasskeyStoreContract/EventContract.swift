import Foundation
import Testing
import PasskeyStorage

/// The store contract: Audit events.
struct EventContract {
    static let checks: [StoreCheck] = [
        StoreCheck("written in the ceremony's transaction: with a registration and a sign-in, not with a conflict") { try await EventContract().withTheirChange($0) },
        StoreCheck("a counter regression, a refusal, a rename, a deletion and a logout each leave theirs") { try await EventContract().eachChange($0) },
        StoreCheck("paging by cursor, newest first; operators' listing oldest first; retention; the account's deletion") { try await EventContract().pagingAndRetention($0) },
    ]

    static func event(_ user: UserRecord, _ type: String, at offset: Int64 = 0, details: [String: String] = [:]) -> AuditEvent {
        AuditEvent(userHandle: user.handle, type: type, at: Fixture.date(offset), ip: "203.0.113.7", userAgent: "Test/1.0", details: details)
    }

    func withTheirChange(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let alice = Fixture.user(name: "alice")
            let registration = Fixture.ceremony(.registration)
            try await store.insertCeremony(registration)
            let credential = Fixture.credential(for: alice)
            let registered = try await store.completeRegistration(
                challenge: registration.challenge, now: Fixture.date(1), credential: credential, newUser: alice,
                session: Fixture.session(for: alice), invitation: nil, endingOtherSessions: false,
                event: Self.event(alice, "registration", details: ["credential": "c1"]))
            #expect(registered == .registered)

            // The same name again: the conflict stores no event (and no account).
            let impostor = Fixture.user(name: "Alice")
            let second = Fixture.ceremony(.registration)
            try await store.insertCeremony(second)
            let conflict = try await store.completeRegistration(
                challenge: second.challenge, now: Fixture.date(1), credential: Fixture.credential(for: impostor), newUser: impostor,
                session: Fixture.session(for: impostor), invitation: nil, endingOtherSessions: false, event: Self.event(impostor, "registration"))
            #expect(conflict == .userExists)

            let signIn = Fixture.ceremony(.authentication)
            let outcome = try await store.completeAuthentication(
                spending: signIn.challenge, until: signIn.expiresAt, now: Fixture.date(2), credentialID: credential.id, signCount: 0, backupState: false,
                userVerified: true, session: Fixture.session(for: alice), renewing: false,
                signedIn: Self.event(alice, "sign_in", at: 2, details: ["method": "passkey"]),
                regression: Self.event(alice, "counter_regression", at: 2))
            #expect(outcome == .signedIn(userName: "alice"))

            let events = try await store.events(userHandle: alice.handle, before: nil, limit: 10)
            #expect(events.map(\.type) == ["sign_in", "registration"])
            #expect(events[1].details == ["credential": "c1"])
            #expect(events[0].ip == "203.0.113.7" && events[0].userAgent == "Test/1.0" && events[0].at == Fixture.date(2))
            #expect(events[0].id > events[1].id)
            #expect(try await store.events(userHandle: impostor.handle, before: nil, limit: 10).isEmpty)
        }
    }

    func eachChange(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let bob = Fixture.user(name: "bob")
            let credential = Fixture.credential(for: bob, signCount: 5)
            try await store.registerCredential(credential, newUser: bob)
            let ceremony = Fixture.ceremony(.authentication)
            let regressed = try await store.completeAuthentication(
                spending: ceremony.challenge, until: ceremony.expiresAt, now: Fixture.date(1), credentialID: credential.id, signCount: 3, backupState: false,
                userVerified: true, session: Fixture.session(for: bob), renewing: false, signedIn: Self.event(bob, "sign_in"),
                regression: Self.event(bob, "counter_regression"))
            #expect(regressed == .counterRegression)
            let refused = Fixture.ceremony(.authentication)
            #expect(try await store.spendChallenge(
                keyHash: refused.challenge, expiresAt: refused.expiresAt, now: Fixture.date(1), markCloned: nil,
                event: Self.event(bob, "sign_in_refused", details: ["error": "signature_invalid"])))
            #expect(try await store.renameCredential(id: credential.id, userHandle: bob.handle, name: "Work", event: Self.event(bob, "credential_renamed")))
            // Not bob's credential: nothing renamed, no event.
            #expect(try await !store.renameCredential(id: Fixture.bytes(16), userHandle: bob.handle, name: "x", event: Self.event(bob, "credential_renamed")))
            let session = Fixture.session(for: bob)
            try await store.insertSession(session)
            try await store.deleteSession(tokenHash: session.tokenHash, event: Self.event(bob, "session_ended"))
            // A session that is not there: no event.
            try await store.deleteSession(tokenHash: Fixture.bytes(32), event: Self.event(bob, "session_ended"))
            #expect(try await store.deleteCredential(id: credential.id, userHandle: bob.handle, event: Self.event(bob, "credential_deleted")))
            let types = try await store.events(userHandle: bob.handle, before: nil, limit: 100).map(\.type)
            #expect(types == ["credential_deleted", "session_ended", "credential_renamed", "sign_in_refused", "counter_regression"])
        }
    }

    func pagingAndRetention(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let carol = Fixture.user(name: "carol")
            let dave = Fixture.user(name: "dave")
            try await store.registerCredential(Fixture.credential(for: carol), newUser: carol)
            try await store.registerCredential(Fixture.credential(for: dave), newUser: dave)
            for index in 0..<7 {
                let session = Fixture.session(for: carol)
                try await store.insertSession(session)
                try await store.deleteSession(tokenHash: session.tokenHash, event: Self.event(carol, "session_ended", at: Int64(index) * 1000, details: ["n": "\(index)"]))
            }
            try await store.deleteSessions(userHandle: dave.handle, event: Self.event(dave, "session_ended", at: 500))

            let first = try await store.events(userHandle: carol.handle, before: nil, limit: 3)
            #expect(first.map { $0.details["n"] } == ["6", "5", "4"])
            let second = try await store.events(userHandle: carol.handle, before: first.last?.id, limit: 3)
            #expect(second.map { $0.details["n"] } == ["3", "2", "1"])
            let third = try await store.events(userHandle: carol.handle, before: second.last?.id, limit: 3)
            #expect(third.map { $0.details["n"] } == ["0"])

            let all = try await store.events(userHandle: nil, since: nil, after: nil, limit: 100)
            #expect(all.count == 8)
            #expect(all.map(\.id) == all.map(\.id).sorted())
            let later = try await store.events(userHandle: nil, since: Fixture.date(3000), after: nil, limit: 100)
            #expect(later.map { $0.details["n"] } == ["3", "4", "5", "6"])
            let page = try await store.events(userHandle: carol.handle, since: nil, after: all[2].id, limit: 2)
            #expect(page.count == 2 && page.allSatisfy { $0.id > all[2].id && $0.userHandle == carol.handle })

            // Retention removes a whole prefix of the audit chain (docs/contracts/accounts.md): carol's 0 and 1.
            // Dave's event is older but was written after newer ones: it waits.
            #expect(try await store.deleteEvents(olderThan: Fixture.date(2000)) == 2)
            #expect(try await store.events(userHandle: dave.handle, before: nil, limit: 10).count == 1)
            #expect(try await store.deleteEvents(olderThan: Fixture.date(7000)) == 8 - 2)
            #expect(try await store.events(userHandle: dave.handle, before: nil, limit: 10).isEmpty)
            // Events outlive their account (docs/contracts/accounts.md): retention alone removes them.
            try await store.insertEvent(Self.event(carol, "sign_in", at: 8000))
            #expect(try await store.deleteUser(handle: carol.handle))
            #expect(try await store.events(userHandle: nil, since: nil, after: nil, limit: 100).count == 1)
        }
    }
}
