public import Foundation
public import PasskeyCrypto
public import PasskeyJOSE
internal import PasskeyJSON
public import PasskeyStorage
internal import Synchronization

/// The OpenID provider's signing keys (docs/contracts/identity.md, "Issuer, keys, clients"): one line of keys
/// per algorithm (RS256 on RSA 2048, which OpenID Connect Core requires, and ES256 on P-256),
/// kept in the database so every instance signs with the same keys and publishes the same set.
///
/// A key is published from the moment it is stored; it signs from `activatesAt` (at once for
/// the first key of an algorithm, `publishAhead` later after a rotation, so relying parties have
/// fetched it before they meet it); it is retired when the next generation starts signing, and
/// stays published for `retention` after that, longer than any token it signed lives.
/// The first key of each algorithm is made the first time a key is needed.
public final class SigningKeys: Sendable {
    public static let algorithms: [JWSAlgorithm] = [.rs256, .es256]
    public static let defaultPublishAhead: TimeInterval = 3600
    /// Longer than any token the provider signs lives.
    public static let retention: TimeInterval = 86_400
    static let rsaBits = 2048

    /// Where a key is in its life at a given time.
    public enum State: String, Sendable {
        /// Published, not yet signing.
        case upcoming
        /// The one key of its algorithm that signs.
        case signing
        /// Replaced; still published so that what it signed still verifies.
        case retired
        /// Replaced more than `retention` ago: no longer published.
        case withdrawn
    }

    public struct Key: Sendable {
        public let record: SigningKeyRecord
        public let algorithm: JWSAlgorithm
        public let privateKey: PrivateKey
        public let state: State

        /// The public JWK a key set publishes.
        public var jwk: JWK { JWK(publicKey: privateKey.publicKey, keyID: record.keyID, algorithm: algorithm) }
    }

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    let store: any OpenIDStore
    /// Keys already read from their PKCS#8, by `kid`: OpenSSL's decoder costs far more than the
    /// signature (most of a token request's CPU before this cache). A record never changes
    /// under its `kid`; the bytes are compared all the same.
    private let parsed = Mutex<[String: (pkcs8: [UInt8], key: PrivateKey)]>([:])
    /// The first keys being made, while they are.
    private let creation = Mutex<Task<Void, any Error>?>(nil)
    /// The records as last read, and when (monotonic time). Signing and checking a token reuse
    /// them for `recordsReuse` instead of a store read per request; listing the keys, the
    /// published key set and rotation always read. A `kid` the reused records lack is read
    /// again, so a key another instance or process has just made verifies at once; a key that
    /// another one made to sign from now takes over here within `recordsReuse`, while the key it
    /// replaces is still published.
    /// A read that started before a rotation of this instance, or before a later read, never
    /// replaces what that one left (`epoch` counts the rotations).
    private let recent = Mutex<Recent>(Recent())
    let recordsReuse: Duration

    private struct Recent {
        var last: (records: [SigningKeyRecord], readAt: ContinuousClock.Instant)?
        var epoch = 0
    }

    public init(store: any OpenIDStore, recordsReuse: Duration = .seconds(1)) {
        self.store = store
        self.recordsReuse = recordsReuse
    }

    /// Every key with its state at `now`, by algorithm and generation; makes the first key of an
    /// algorithm that has none.
    public func keys(now: Date) async throws -> [Key] {
        try await keys(now: now, reusing: false).keys
    }

    /// `keys(now:)`, from the records read within `recordsReuse` when `reusing`; `reused` says
    /// whether they were.
    func keys(now: Date, reusing: Bool) async throws -> (keys: [Key], reused: Bool) {
        let (records, reused) = try await records(now: now, reusing: reusing)
        return (try Self.states(records, now: now, read: privateKey), reused)
    }

    private func records(now: Date, reusing: Bool) async throws -> (records: [SigningKeyRecord], reused: Bool) {
        let (reused, epoch) = recent.withLock { recent -> ([SigningKeyRecord]?, Int) in
            guard reusing, let last = recent.last, ContinuousClock.now - last.readAt < recordsReuse else { return (nil, recent.epoch) }
            return (last.records, recent.epoch)
        }
        if let reused { return (reused, true) }
        let readAt = ContinuousClock.now
        var records = try await store.signingKeys()
        if Self.algorithms.contains(where: { algorithm in !records.contains { $0.algorithm == algorithm.rawValue } }) {
            try await makeFirstKeys(now: now)
            records = try await store.signingKeys()  // ours, or the ones another instance stored first
        }
        recent.withLock { recent in
            guard recent.epoch == epoch, recent.last.map({ $0.readAt < readAt }) ?? true else { return }
            recent.last = (records, readAt)
        }
        return (records, false)
    }

    /// The key `kid` of `algorithm`, whatever its state at `now` (the caller decides which it
    /// accepts), for checking a signature; nil when no stored key is that one. The store is read
    /// again only when the reused records lack it, not after a read that was fresh already.
    public func key(id kid: String, algorithm: JWSAlgorithm, now: Date) async throws -> Key? {
        func named(_ keys: [Key]) -> Key? { keys.first { $0.record.keyID == kid && $0.algorithm == algorithm } }
        let (keys, reused) = try await keys(now: now, reusing: true)
        if let key = named(keys) { return key }
        return reused ? named(try await self.keys(now: now, reusing: false).keys) : nil
    }

    /// Makes the first key of each algorithm that has none, once however many requests ask at
    /// the same time (an RSA key takes a while; each of them would make its own).
    func makeFirstKeys(now: Date) async throws {
        let task = creation.withLock { current in
            if let current { return current }
            let store = store
            let made = Task {
                let records = try await store.signingKeys()
                for algorithm in Self.algorithms where !records.contains(where: { $0.algorithm == algorithm.rawValue }) {
                    _ = try await store.insertSigningKey(try await Self.generated(algorithm, generation: 1, now: now, activatesAt: now))
                }
            }
            current = made
            return made
        }
        defer { creation.withLock { if $0 == task { $0 = nil } } }
        try await task.value
    }

    /// The private key of `record`, read once.
    func privateKey(_ record: SigningKeyRecord) throws -> PrivateKey {
        if let cached = parsed.withLock({ $0[record.keyID] }), cached.pkcs8 == record.privateKey { return cached.key }
        let key: PrivateKey
        do { key = try PrivateKey(pkcs8: record.privateKey) } catch {
            throw Failure(description: "signing key \(record.keyID) cannot be read: \(error)")
        }
        parsed.withLock { $0[record.keyID] = (record.privateKey, key) }
        return key
    }

    /// Adds the next generation of `algorithm`: published now, signing `publishAhead` from now.
    public func rotate(_ algorithm: JWSAlgorithm, now: Date, publishAhead: TimeInterval) async throws -> Key {
        guard Self.algorithms.contains(algorithm) else {
            throw Failure(description: "the provider signs with \(Self.algorithms.map(\.rawValue).joined(separator: " or ")), not \(algorithm.rawValue)")
        }
        guard publishAhead.isFinite, publishAhead >= 0 else { throw Failure(description: "the publish-ahead time must be 0 or more seconds") }
        for _ in 0..<3 {
            let current = try await keys(now: now).filter { $0.algorithm == algorithm }
            let generation = (current.map(\.record.generation).max() ?? 0) + 1
            let record = try await Self.generated(algorithm, generation: generation, now: now, activatesAt: now.addingTimeInterval(publishAhead))
            if try await store.insertSigningKey(record) {
                recent.withLock { recent in
                    recent = Recent(epoch: recent.epoch + 1)
                }
                return try Self.key(record, state: publishAhead > 0 ? .upcoming : .signing, read: privateKey)
            }
        }
        throw Failure(description: "another instance kept rotating \(algorithm.rawValue) keys at the same time; try again")
    }

    /// The key that signs with `algorithm` at `now`.
    public func signer(_ algorithm: JWSAlgorithm, now: Date) async throws -> Key {
        guard let key = try await keys(now: now, reusing: true).keys.first(where: { $0.algorithm == algorithm && $0.state == .signing }) else {
            throw Failure(description: "no \(algorithm.rawValue) key signs at \(now)")
        }
        return key
    }

    /// `{"keys":[…]}`: the public parts of every published key (upcoming, signing, retired).
    public func keySet(now: Date) async throws -> [UInt8] {
        let published = try await keys(now: now).filter { $0.state != .withdrawn }
        return JWKSet(keys: published.map(\.jwk)).json.encoded()
    }

    /// Each record's state at `now`: per algorithm, the highest generation already active signs;
    /// later ones are upcoming; earlier ones are retired until `retention` after the key that
    /// followed them started signing, then withdrawn.
    static func states(
        _ records: [SigningKeyRecord], now: Date, read: (SigningKeyRecord) throws -> PrivateKey = readPrivateKey
    ) throws -> [Key] {
        var keys: [Key] = []
        for algorithm in algorithms {
            let line = records.filter { $0.algorithm == algorithm.rawValue }.sorted { $0.generation < $1.generation }
            let signing = line.last { $0.activatesAt <= now }
            for (index, record) in line.enumerated() {
                let state: State
                if record.activatesAt > now {
                    state = signing == nil && index == 0 ? .signing : .upcoming
                } else if record.generation == signing?.generation {
                    state = .signing
                } else {
                    let replacedAt = line[index + 1].activatesAt
                    state = now.timeIntervalSince(replacedAt) < retention ? .retired : .withdrawn
                }
                keys.append(try key(record, state: state, read: read))
            }
        }
        return keys
    }

    static func key(_ record: SigningKeyRecord, state: State, read: (SigningKeyRecord) throws -> PrivateKey = readPrivateKey) throws -> Key {
        guard let algorithm = JWSAlgorithm(rawValue: record.algorithm) else {
            throw Failure(description: "signing key \(record.keyID) has the unknown algorithm \(record.algorithm)")
        }
        return Key(record: record, algorithm: algorithm, privateKey: try read(record), state: state)
    }

    static func readPrivateKey(_ record: SigningKeyRecord) throws -> PrivateKey {
        do { return try PrivateKey(pkcs8: record.privateKey) } catch {
            throw Failure(description: "signing key \(record.keyID) cannot be read: \(error)")
        }
    }

    /// `generate` on a thread of its own: an RSA key takes a few hundred milliseconds of one
    /// core here, which on Swift's global executor (as many threads as cores) would hold up every
    /// other task of the process meanwhile, database calls' continuations included.
    static func generated(_ algorithm: JWSAlgorithm, generation: Int, now: Date, activatesAt: Date) async throws -> SigningKeyRecord {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try generate(algorithm, generation: generation, now: now, activatesAt: activatesAt) })
            }
        }
    }

    /// A new key: RSA 2048 for RS256, P-256 for ES256; its `kid` is its RFC 7638 thumbprint.
    static func generate(_ algorithm: JWSAlgorithm, generation: Int, now: Date, activatesAt: Date) throws -> SigningKeyRecord {
        let privateKey = algorithm == .rs256 ? try PrivateKey.generateRSA(bits: rsaBits) : try PrivateKey.generateEC(.p256)
        let kid = JWK(publicKey: privateKey.publicKey, keyID: nil, algorithm: algorithm).thumbprint
        return SigningKeyRecord(
            keyID: kid, algorithm: algorithm.rawValue, generation: generation, privateKey: try privateKey.pkcs8(), createdAt: now,
            activatesAt: activatesAt)
    }
}
