import Foundation
import Testing
@testable import PasskeyStorage
@testable import PasskeySQLite
import Synchronization

@Suite("Concurrency")
struct ConcurrencyTests {
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

    @Test("200 concurrent mixed operations from a TaskGroup finish without error and add up", arguments: StoreKind.available)
    func mixedWorkload(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
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

@Suite struct GroupCommitTests {
    @Test("concurrent writes share commits, and a failing write is rolled back alone")
    func writesShareCommits() async throws {
        try await withTemporaryDirectory { directory in
            let sizes = Mutex<[Int]>([])
            let store = try await SQLitePasskeyStore(path: directory.appendingPathComponent("group.sqlite").path) { writes, _ in
                sizes.withLock { $0.append(writes) }
            }
            let now = Date()
            func ceremony(_ challenge: [UInt8]) -> CeremonyRecord {
                CeremonyRecord(
                    challenge: challenge, kind: .authentication, userHandle: nil, userName: nil, displayName: nil, isNewUser: false,
                    userVerification: "preferred", allowCredentialIDs: [], algorithms: [], createdAt: now, expiresAt: now.addingTimeInterval(60))
            }
            let duplicate = [UInt8](repeating: 9, count: 32)
            try await store.insertCeremony(ceremony(duplicate), durable: true)
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        // Every tenth write repeats a primary key and must fail on its own.
                        let challenge = index % 10 == 0 ? duplicate : [UInt8](repeating: UInt8(index % 256), count: 31) + [UInt8(index / 256)]
                        do {
                            // Durable writes: onCommit hears of these (a pending ceremony alone is not fsynced).
                            try await store.insertCeremony(ceremony(challenge), durable: true)
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { !$0 }.count == 20)
            for index in 0..<200 where index % 10 != 0 {
                let challenge = [UInt8](repeating: UInt8(index % 256), count: 31) + [UInt8(index / 256)]
                #expect(try await store.ceremony(challenge: challenge, kind: .authentication, now: now) != nil)
            }
            let recorded = sizes.withLock { $0 }
            #expect(recorded.reduce(0, +) == 201)
            #expect(recorded.max() ?? 0 > 1, "no commit carried more than one write: \(recorded)")
            await store.close()
        }
    }
}
