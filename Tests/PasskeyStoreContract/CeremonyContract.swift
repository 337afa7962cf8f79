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
        StoreCheck("authenticationContext answers what credential, user and ceremony would, each part alone") { try await CeremonyContract().authenticationContextParts($0) },
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
            var ceremony = Fixture.ceremony(.authentication)
            ceremony.userHandle = user.handle
            ceremony.allowCredentialIDs = [credential.id, Fixture.bytes(20)]
            ceremony.sessionHash = Fixture.bytes(32)
            try await store.insertCeremony(ceremony)
            let registration = Fixture.ceremony(.registration)
            try await store.insertCeremony(registration)
            let now = Fixture.date(1)

            let both = try await store.authenticationContext(credentialID: credential.id, challenge: ceremony.challenge, now: now)
            #expect(both == AuthenticationContext(credential: credential, ownerDisabled: false, ceremony: ceremony))
            #expect(both.credential == (try await store.credential(id: credential.id)))
            #expect(both.ceremony == (try await store.ceremony(challenge: ceremony.challenge, kind: .authentication, now: now)))

            // Each side answers alone: an unknown credential, an unknown, expired or
            // registration challenge.
            #expect(try await store.authenticationContext(credentialID: Fixture.bytes(16), challenge: ceremony.challenge, now: now)
                == AuthenticationContext(credential: nil, ownerDisabled: false, ceremony: ceremony))
            #expect(try await store.authenticationContext(credentialID: credential.id, challenge: Fixture.bytes(32), now: now)
                == AuthenticationContext(credential: credential, ownerDisabled: false, ceremony: nil))
            #expect(try await store.authenticationContext(credentialID: credential.id, challenge: ceremony.challenge, now: ceremony.expiresAt).ceremony == nil)
            #expect(try await store.authenticationContext(credentialID: credential.id, challenge: registration.challenge, now: now).ceremony == nil)
            #expect(try await store.authenticationContext(credentialID: [], challenge: [], now: now)
                == AuthenticationContext(credential: nil, ownerDisabled: false, ceremony: nil))

            // The owner's flag, and a read: nothing was spent.
            #expect(try await store.setUserDisabled(handle: user.handle, disabled: true, event: nil))
            #expect(try await store.authenticationContext(credentialID: credential.id, challenge: ceremony.challenge, now: now).ownerDisabled)
            #expect(try await store.consumeCeremony(challenge: ceremony.challenge, kind: .authentication, now: now) == ceremony)
        }
    }
}
