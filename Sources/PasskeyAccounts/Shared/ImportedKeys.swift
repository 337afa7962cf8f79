internal import Synchronization

/// Keys imported into OpenSSL, kept by what they were read from: importing a key under
/// OpenSSL 3 (provider and name lookups under locks, the point check) costs more than verifying
/// a signature with it, and the same keys come back request after request. At `capacity` the
/// oldest half is dropped.
final class ImportedKeys<Name: Hashable & Sendable, Key: Sendable>: Sendable {
    private struct Entry {
        let key: Key
        let order: Int
    }

    private struct State {
        var entries: [Name: Entry] = [:]
        var counter = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(capacity, 2)
    }

    func key(_ name: Name) -> Key? {
        state.withLock { $0.entries[name]?.key }
    }

    func keep(_ key: Key, as name: Name) {
        state.withLock { state in
            if state.entries.count >= capacity {
                let oldest = state.entries.sorted { $0.value.order < $1.value.order }.prefix(state.entries.count / 2)
                for (name, _) in oldest { state.entries[name] = nil }
            }
            state.counter &+= 1
            state.entries[name] = Entry(key: key, order: state.counter)
        }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
