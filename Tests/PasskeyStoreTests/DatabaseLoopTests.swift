@testable import PasskeyPostgres
import PasskeyStorage
import PasskeyTestSupport
import PostgresNIO
import Testing

/// Perf of finalizes on PostgreSQL found each statement handed twice between PostgresNIO's loops
/// and Swift's global executor; a store's calls now run on the thread of its connections.
@Suite("PostgreSQL's thread")
struct DatabaseLoopTests {
    @Test("a call's operation runs on the loop it is given, after a suspension too, and elsewhere without one")
    func anOperationRunsOnItsLoop() async throws {
        let loop = DatabaseLoop()
        let on = try await PostgresPasskeyStore.firstOf({ () async throws -> [Bool] in
            let before = loop.loop.inEventLoop
            try await Task.sleep(for: .milliseconds(1))
            return [before, loop.loop.inEventLoop]
        }, timeout: .seconds(60), on: loop)
        #expect(on == [true, true])
        #expect(try await PostgresPasskeyStore.firstOf({ loop.loop.inEventLoop }, timeout: .seconds(60)) == false)
        await loop.shutdown()
    }

    @Test("a store's calls run on the thread of their connection, before and after a statement", .enabled(if: TestPostgres.isAvailable))
    func aStoresCallsRunBesideTheirConnection() async throws {
        try await TestPostgres.withDatabase { url in
            let store = try await PostgresPasskeyStore(location: try PostgresLocation(url: url), timeout: testTimeout, logger: quietLogger)
            let on = try await store.withConnection { db -> [Bool] in
                let before = db.eventLoop.inEventLoop
                try await db.query("SELECT 1", logger: PostgresPasskeyStore.quiet)
                return [before, db.eventLoop.inEventLoop]
            }
            #expect(on == [true, true])
            await store.close()
        }
    }
}
