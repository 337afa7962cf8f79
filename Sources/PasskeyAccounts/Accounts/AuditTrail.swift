public import Foundation
public import PasskeyJSON
public import PasskeyStorage
internal import PasskeyCrypto
internal import PasskeyJOSE

/// The tamper-evident audit trail's use cases: signed checkpoints of the chain's head and start,
/// made every `--audit-checkpoint-interval` and after every retention with the OpenID
/// provider's signing key, and the walk of `events verify` over the chain, the checkpoints and
/// copies of them kept elsewhere.
public struct AuditTrail: Sendable {
    let store: any AuditStore
    let signingKeys: SigningKeys

    /// Events read per store call while walking.
    static let pageSize = 1000
    /// Checkpoints are signed with ES256 (small, and verified with the published key set).
    static let algorithm = JWSAlgorithm.es256

    public init(store: any AuditStore, signingKeys: SigningKeys) {
        self.store = store
        self.signingKeys = signingKeys
    }

    /// What a checkpoint signs: the head (its event and hash), where the chain starts now (the
    /// hash before the first event kept), the position of the first chained event (fixed when
    /// the chain began: each checkpoint copies it from the one before), and whether retention
    /// moved the start (`retention`).
    public struct Signed: Sendable, Equatable {
        public var eventID: Int64
        public var hash: [UInt8]
        public var start: [UInt8]?
        public var firstPosition: Int64?
        public var retention: Bool

        /// The claims of a checkpoint's JWS, read without checking its signature.
        init?(_ checkpoint: AuditCheckpoint) {
            guard let jws = try? JWS(compact: checkpoint.jws) else { return nil }
            self.init(payload: jws.payload)
        }

        init?(payload: [UInt8]) {
            guard case .object(let claims)? = try? JSONValue(parsing: payload),
                  case .integer(let eventID)? = claims["event_id"], case .string(let hash)? = claims["hash"], let hashBytes = Base64URL.decodeStrict(hash)
            else { return nil }
            self.eventID = eventID
            self.hash = hashBytes
            if case .string(let start)? = claims["start"] { self.start = Base64URL.decodeStrict(start) }
            if case .integer(let first)? = claims["first"] { firstPosition = first }
            retention = claims["kind"] == .string("retention")
        }
    }

    /// Why a checkpoint was not signed: the chain's start moved since the last signed one, and
    /// no retention of this server moved it.
    public struct StartMoved: Error, CustomStringConvertible {
        public var description: String { "the audit chain's start moved since the last checkpoint without a retention: not signing it" }
    }

    /// Signs the chain's head when it moved since the last checkpoint (or, with `retention`,
    /// the new start the sweeper's retention just made); the checkpoint made, or nil when there
    /// was nothing new. A start that moved without a retention is never signed (`StartMoved`):
    /// signing it would launder a rewritten prefix.
    @discardableResult
    public func checkpoint(now: Date, retention: Bool = false) async throws -> AuditCheckpoint? {
        try await store.sealAuditChain()
        let state = try await store.auditChainState()
        guard state.headID > 0 else { return nil }
        let last = try await store.checkpoints().last
        let previous = last.flatMap(Signed.init)
        if !retention {
            if let start = previous?.start, start != state.startHash { throw StartMoved() }
            if let last, last.eventID == state.headID { return nil }
        }
        let first: Int64? = if let known = previous?.firstPosition { known } else { try await firstChainedPosition() }
        let key = try await signingKeys.signer(Self.algorithm, now: now)
        var claims: [String: JSONValue] = [
            "event_id": .integer(state.headID), "hash": .string(Base64URL.encode(state.headHash)),
            "at": .integer(Int64(now.timeIntervalSince1970)), "start": .string(Base64URL.encode(state.startHash)),
            "kind": .string(retention ? "retention" : "checkpoint"),
        ]
        if let first { claims["first"] = .integer(first) }
        let jws = try JWS.sign(header: ["typ": .string("audit-checkpoint"), "kid": .string(key.record.keyID)], claims: claims, key: key.privateKey, algorithm: Self.algorithm)
        let checkpoint = AuditCheckpoint(eventID: state.headID, hash: state.headHash, at: now, jws: jws)
        try await store.insertCheckpoint(checkpoint)
        return checkpoint
    }

    /// The position of the first event that carries a hash, read from the chain's start.
    func firstChainedPosition() async throws -> Int64? {
        var after: Int64 = 0
        while true {
            let page = try await store.chainedEvents(after: after, limit: Self.pageSize)
            if let first = page.first(where: { $0.hash != nil }) { return first.position }
            guard page.count == Self.pageSize, let last = page.last else { return nil }
            after = last.position
        }
    }

    /// What `events verify` found.
    public struct Report: Sendable {
        public var events = 0
        public var unchained = 0
        public var checkpoints = 0
        /// The first break, in the chain or in a checkpoint; nil when everything holds.
        public var failure: String?
    }

    /// Checks every checkpoint (its signature with the signing key it names, and that its row
    /// is what was signed), and every copy kept elsewhere (`copies`: each must still be in the
    /// database, so deleted checkpoint rows are found); then that the signed starts follow one
    /// another (a start may move only by a signed retention record), that the chain starts
    /// where the last one says, and that the first chained position never changed; then walks
    /// every event from the start, with no event after the first chained position left
    /// without a hash; last, that each checkpoint's event, when retention kept it, still has
    /// the hash it signed.
    public func verify(now: Date, copies: [AuditCheckpoint] = []) async throws -> Report {
        try await store.sealAuditChain()
        let state = try await store.auditChainState()
        var report = Report()
        let checkpoints = try await store.checkpoints()
        let keys = try await signingKeys.keys(now: now)
        for checkpoint in checkpoints {
            report.checkpoints += 1
            if let failure = checkSignature(checkpoint, keys: keys) {
                report.failure = "checkpoint \(checkpoint.id) (event \(checkpoint.eventID)): \(failure)"
                return report
            }
        }
        let stored = Set(checkpoints.map(\.jws))
        for copy in copies {
            if let failure = checkSignature(copy, keys: keys) {
                report.failure = "the kept copy of checkpoint \(copy.id) (event \(copy.eventID)): \(failure)"
                return report
            }
            guard stored.contains(copy.jws) else {
                report.failure = "checkpoint \(copy.id) (event \(copy.eventID)), in the kept copies, is missing from the database"
                return report
            }
        }
        let signed = checkpoints.compactMap(Signed.init)
        if let failure = Self.checkStarts(signed, state: state) {
            report.failure = failure
            return report
        }
        var walker = AuditChain.Walker(state: state, firstPosition: signed.last { $0.firstPosition != nil }?.firstPosition)
        var hashes: [Int64: [UInt8]] = [:]
        let wanted = Set(checkpoints.map(\.eventID))
        var firstKeptAt: Date?
        var after: Int64 = 0
        walk: while true {
            let page = try await store.chainedEvents(after: after, limit: Self.pageSize)
            for event in page {
                if firstKeptAt == nil { firstKeptAt = Date(timeIntervalSince1970: Double(event.atMilliseconds) / 1000) }
                if let found = walker.feed(event) {
                    report.failure = found.description
                    break walk
                }
                if wanted.contains(event.id) { hashes[event.id] = event.hash }
                after = event.position
            }
            if page.count < Self.pageSize {
                if let found = walker.finish() { report.failure = found.description }
                break
            }
        }
        report.events = walker.checked
        report.unchained = walker.unchained
        guard report.failure == nil else { return report }
        for checkpoint in checkpoints {
            if let failure = checkEvent(checkpoint, stored: hashes[checkpoint.eventID], retainedBefore: firstKeptAt ?? .distantFuture) {
                report.failure = "checkpoint \(checkpoint.id) (event \(checkpoint.eventID)): \(failure)"
                return report
            }
        }
        return report
    }

    /// The signed starts, oldest first: each the same as the one before unless it is a
    /// retention record; the last one the chain's start now; the first chained position the
    /// same in all. Checkpoints signed before starts were signed say nothing here.
    static func checkStarts(_ signed: [Signed], state: AuditChainState) -> String? {
        var start: [UInt8]?
        var first: Int64?
        for checkpoint in signed {
            if let position = checkpoint.firstPosition {
                if let first, first != position {
                    return "checkpoint of event \(checkpoint.eventID): the first chained event's position changed (\(first) → \(position))"
                }
                first = position
            }
            guard let signedStart = checkpoint.start else { continue }
            if let start, start != signedStart, !checkpoint.retention {
                return "checkpoint of event \(checkpoint.eventID): the chain's start moved without a signed retention record"
            }
            start = signedStart
        }
        if let start, start != state.startHash {
            return "the chain's start moved after the last signed checkpoint, and no signed retention record explains it"
        }
        return nil
    }

    /// The checkpoint's signature, with the signing key it names, and its row against what was
    /// signed.
    func checkSignature(_ checkpoint: AuditCheckpoint, keys: [SigningKeys.Key]) -> String? {
        guard let jws = try? JWS(compact: checkpoint.jws), case .string(let kid)? = jws.header["kid"],
              let key = keys.first(where: { $0.record.keyID == kid })
        else { return "its signature names no signing key this server has" }
        guard (try? jws.verify(with: key.privateKey.publicKey, policy: JWSPolicy(algorithms: [Self.algorithm]))) != nil else {
            return "its signature does not verify"
        }
        guard let signed = Signed(payload: jws.payload), signed.eventID == checkpoint.eventID, signed.hash == checkpoint.hash
        else { return "its row differs from what was signed" }
        return nil
    }

    /// `stored`: the hash the signed event has now, nil when it is not in the chain; that is
    /// right only for a checkpoint older than every event kept (retention removed its event).
    func checkEvent(_ checkpoint: AuditCheckpoint, stored: [UInt8]?, retainedBefore: Date) -> String? {
        guard let stored else { return checkpoint.at < retainedBefore ? nil : "the event it signed is gone" }
        guard stored == checkpoint.hash else { return "the event it signed has another hash now" }
        return nil
    }

    /// `GET /admin/api/events/checkpoints`: every checkpoint, for an operator to keep elsewhere.
    public func list() async throws -> JSONValue {
        .object(["checkpoints": .array(try await store.checkpoints().map(\.object))])
    }
}
