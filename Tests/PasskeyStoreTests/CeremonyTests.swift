import Foundation
import Testing
import PasskeyStorage

@Suite("Ceremonies")
struct CeremonyTests {
    @Test("round trip of every field, for both kinds", arguments: StoreKind.available)
    func roundTrip(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
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

    @Test("a ceremony is consumed once only", arguments: StoreKind.available)
    func consumedOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let ceremony = Fixture.ceremony()
            try await store.insertCeremony(ceremony)
            let now = Fixture.date(1_000)
            #expect(try await store.consumeCeremony(challenge: ceremony.challenge, kind: .authentication, now: now) == ceremony)
            #expect(try await store.consumeCeremony(challenge: ceremony.challenge, kind: .authentication, now: now) == nil)
        }
    }

    @Test("an expired ceremony is not returned (expired at expiresAt exactly)", arguments: StoreKind.available)
    func expiredNotReturned(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
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

    @Test("the wrong kind is not returned and does not spend the challenge", arguments: StoreKind.available)
    func wrongKindNotReturned(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let ceremony = Fixture.ceremony(.registration)
            try await store.insertCeremony(ceremony)
            let now = Fixture.date(1)
            #expect(try await store.consumeCeremony(challenge: ceremony.challenge, kind: .authentication, now: now) == nil)
            #expect(try await store.consumeCeremony(challenge: ceremony.challenge, kind: .registration, now: now) == ceremony)
        }
    }

    @Test("an unknown challenge is nil; a duplicate challenge cannot be inserted", arguments: StoreKind.available)
    func unknownAndDuplicate(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            #expect(try await store.consumeCeremony(challenge: Fixture.bytes(32), kind: .registration, now: Fixture.date()) == nil)
            let ceremony = Fixture.ceremony()
            try await store.insertCeremony(ceremony)
            let error = await #expect(throws: StoreError.self) {
                try await store.insertCeremony(ceremony)
            }
            #expect(error?.code == .database)
        }
    }

    @Test("50 concurrent consumeCeremony calls on one challenge: exactly one winner", arguments: StoreKind.available)
    func concurrentConsumeOneWinner(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
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

    @Test("two stores on one database (two processes) racing 50 consumes: exactly one winner", arguments: StoreKind.available)
    func twoStoresOneWinner(_ kind: StoreKind) async throws {
        try await withTwoStores(kind) { first, second in
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
}
