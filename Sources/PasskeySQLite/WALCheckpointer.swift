internal import PasskeyStorage
internal import Synchronization

/// Copies the WAL back into the database file on a connection and a thread of its own, so that
/// the writer's groups do not wait behind the copy and its fsync of the database file.
///
/// SQLite's own checkpoint runs inside the COMMIT that finds the WAL past its limit, on the
/// writer: every write queued behind that commit waited for thousands of pages to be copied and
/// the file fsynced. That wait was the whole of an initialize's p99 under load.
///
/// Here the writer only reports the WAL's size after each commit (`afterCommit`). Past
/// `startFrames`, this checkpointer copies every frame it may (PASSIVE: it waits for no lock,
/// and the writer goes on appending meanwhile). When that pass is done, the writer copies the
/// few frames committed during it, itself: only then is the whole WAL in the database file, so
/// that SQLite starts the WAL again from its beginning at the next write instead of growing it.
/// Past `writerLimitFrames` (the checkpointer fell behind), the writer copies at every commit,
/// as SQLite's own checkpoint would.
///
/// A checkpoint that fails leaves the frames in the WAL, where every reader still finds them;
/// the next one copies them. Like SQLite's own checkpoint, its error reaches no caller.
final class WALCheckpointer: Sendable {
    /// The WAL's size, in frames (one page each), at which a checkpoint starts; SQLite's default
    /// is 1 000. A sign-in's commits touch the same few pages (the ceremony, the credential, the
    /// session, the event, their indexes), and a checkpoint copies each page once however often
    /// the WAL holds it, so a ten times rarer checkpoint copies far fewer pages per sign-in (and
    /// fsyncs the file a tenth as often). In paired rounds on the release build: 403 → 375 µs of
    /// server CPU per durable finalize, 104 → 96 µs per initialize. The WAL then grows to about
    /// 40 MB between checkpoints.
    static let defaultStartFrames: Int32 = 10_000

    /// The WAL's size at which a pass starts (tests make it small).
    let startFrames: Int32
    /// The WAL's size at which the writer copies at each commit whatever this checkpointer does.
    var writerLimitFrames: Int32 { 4 * startFrames }

    enum Phase: UInt8 {
        /// No pass since the WAL last started again.
        case idle
        /// A pass is running on the checkpointer's connection.
        case copying
        /// A pass is done; the writer copies what was committed during it.
        case copied
    }

    private let connection: ConfinedConnection
    private let phase = Atomic<UInt8>(Phase.idle.rawValue)

    init(path: String, label: String, startFrames: Int32 = defaultStartFrames) async throws {
        self.startFrames = startFrames
        connection = try await ConfinedConnection(path: path, label: label, prepare: Self.prepare)
    }

    /// The checkpointer's connection: it fsyncs the database file before it counts frames as
    /// copied (FULL), and it has read the file once, so that its WAL is open.
    static func prepare(_ db: SQLiteConnection) throws {
        try db.setBusyTimeout(milliseconds: 5000)
        try db.execute("PRAGMA synchronous = FULL", cached: false)
        _ = try Schema.userVersion(db)
    }

    /// What the writer does after a commit whose WAL held `frames` frames: nothing, start a pass
    /// here, or copy on `writer` (its own connection, on its own queue) what a pass left.
    enum Step: Equatable {
        case nothing
        case startPass
        case copyOnWriter
    }

    func step(walFrames frames: Int32, phase: Phase) -> Step {
        guard frames >= startFrames else { return .nothing }
        if frames >= writerLimitFrames { return .copyOnWriter }
        switch phase {
        case .idle: return .startPass
        case .copying: return .nothing
        case .copied: return .copyOnWriter
        }
    }

    /// On the writer's queue, after a commit's callers were answered.
    func afterCommit(walFrames frames: Int32, writer: SQLiteConnection) {
        let current = currentPhase
        switch step(walFrames: frames, phase: current) {
        case .nothing:
            return
        case .startPass:
            phase.store(Phase.copying.rawValue, ordering: .releasing)
            connection.async { db in
                try? db?.checkpointPassive()
                self.phase.store(Phase.copied.rawValue, ordering: .releasing)
            }
        case .copyOnWriter:
            if current == .copied { phase.store(Phase.idle.rawValue, ordering: .releasing) }
            try? writer.checkpointPassive()
        }
    }

    /// Where the current pass is (read by tests).
    var currentPhase: Phase {
        Phase(rawValue: phase.load(ordering: .acquiring)) ?? .idle
    }

    /// Closes the connection once a pass already started has run.
    func close() async {
        await connection.close()
    }
}
