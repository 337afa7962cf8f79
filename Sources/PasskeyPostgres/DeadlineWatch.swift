internal import Synchronization

/// The deadlines of the store's calls, watched by one sweeping task instead of a timer each.
///
/// A timer per call is scheduled on an event loop and cancelled when the call answers. That loop
/// is rarely the calling thread, so both are hand-overs to another thread: two wake-ups per
/// statement. Here a call's deadline is an entry in a table under a lock, which the call removes
/// when it answers. One task wakes every `tick` while any entry is left, and expires those whose
/// time has come. A deadline can fire up to one tick late; the task ends when the table is empty.
final class DeadlineWatch: Sendable {
    private struct Entry {
        let due: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var next: UInt64 = 0
        var pending: [UInt64: Entry] = [:]
        var sweeping = false
    }

    private let state = Mutex(State())
    let tick: Duration

    init(tick: Duration) {
        self.tick = tick
    }

    /// Calls `expire` once `due` has passed, unless `forget` comes first. Returns the entry's key.
    func watch(until due: ContinuousClock.Instant, _ expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (key, start) = state.withLock { state -> (UInt64, Bool) in
            state.next &+= 1
            state.pending[state.next] = Entry(due: due, expire: expire)
            defer { state.sweeping = true }
            return (state.next, !state.sweeping)
        }
        if start {
            // Detached: the sweeper outlives the call that started it and takes none of its
            // task-local values or priority along.
            Task.detached { await self.sweep() }
        }
        return key
    }

    /// The call answered: its deadline no longer matters.
    func forget(_ key: UInt64) {
        _ = state.withLock { $0.pending.removeValue(forKey: key) }
    }

    /// How many deadlines are waiting (for tests).
    var pendingCount: Int {
        state.withLock { $0.pending.count }
    }

    private func sweep() async {
        while true {
            try? await Task.sleep(for: tick)
            let now = ContinuousClock.now
            let expired = state.withLock { state -> [Entry]? in
                guard !state.pending.isEmpty else {
                    state.sweeping = false
                    return nil
                }
                let due = state.pending.filter { $0.value.due <= now }
                for key in due.keys { state.pending.removeValue(forKey: key) }
                return Array(due.values)
            }
            guard let expired else { return }
            for entry in expired { entry.expire() }
        }
    }
}
