internal import Synchronization
internal import PasskeyStorage

/// Sessions that ended together: signed out, signed out everywhere, or ended with the passkey
/// that opened them. The OpenID provider listens, to end the grants bound to them and tell the
/// applications that hold their tokens.
public struct EndedSessions: Sendable {
    public let userHandle: [UInt8]
    public let tokenHashes: [[UInt8]]
}

/// Who hears of ended sessions. Observers run on the caller's task and must not block it:
/// they start their own work.
final class SessionEndFeed: Sendable {
    private let observers = Mutex<[@Sendable (EndedSessions) -> Void]>([])

    func add(_ observer: @escaping @Sendable (EndedSessions) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    func publish(_ ended: EndedSessions) {
        guard !ended.tokenHashes.isEmpty else { return }
        for observer in observers.withLock({ $0 }) { observer(ended) }
    }
}

/// Who hears of a recovery that started to wait (`--recovery-delay`): the push sign-in tells the
/// account's phones. Observers run on the caller's task and must not block it.
final class RecoveryStartFeed: Sendable {
    private let observers = Mutex<[@Sendable (RecoveryRequestRecord) -> Void]>([])

    func add(_ observer: @escaping @Sendable (RecoveryRequestRecord) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    func publish(_ request: RecoveryRequestRecord) {
        for observer in observers.withLock({ $0 }) { observer(request) }
    }
}
