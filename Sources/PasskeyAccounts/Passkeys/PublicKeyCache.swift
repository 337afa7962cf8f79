internal import PasskeyCore
internal import PasskeyStorage
internal import Synchronization

/// Imported credential public keys, by credential id. Importing a key under OpenSSL 3 (provider
/// and name lookups, the point check) costs more than verifying a signature with it, so the
/// keys of recently used credentials are kept. An entry is used only while the stored key
/// bytes are the same; at `capacity` the oldest half is dropped.
final class PublicKeyCache: Sendable {
    private struct Entry {
        let bytes: [UInt8]
        let key: COSEKey
        let order: Int
    }

    private struct State {
        var entries: [[UInt8]: Entry] = [:]
        var counter = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(capacity, 2)
    }

    func key(for credential: CredentialRecord) throws -> COSEKey {
        if let cached = state.withLock({ $0.entries[credential.id] }), cached.bytes == credential.publicKey {
            return cached.key
        }
        let key = try COSEKey(bytes: credential.publicKey)
        state.withLock { state in
            if state.entries.count >= capacity {
                let oldest = state.entries.sorted { $0.value.order < $1.value.order }.prefix(state.entries.count / 2)
                for (id, _) in oldest { state.entries[id] = nil }
            }
            state.counter &+= 1
            state.entries[credential.id] = Entry(bytes: credential.publicKey, key: key, order: state.counter)
        }
        return key
    }

    var count: Int { state.withLock { $0.entries.count } }
}
