import Foundation
import Testing
@testable import PasskeyStorage
@testable import PasskeySQLite

/// The WAL is copied back into the database file beside the writer, and then started again.
@Suite("WAL checkpoint beside the writer")
struct WALCheckpointerTests {
    static let start: Int32 = 16

    /// A WAL database whose checkpoint starts at 16 WAL frames, with one table of 4 KiB rows:
    /// each write adds at least one frame. (Not the store's schema: its migrations alone leave
    /// more than 64 frames.)
    static func withDatabase(_ body: (GroupCommitDatabase, String) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("wal.sqlite").path
            let database = try await GroupCommitDatabase(
                path: path, label: "WALCheckpointerTests", prepare: Self.prepare, prepareReader: Schema.prepareReader,
                checkpointAt: start)
            do {
                _ = try await database.exclusive { db in
                    try db.execute("CREATE TABLE rows (value BLOB NOT NULL)", cached: false)
                }
                try await body(database, path)
            } catch {
                await database.close()
                throw error
            }
            await database.close()
        }
    }

    static func prepare(_ db: SQLiteConnection) throws {
        try db.setBusyTimeout(milliseconds: 5000)
        _ = try db.row("PRAGMA journal_mode = WAL", cached: false) { $0.text(0) }
        try db.execute("PRAGMA synchronous = FULL", cached: false)
    }

    static func insert(_ database: GroupCommitDatabase, _ index: Int) async throws {
        try await database.write { db in
            try db.execute("INSERT INTO rows (value) VALUES (?)", [.blob(Array(repeating: UInt8(index % 251), count: 4096))])
        }
    }

    static func walFrames(_ database: GroupCommitDatabase) async throws -> Int32 {
        try await database.exclusive { _ in database.walSize.frames }
    }

    static func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test("below the start nothing; then a pass here; while it runs nothing; after it the writer copies the rest; past four times the start, the writer at every commit")
    func steps() async throws {
        try await Self.withDatabase { database, _ in
            let checkpointer = database.checkpointer
            #expect(checkpointer.step(walFrames: 15, phase: .idle) == .nothing)
            #expect(checkpointer.step(walFrames: 16, phase: .idle) == .startPass)
            #expect(checkpointer.step(walFrames: 40, phase: .copying) == .nothing)
            #expect(checkpointer.step(walFrames: 40, phase: .copied) == .copyOnWriter)
            #expect(checkpointer.step(walFrames: 63, phase: .copying) == .nothing)
            #expect(checkpointer.step(walFrames: 64, phase: .copying) == .copyOnWriter)
            #expect(checkpointer.step(walFrames: 64, phase: .idle) == .copyOnWriter)
        }
    }

    @Test("SQLite's own checkpoint, inside the writer's COMMIT, is off")
    func ownCheckpointIsOff() async throws {
        try await Self.withDatabase { database, _ in
            let pages = try await database.exclusive { db in
                try db.row("PRAGMA wal_autocheckpoint", cached: false) { $0.int64(0) }
            }
            #expect(pages == 0)
        }
    }

    @Test("a WAL past the start is copied into the database file by the checkpointer's pass, with no further write")
    func passCopiesBesideTheWriter() async throws {
        try await Self.withDatabase { database, path in
            let before = try Self.fileSize(path)
            var index = 0
            while try await Self.walFrames(database) < Self.start {
                try await Self.insert(database, index)
                index += 1
            }
            // The commit that passed the start began a pass; no write follows it here.
            let deadline = Date().addingTimeInterval(10)
            while database.checkpointer.currentPhase != .copied, Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(database.checkpointer.currentPhase == .copied)
            // The rows' pages are in the database file now, not only in the WAL.
            #expect(try Self.fileSize(path) >= before + index * 4096)
        }
    }

    @Test("under writes the WAL is started again rather than grown, and every row is kept")
    func walStartsAgain() async throws {
        try await Self.withDatabase { database, path in
            var largest: Int32 = 0
            var restarts = 0
            var previous: Int32 = 0
            for index in 0..<400 {
                try await Self.insert(database, index)
                let frames = try await Self.walFrames(database)
                largest = max(largest, frames)
                if frames < previous { restarts += 1 }
                previous = frames
            }
            // Each insert adds a frame or more: 400 inserts without a restart would leave 400
            // or more (1 252 with the writer's copy removed). The bound leaves room for a pass
            // that a loaded machine keeps from running for a hundred commits.
            #expect(restarts >= 2)
            #expect(largest <= 4 * Self.start + 128)
            // Another connection reads every row, from the file and the WAL together.
            let other = try SQLiteConnection(path: path)
            #expect(try other.row("SELECT count(*) FROM rows", cached: false) { $0.int64(0) } == 400)
            other.close()
        }
    }
}
