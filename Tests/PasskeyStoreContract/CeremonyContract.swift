import Foundation
import Testing
import PasskeyStorage

/// The store contract: Ceremonies.
struct CeremonyContract {
    static let checks: [StoreCheck] = [
        StoreCheck("round trip of every field, for both kinds") { try await CeremonyContract().roundTrip($0) },
        StoreCheck("a ceremony is consumed once only") { try await CeremonyContract().consumedOnce($0) },
        StoreCheck("an expired ceremony is not returned (expired at expiresAt exactly)") { try await CeremonyContract().expiredNotReturned($0) },
        StoreCheck("the wrong kind is not returned and does not spend the challenge") { try await CeremonyContract().wrongKindNotReturned($0) },
        StoreCheck("an unknown challenge is nil; a duplicate challenge cannot be inserted") { try await CeremonyContract().unknownAndDuplicate($0) },
        StoreCheck("50 concurrent consumeCeremony calls on one challenge: exactly one winner") { try await CeremonyContract().concurrentConsumeOneWinner($0) },
        StoreCheck("two stores on one database (two processes) racing 50 consumes: exactly one winner") { try await CeremonyContract().twoStoresOneWinner($0) },
        StoreCheck("authenticationContext answers what credential and user would") { try await CeremonyContract().authenticationContextParts($0) },
        StoreCheck("a sign-in's challenge is spent once, by the sign-in or a refusal") { try await CeremonyContract().challengeSpentOnce($0) },
        StoreCheck("two stores on one database racing 20 sign-ins with one challenge: exactly one") { try await CeremonyContract().twoStoresOneSignIn($0) },
    ]

    func roundTrip(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let registration = CeremonyRecord(
                challenge: Fixture.bytes(32), kind: .registration, userHandle: Fixture.bytes(32),
                userName: "Alice", displayName: "Alice A.", isNewUser: true,
                userVerification: "required",
                allowCredentialIDs: [Fixture.bytes(16), Fixture.bytes(64), Fixture.bytes(255)],
                algorithms: [-8, -7, -257], conditional: true, residentKey: "discouraged",
                createdAt: Fixture.date(), expiresAt: Fixture.date(300_000))
            let authentication = CeremonyRecord(
                challenge: Fixture.bytes(16), kind: .authentication, userHandle: nil, userName: nil,
                displayName: nil, isNewUser: false, userVerification: "discouraged",
                allowCredentialIDs: [], algorithms: [], createdAt: Fixture.date(1),
                expiresAt: Fixture.date(60_001))
            try await store.insertCeremony(registration)
            try await store.insertCeremony(authentication)

            let now = Fixture.date(10)
            #expect(try await store.consumeCeremony(challenge: registration.challenge, kind: .registration, now: now) == registration)
            #expect(try await store.consumeCeremony(challenge: authentication.challenge, kind: .authentication, now: now) == authentication)
        }
    }

    func consumedOnce(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ceremony = Fixture.ceremony()
            try await store.insertCeremony(ceremony)
            let now = Fixture.date(1_000)
            #expect(try await store.consumeCeremony(challenge: ceremony.challenge, kind: .authentication, now: now) == ceremony)
            #expect(try await store.consumeCeremony(challenge: ceremony.challenge, kind: .authentication, now: now) == nil)
        }
    }

    func expiredNotReturned(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let expired = Fixture.ceremony(expiresIn: 300_000)
            try await store.insertCeremony(expired)
            #expect(try await store.consumeCeremony(challenge: expired.challenge, kind: .authentication, now: expired.expiresAt) == nil)
            #expect(try await store.consumeCeremony(challenge: expired.challenge, kind: .authentication, now: Fixture.date(400_000)) == nil)

            let live = Fixture.ceremony(expiresIn: 300_000)
            try await store.insertCeremony(live)
            let justBefore = live.expiresAt.addingTimeInterval(-0.001)
            #expect(try await store.consumeCeremony(challenge: live.challenge, kind: .authentication, now: justBefore) == live)
        }
    }

    func wrongKindNotReturned(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ceremony = Fixture.ceremony(.registration)
            try await store.insertCeremony(ceremony)
            let now = Fixture.date(1)
            #expect(try await store.consumeCeremony(challenge: ceremony.challenge, kind: .authentication, now: now) == nil)
            #expect(try await store.consumeCeremony(challenge: ceremony.challenge, kind: .registration, now: now) == ceremony)
        }
    }

    func unknownAndDuplicate(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            #expect(try await store.consumeCeremony(challenge: Fixture.bytes(32), kind: .registration, now: Fixture.date()) == nil)
            let ceremony = Fixture.ceremony()
            try await store.insertCeremony(ceremony)
            let error = await #expect(throws: StoreError.self) {
                try await store.insertCeremony(ceremony)
            }
            #expect(error?.code == .database)
        }
    }

    func concurrentConsumeOneWinner(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let ceremony = Fixture.ceremony()
            try await store.insertCeremony(ceremony)
            let now = Fixture.date(1)
            let winners = try await withThrowingTaskGroup(of: CeremonyRecord?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await store.consumeCeremony(challenge: ceremony.challenge, kind: .authentication, now: now)
                    }
                }
                var winners: [CeremonyRecord] = []
                for try await result in group {
                    if let result { winners.append(result) }
                }
                return winners
            }
            #expect(winners == [ceremony])
        }
    }

    func twoStoresOneWinner(_ engine: any StoreEngine) async throws {
        try await withTwoStores(engine) { first, second in
            let ceremony = Fixture.ceremony(.registration)
            try await first.insertCeremony(ceremony)
            let now = Fixture.date(1)
            let wins = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<50 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        let won = try await store.consumeCeremony(
                            challenge: ceremony.challenge, kind: .registration, now: now)
                        return won == ceremony ? 1 : 0
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(wins == 1)
        }
    }

    func authenticationContextParts(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user()
            var credential = Fixture.credential(for: user, signCount: 7)
            credential.authenticatorName = "iCloud Keychain"
            credential.lastUsedAt = Fixture.date(5)
            try await store.registerCredential(credential, newUser: user)

            let found = try await store.authenticationContext(credentialID: credential.id)
            #expect(found == AuthenticationContext(credential: credential, ownerDisabled: false))
            #expect(found.credential == (try await store.credential(id: credential.id)))
            #expect(try await store.authenticationContext(credentialID: Fixture.bytes(16))
                == AuthenticationContext(credential: nil, ownerDisabled: false))
            #expect(try await store.authenticationContext(credentialID: []) == AuthenticationContext(credential: nil, ownerDisabled: false))

            // The owner's flag.
            #expect(try await store.setUserDisabled(handle: user.handle, disabled: true, event: nil))
            #expect(try await store.authenticationContext(credentialID: credential.id)
                == AuthenticationContext(credential: credential, ownerDisabled: true))
        }
    }

    /// A sign-in's challenge (its key) is spent once, by the sign-in or by a refusal: a second
    /// spending is `.ceremonyGone` and writes nothing; once its expiry has passed the key may
    /// be spent again (the sealed ceremony itself has expired by then).
    func challengeSpentOnce(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let user = Fixture.user()
            let credential = Fixture.credential(for: user)
            try await store.registerCredential(credential, newUser: user)
            let key = Fixture.bytes(32)
            let expiry = Fixture.date(300_000)
            #expect(try await store.completeAuthentication(
                spending: key, until: expiry, now: Fixture.date(1), credentialID: credential.id, signCount: 1, backupState: false,
                userVerified: true, session: Fixture.session(for: user)) == .signedIn(userName: user.name))
            #expect(try await store.completeAuthentication(
                spending: key, until: expiry, now: Fixture.date(2), credentialID: credential.id, signCount: 2, backupState: false,
                userVerified: true, session: Fixture.session(for: user)) == .ceremonyGone)
            #expect(try await store.credential(id: credential.id)?.signCount == 1)
            #expect(try await store.sessions(userHandle: user.handle, now: Fixture.date(2)).count == 1)

            let refused = Fixture.bytes(32)
            #expect(try await store.spendChallenge(keyHash: refused, expiresAt: expiry, now: Fixture.date(3), markCloned: nil, event: nil))
            // A replay: not spent again, the credential not marked, no event.
            #expect(try await !store.spendChallenge(
                keyHash: refused, expiresAt: expiry, now: Fixture.date(4), markCloned: credential.id,
                event: AuditEvent(userHandle: user.handle, type: "counter_regression", at: Fixture.date(4), ip: nil, userAgent: nil)))
            #expect(try await store.credential(id: credential.id)?.possiblyCloned == false)
            #expect(try await store.events(userHandle: user.handle, before: nil, limit: 10).isEmpty)
            #expect(try await store.completeAuthentication(
                spending: refused, until: expiry, now: Fixture.date(5), credentialID: credential.id, signCount: 3, backupState: false,
                userVerified: true, session: Fixture.session(for: user)) == .ceremonyGone)
            #expect(try await store.spendChallenge(keyHash: refused, expiresAt: Fixture.date(600_000), now: expiry, markCloned: nil, event: nil))

            // A passkey deleted since it was read: the challenge is spent, and no regression.
            #expect(try await store.completeAuthentication(
                spending: Fixture.bytes(32), until: expiry, now: Fixture.date(6), credentialID: Fixture.bytes(16), signCount: 9,
                backupState: false, userVerified: true, session: Fixture.session(for: user)) == .ceremonyGone)
        }
    }

    /// Two stores on one database (two processes) finishing one sign-in's challenge 20 times
    /// at once, each with a higher count: one sign-in.
    func twoStoresOneSignIn(_ engine: any StoreEngine) async throws {
        try await withTwoStores(engine) { first, second in
            let user = Fixture.user()
            let credential = Fixture.credential(for: user)
            try await first.registerCredential(credential, newUser: user)
            let key = Fixture.bytes(32)
            let wins = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0 ..< 20 {
                    group.addTask {
                        let store = index.isMultiple(of: 2) ? first : second
                        let outcome = try await store.completeAuthentication(
                            spending: key, until: Fixture.date(300_000), now: Fixture.date(1), credentialID: credential.id,
                            signCount: UInt32(index + 1), backupState: false, userVerified: true, session: Fixture.session(for: user))
                        if case .signedIn = outcome { return 1 }
                        #expect(outcome == .ceremonyGone)
                        return 0
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(wins == 1)
            #expect(try await second.sessions(userHandle: user.handle, now: Fixture.date(1)).count == 1)
        }
    }
}
