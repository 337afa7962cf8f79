import Foundation
import Testing
import PasskeyStorage

/// The store contract: concurrent callers.
struct ConcurrencyContract {
    static let checks: [StoreCheck] = [
        StoreCheck("200 concurrent mixed operations from a TaskGroup finish without error and add up") { try await ConcurrencyContract().mixedWorkload($0) },
    ]

    /// What one task of the mixed workload did, checked once the group has finished.
    enum Outcome: Sendable {
        case registered(UserRecord, CredentialRecord)
        case lookedUp(found: Bool)
        case listed(count: Int)
        case session(found: Bool)
        case ceremony(consumed: Bool)
        case assertion(credential: Int, count: UInt32, applied: Bool)
        case renamed(Bool)
        case swept
    }

    func mixedWorkload(_ engine: any StoreEngine) async throws {
        try await withStore(engine) { store in
            let users = (0..<10).map { Fixture.user(name: "seed\($0)") }
            var credentials: [CredentialRecord] = []
            for user in users {
                let credential = Fixture.credential(for: user)
                try await store.registerCredential(credential, newUser: user)
                credentials.append(credential)
            }
            let seededCredentials = credentials

            let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
                for index in 0..<200 {
                    let user = users[index % users.count]
                    let credential = seededCredentials[index % seededCredentials.count]
                    group.addTask {
                        switch index % 8 {
                        case 0:
                            let newUser = Fixture.user(name: "new\(index)")
                            let newCredential = Fixture.credential(for: newUser)
                            try await store.registerCredential(newCredential, newUser: newUser)
                            return .registered(newUser, newCredential)
                        case 1:
                            return .lookedUp(found: try await store.user(nameKey: user.nameKey) == user)
                        case 2:
                            return .listed(count: try await store.credentials(userHandle: user.handle).count)
                        case 3:
                            let session = Fixture.session(for: user)
                            try await store.insertSession(session)
                            let found = try await store.session(tokenHash: session.tokenHash, now: Fixture.date(1))
                            return .session(found: found == session)
                        case 4:
                            let ceremony = Fixture.ceremony()
                            try await store.insertCeremony(ceremony)
                            let consumed = try await store.consumeCeremony(
                                challenge: ceremony.challenge, kind: .authentication, now: Fixture.date(1))
                            return .ceremony(consumed: consumed == ceremony)
                        case 5:
                            let count = UInt32(index)
                            let applied = try await store.recordAssertion(
                                credentialID: credential.id, signCount: count, backupState: true,
                                uvInitialized: true, at: Fixture.date(Int64(index)))
                            return .assertion(credential: index % seededCredentials.count, count: count, applied: applied)
                        case 6:
                            return .renamed(try await store.renameCredential(
                                id: credential.id, userHandle: user.handle, name: "renamed \(index)"))
                        default:
                            _ = try await store.sweepExpired(now: Fixture.date(-1))
                            return .swept
                        }
                    }
                }
                var outcomes: [Outcome] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }

            #expect(outcomes.count == 200)
            var registered = 0
            var highest: [Int: UInt32] = [:]
            for outcome in outcomes {
                switch outcome {
                case .registered(let user, let credential):
                    registered += 1
                    #expect(try await store.user(handle: user.handle) == user)
                    #expect(try await store.credential(id: credential.id) == credential)
                case .lookedUp(let found), .session(let found), .ceremony(let found), .renamed(let found):
                    #expect(found)
                case .listed(let count):
                    #expect(count == 1)
                case .assertion(let credential, let count, _):
                    highest[credential] = max(highest[credential] ?? 0, count)
                case .swept:
                    break
                }
            }
            #expect(registered == 25)
            // Whatever the interleaving, the highest counter offered always wins the CAS.
            #expect(!highest.isEmpty)
            for (index, count) in highest {
                let stored = try #require(try await store.credential(id: seededCredentials[index].id))
                #expect(stored.signCount == count)
            }
        }
    }
}
