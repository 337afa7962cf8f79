internal import Synchronization
internal import PasskeyStorage

/// Sessions that ended together: signed out, signed out everywhere, or ended with the passkey
/// that opened them. The OpenID provider listens, to end the grants bound to them and tell the
/// applications that hold their tokens.
public struct EndedSessions: Sendable {
    public let userHandle: [UInt8]
    public let tokenHashes: [[UInt8]]
}

/// Who hears of something that happened: ended sessions (the OpenID provider ends their grants),
/// a recovery that started to wait (the push sign-in tells the account's phones). Observers run
/// on the caller's task and must not block it: they start their own work.
final class Feed<Item: Sendable>: Sendable {
    private let observers = Mutex<[@Sendable (Item) -> Void]>([])
    /// Items nobody is told of (sessions that ended none).
    private let skipping: @Sendable (Item) -> Bool

    init(skipping: @escaping @Sendable (Item) -> Bool = { _ in false }) {
        self.skipping = skipping
    }

    func add(_ observer: @escaping @Sendable (Item) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    func publish(_ item: Item) {
        guard !skipping(item) else { return }
        for observer in observers.withLock({ $0 }) { observer(item) }
    }
}
