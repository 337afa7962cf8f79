import Foundation
import Testing
import PasskeyStorage

/// The store contract: Sessions and sweeping.
struct SessionContract {
    static let checks: [StoreCheck] = [
        StoreCheck("session insert, lookup, expiry and delete") { try await SessionContract().lifecycle($0) },
        StoreCheck("a session for an unknown user is refused (foreign key)") { try await SessionContract().sessionNeedsUser($0) },
        StoreCheck("sweepExpired deletes only expired rows and counts them") { try await SessionContract().sweepCounts($0) },
        StoreCheck("a session keeps its address, user agent, last use and authentication time; a touch moves only the last use") { try await SessionContract().details($0) },
        StoreCheck("a signed-in lookup answers the session with its account in one read; nothing for an expired or unknown token") { try await SessionContract().signedIn($0) },
        StoreCheck("disabling an account ends its sessions and grants with its event; enabling changes only the flag; each once") { try await SessionContract().disabling($0) },
        StoreCheck("deleting an account removes all of it in one write, keeps its events without names, and answers what is left to do") { try await SessionContract().deletion($0) },
        StoreCheck("a step-up's ceremony keeps its session; its finish renews that session's auth time (and its passkey, when it names one) and opens none, nor reopens an ended one") { try await SessionContract().renewal($0) },
    ]

    func deletion(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ada = try await GrantContract.prepare(store)
            let credential = try #require(try await store.credentials(userHandle: ada.handle).first)
            let bob = Fixture.user(name: "bob")
            try await store.registerCredential(Fixture.credential(for: bob), newUser: bob)
            try await store.insertSession(Fixture.session(for: ada))
            var grant = GrantContract.grant(ada)
            grant.codeSpent = true
            try await store.insertGrant(grant, event: nil)
            _ = try await store.addToGroup(userHandle: ada.handle, name: "Staff", nameKey: "staff", event: nil)
            let nonce = Fixture.bytes(32)
            try await store.insertAppleNonce(nonce, expiresAt: Fixture.date(300_000))
            let link = AppleContract.link(ada)
            _ = try await store.completeAppleSignIn(
                token: AppleContract.freshToken(), nonce: nonce, now: Fixture.date(1), newUser: nil, newLink: link,
                session: AppleContract.appleSession(ada), events: [])
            try await store.setAppleRefreshToken(issuer: link.issuer, subject: link.subject, refreshToken: "r.token")
            var ceremony = Fixture.ceremony(.registration)
            ceremony.userHandle = ada.handle
            try await store.insertCeremony(ceremony)
            try await store.insertEvent(AuditEvent(
                userHandle: ada.handle, type: "registration", at: Fixture.date(), ip: nil, userAgent: nil, details: ["name": "Ada's phone", "credential": "x"]))

            let deleted = try #require(try await store.deleteAccount(handle: ada.handle, event: GrantContract.event(ada, "account_deleted")))
            #expect(deleted.credentialIDs == [credential.id])
            #expect(deleted.appleRefreshToken == "r.token")
            #expect(deleted.grants.map(\.id) == [grant.id])
            #expect(try await store.user(handle: ada.handle) == nil)
            #expect(try await store.credentials(userHandle: ada.handle).isEmpty)
            #expect(try await store.sessions(userHandle: ada.handle, now: Fixture.date()).isEmpty)
            #expect(try await store.grants(userHandle: ada.handle).isEmpty)
            #expect(try await store.groups(userHandle: ada.handle).isEmpty)
            #expect(try await store.appleLink(userHandle: ada.handle) == nil)
            #expect(try await store.ceremony(challenge: ceremony.challenge, kind: .registration, now: Fixture.date()) == nil)
            let events = try await store.events(userHandle: ada.handle, before: nil, limit: 10)
            #expect(events.map(\.type) == ["account_deleted", "registration"])
            // The name gives way to its SHA-256, which the audit chain hashed.
            #expect(events.last?.details == ["credential": "x", "name_sha256": AuditChain.nameDigest("Ada's phone")])
            // Bob is untouched; a second deletion finds nothing; the name is free.
            #expect(try await store.user(handle: bob.handle) == bob)
            #expect(try await store.deleteAccount(handle: ada.handle, event: nil) == nil)
            #expect(try await store.user(nameKey: ada.nameKey) == nil)
        }
    }

    func renewal(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user()
            let credential = Fixture.credential(for: user)
            try await store.registerCredential(credential, newUser: user)
            let session = Fixture.session(for: user)
            try await store.insertSession(session)
            let ceremony = Fixture.ceremony(.authentication)
            var renewed = session
            renewed.verifiedAt = Fixture.date(60_000)
            renewed.userVerified = true
            let outcome = try await store.completeAuthentication(
                spending: ceremony.challenge, until: ceremony.expiresAt, now: Fixture.date(60_000), credentialID: credential.id, signCount: 1, backupState: false,
                userVerified: true, session: renewed, renewing: true, signedIn: nil, regression: nil)
            #expect(outcome == .signedIn(userName: user.name))
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date()) == renewed)
            #expect(try await store.sessions(userHandle: user.handle, now: Fixture.date()).count == 1)

            // A step-up naming its passkey makes it the session's; one naming none keeps it.
            let stronger = Fixture.credential(for: user, name: "Key")
            try await store.registerCredential(stronger, newUser: nil)
            for (signCount, named) in [(UInt32(1), stronger.id as [UInt8]?), (2, nil)] {
                let step = Fixture.ceremony(.authentication)
                try await store.insertCeremony(step)
                var raised = renewed
                raised.credentialID = named
                #expect(try await store.completeAuthentication(
                    spending: step.challenge, until: step.expiresAt, now: Fixture.date(60_500), credentialID: stronger.id, signCount: signCount, backupState: false,
                    userVerified: true, session: raised, renewing: true, signedIn: nil, regression: nil) == .signedIn(userName: user.name))
                #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date())?.credentialID == stronger.id)
            }

            // Ended meanwhile: the step-up renews nothing and opens nothing.
            try await store.deleteSession(tokenHash: session.tokenHash, event: nil)
            let again = Fixture.ceremony(.authentication)
            let gone = try await store.completeAuthentication(
                spending: again.challenge, until: again.expiresAt, now: Fixture.date(61_000), credentialID: credential.id, signCount: 2, backupState: false,
                userVerified: true, session: renewed, renewing: true,
                signedIn: AuditEvent(userHandle: user.handle, type: "reauthenticated", at: Fixture.date(61_000), ip: nil, userAgent: nil), regression: nil)
            #expect(gone == .sessionGone)
            #expect(try await store.sessions(userHandle: user.handle, now: Fixture.date()).isEmpty)
            // No step-up is recorded for it.
            #expect(try await store.events(userHandle: user.handle, before: nil, limit: 10).allSatisfy { $0.type != "reauthenticated" })
        }
    }

    func disabling(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ada = try await GrantContract.prepare(store)
            let bob = Fixture.user(name: "bob")
            try await store.registerCredential(Fixture.credential(for: bob), newUser: bob)
            let sessions = [Fixture.session(for: ada), Fixture.session(for: ada)], bobs = Fixture.session(for: bob)
            for session in sessions + [bobs] { try await store.insertSession(session) }
            var grant = GrantContract.grant(ada)
            grant.codeSpent = true
            try await store.insertGrant(grant, event: nil)
            #expect(try await store.user(handle: ada.handle)?.disabled == false)

            #expect(try await store.setUserDisabled(handle: ada.handle, disabled: true, event: GrantContract.event(ada, "account_disabled")) == true)
            #expect(try await store.user(handle: ada.handle)?.disabled == true)
            #expect(try await store.user(nameKey: ada.nameKey)?.disabled == true)
            #expect(try await store.sessions(userHandle: ada.handle, now: Fixture.date()).isEmpty)
            #expect(try await store.grant(id: grant.id)?.revoked == true)
            #expect(try await store.session(tokenHash: bobs.tokenHash, now: Fixture.date()) == bobs)
            #expect(try await store.setUserDisabled(handle: ada.handle, disabled: true, event: GrantContract.event(ada, "again")) == false)
            #expect(try await store.setUserDisabled(handle: Fixture.bytes(16), disabled: true, event: nil) == false)

            let later = Fixture.session(for: ada)
            try await store.insertSession(later)
            #expect(try await store.setUserDisabled(handle: ada.handle, disabled: false, event: GrantContract.event(ada, "account_enabled")) == true)
            #expect(try await store.user(handle: ada.handle)?.disabled == false)
            // Enabling ends nothing.
            #expect(try await store.session(tokenHash: later.tokenHash, now: Fixture.date()) == later)
            #expect(try await store.events(userHandle: ada.handle, before: nil, limit: 10).map(\.type) == ["account_enabled", "account_disabled"])

            let ended = try await store.revokeAccess(userHandle: ada.handle, event: GrantContract.event(ada, "session_ended"))
            #expect(ended == [later.tokenHash])
            #expect(try await store.session(tokenHash: later.tokenHash, now: Fixture.date()) == nil)
            #expect(try await store.session(tokenHash: bobs.tokenHash, now: Fixture.date()) == bobs)
        }
    }

    func details(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user()
            try await store.registerCredential(Fixture.credential(for: user), newUser: user)
            var session = Fixture.session(for: user)
            session.ip = "2001:db8::7"
            session.userAgent = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15 — é"
            session.lastSeenAt = Fixture.date(10)
            session.verifiedAt = Fixture.date(5)
            try await store.insertSession(session)
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date()) == session)
            try await store.touchSession(tokenHash: session.tokenHash, at: Fixture.date(120_000))
            var touched = session
            touched.lastSeenAt = Fixture.date(120_000)
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date()) == touched)
            #expect(try await store.sessions(userHandle: user.handle, now: Fixture.date()) == [touched])
            // A session stored without them reads back without them; a touch of an unknown one is nothing.
            let bare = Fixture.session(for: user)
            try await store.insertSession(bare)
            #expect(try await store.session(tokenHash: bare.tokenHash, now: Fixture.date()) == bare)
            try await store.touchSession(tokenHash: Fixture.bytes(32), at: Fixture.date())
        }
    }

    func signedIn(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user(name: "ada"), other = Fixture.user(name: "bob")
            try await store.registerCredential(Fixture.credential(for: user), newUser: user)
            try await store.registerCredential(Fixture.credential(for: other), newUser: other)
            var session = Fixture.session(for: user, expiresIn: 3_600_000)
            session.ip = "192.0.2.1"
            session.via = "passkey"
            session.verifiedAt = Fixture.date(5)
            try await store.insertSession(session)
            try await store.insertSession(Fixture.session(for: other))
            let found = try await store.signedIn(tokenHash: session.tokenHash, now: Fixture.date(1))
            #expect(found?.session == session)
            let stored = try await store.user(handle: user.handle)
            #expect(found?.user == stored)
            #expect(found?.user.name == "ada")
            #expect(try await store.signedIn(tokenHash: session.tokenHash, now: Fixture.date(3_600_000)) == nil)
            #expect(try await store.signedIn(tokenHash: Fixture.bytes(32), now: Fixture.date(1)) == nil)
        }
    }

    func lifecycle(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user()
            try await store.registerCredential(Fixture.credential(for: user), newUser: user)
            let session = Fixture.session(for: user, expiresIn: 3_600_000)
            try await store.insertSession(session)

            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date(1)) == session)
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date(3_599_999)) == session)
            #expect(try await store.session(tokenHash: session.tokenHash, now: session.expiresAt) == nil)
            #expect(try await store.session(tokenHash: Fixture.bytes(32), now: Fixture.date(1)) == nil)

            try await store.deleteSession(tokenHash: session.tokenHash)
            #expect(try await store.session(tokenHash: session.tokenHash, now: Fixture.date(1)) == nil)
            try await store.deleteSession(tokenHash: session.tokenHash)  // absent: no error
        }
    }

    func sessionNeedsUser(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let session = Fixture.session(for: Fixture.user())
            let error = await #expect(throws: StoreError.self) {
                try await store.insertSession(session)
            }
            #expect(error?.code == .database)
        }
    }

    func sweepCounts(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user()
            try await store.registerCredential(Fixture.credential(for: user), newUser: user)
            let now = Fixture.date(1_000_000)

            let longGone = Fixture.ceremony(expiresIn: 1_000)
            let expiringNow = Fixture.ceremony(.registration, expiresIn: 1_000_000)
            let live = Fixture.ceremony(expiresIn: 1_000_001)
            for ceremony in [longGone, expiringNow, live] { try await store.insertCeremony(ceremony) }

            let oldSession = Fixture.session(for: user, expiresIn: 999_999)
            let liveSessions = [Fixture.session(for: user, expiresIn: 2_000_000), Fixture.session(for: user)]
            for session in [oldSession] + liveSessions { try await store.insertSession(session) }

            let swept = try await store.sweepExpired(now: now)
            #expect(swept.ceremonies == 2)
            #expect(swept.sessions == 1)

            let again = try await store.sweepExpired(now: now)
            #expect(again.ceremonies == 0)
            #expect(again.sessions == 0)

            // Survivors are intact; the swept ones are gone even for an earlier clock.
            let earlier = Fixture.date(0)
            #expect(try await store.consumeCeremony(challenge: live.challenge, kind: .authentication, now: now) == live)
            #expect(try await store.consumeCeremony(challenge: longGone.challenge, kind: .authentication, now: earlier) == nil)
            #expect(try await store.consumeCeremony(challenge: expiringNow.challenge, kind: .registration, now: earlier) == nil)
            for session in liveSessions {
                #expect(try await store.session(tokenHash: session.tokenHash, now: now) == session)
            }
            #expect(try await store.session(tokenHash: oldSession.tokenHash, now: earlier) == nil)
        }
    }
}
