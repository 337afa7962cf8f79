import Foundation
import Synchronization
import PasskeyStoreContract
import Testing
@testable import PasskeyStorage
@testable import PasskeySQLite

/// Group commit's two kinds of group: a group of only pending ceremonies commits with
/// synchronous=NORMAL (no fsync), any group with a durable write with FULL.
@Suite("Group commit: durable and not-durable groups")
struct GroupCommitSyncTests {
    /// The writer's `PRAGMA synchronous` as a job of the group sees it: 1 NORMAL, 2 FULL.
    static func synchronous(_ db: SQLiteConnection) throws -> Int64 {
        try db.row("PRAGMA synchronous", cached: false) { $0.int64(0) } ?? -1
    }

    @Test("a pending ceremony is written without fsync; the next durable write is fsynced; both are on the file")
    func ceremonyIsNotDurableButSessionIs() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("groups.sqlite").path
            let commits = Mutex<[Int]>([])
            let store = try await SQLitePasskeyStore(path: path, onCommit: { writes, _ in commits.withLock { $0.append(writes) } })
            let user = Fixture.user(name: "Groups")
            try await store.registerCredential(Fixture.credential(for: user), newUser: user)
            #expect(commits.withLock { $0 } == [1])

            let ceremony = Fixture.ceremony()
            try await store.insertCeremony(ceremony)
            // No durable commit was made for it (onCommit hears of durable commits only) …
            #expect(commits.withLock { $0 } == [1])
            // … and a job in a group of its own kind runs under NORMAL.
            #expect(try await store.database.write(durable: false) { try Self.synchronous($0) } == 1)
            // A durable write is back to FULL.
            #expect(try await store.database.write { try Self.synchronous($0) } == 2)
            #expect(try await store.pragmaValue(.synchronous) == "2")

            let session = Fixture.session(for: user)
            try await store.insertSession(session)
            #expect(commits.withLock { $0.count } == 3)
            await store.close()

            // Another connection (another process would be the same) finds both.
            let reopened = try await SQLitePasskeyStore(path: path)
            #expect(try await reopened.ceremony(challenge: ceremony.challenge, kind: ceremony.kind, now: Fixture.date()) == ceremony)
            #expect(try await reopened.session(tokenHash: session.tokenHash, now: Fixture.date()) == session)
            await reopened.close()
        }
    }

    @Test("a group holding a not-durable and a durable write commits with FULL")
    func mixedGroupIsDurable() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("mixed.sqlite").path
            let commits = Mutex<[Int]>([])
            let store = try await SQLitePasskeyStore(path: path, onCommit: { writes, _ in commits.withLock { $0.append(writes) } })
            let database = store.database
            // Hold the writer in a first group so that the next two wait and are drained together.
            let release = Mutex(false)
            let holding = Mutex(false)
            async let holder: Void = database.write { _ in
                holding.withLock { $0 = true }
                while !release.withLock({ $0 }) { usleep(1_000) }
            }
            // Under a loaded suite the holder can take longer than any fixed pause to reach the
            // writer; the two writes below must queue behind it, not beside it.
            let entered = ContinuousClock.now + .seconds(30)
            while !holding.withLock({ $0 }), ContinuousClock.now < entered { try await Task.sleep(for: .milliseconds(10)) }
            async let pending: Int64 = database.write(durable: false) { try Self.synchronous($0) }
            async let durable: Int64 = database.write { try Self.synchronous($0) }
            let deadline = ContinuousClock.now + .seconds(30)
            while database.queuedWrites < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(database.queuedWrites == 2)
            release.withLock { $0 = true }
            try await holder
            #expect(try await pending == 2)
            #expect(try await durable == 2)
            #expect(commits.withLock { $0 } == [1, 2])
            await store.close()
        }
    }
}
