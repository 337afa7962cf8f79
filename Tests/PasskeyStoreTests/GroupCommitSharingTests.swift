import Foundation
import Testing
@testable import PasskeyStorage
@testable import PasskeySQLite
import Synchronization

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

    /// A group runs first without savepoints; when a job fails after writing, the whole group
    /// runs again with them, so the failed job's earlier write is undone and the others commit.
    @Test func aJobThatFailsAfterWritingLeavesNothingAndTheOthersCommit() async throws {
        try await withTemporaryDirectory { directory in
            let sizes = Mutex<[Int]>([])
            let store = try await SQLitePasskeyStore(path: directory.appendingPathComponent("retry.sqlite").path) { writes, _ in
                sizes.withLock { $0.append(writes) }
            }
            let database = store.database
            try await database.exclusive { try $0.execute("CREATE TABLE scratch (x INTEGER PRIMARY KEY)") }
            struct Refused: Error {}
            // The writer is held, from before the three writes are made until they all wait, so
            // that they form one group.
            let holding = Mutex(false)
            let held = Task {
                try await database.exclusive { _ in
                    holding.withLock { $0 = true }
                    let deadline = Date().addingTimeInterval(30)
                    while database.queuedWrites < 3, Date() < deadline { usleep(1_000) }
                }
            }
            while !holding.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            async let first: Void = database.write { try $0.execute("INSERT INTO scratch (x) VALUES (1)") }
            let failing = Task {
                try await database.write { connection in
                    try connection.execute("INSERT INTO scratch (x) VALUES (2)")
                    throw Refused()
                }
            }
            async let third: Void = database.write { try $0.execute("INSERT INTO scratch (x) VALUES (3)") }
            try await first
            await #expect(throws: Refused.self) { try await failing.value }
            try await third
            try await held.value
            let rows = try database.read { try $0.rows("SELECT x FROM scratch ORDER BY x", []) { $0.int64(0) } }
            #expect(rows == [1, 3])
            #expect(sizes.withLock { $0 }.contains(3), "the three writes were not one group: \(sizes.withLock { $0 })")
            await store.close()
        }
    }
}
