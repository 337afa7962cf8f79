public import Foundation
public import PasskeyJSON
public import PasskeyStorage
internal import PasskeyCrypto
internal import PasskeyJOSE

/// The tamper-evident audit trail's use cases (accounts.md): signed checkpoints of the chain's
/// head, made every `--audit-checkpoint-interval` with the OpenID provider's signing key, and
/// the walk of `events verify` over the chain and the checkpoints.
public struct AuditTrail: Sendable {
    let store: any PasskeyStore
    let signingKeys: SigningKeys

    /// Events read per store call while walking.
    static let pageSize = 1000
    /// Checkpoints are signed with ES256 (small, and verified with the published key set).
    static let algorithm = JWSAlgorithm.es256

    public init(store: any PasskeyStore, signingKeys: SigningKeys) {
        self.store = store
        self.signingKeys = signingKeys
    }

    /// Signs the chain's head when it moved since the last checkpoint; the checkpoint made, or
    /// nil when there was nothing new.
    @discardableResult
    public func checkpoint(now: Date) async throws -> AuditCheckpoint? {
        try await store.sealAuditChain()
        let state = try await store.auditChainState()
        guard state.headID > 0 else { return nil }
        if let last = try await store.checkpoints().last, last.eventID == state.headID { return nil }
        let key = try await signingKeys.signer(Self.algorithm, now: now)
        let claims: [String: JSONValue] = [
            "event_id": .integer(state.headID), "hash": .string(Base64URL.encode(state.headHash)),
            "at": .integer(Int64(now.timeIntervalSince1970)),
        ]
        let jws = try JWS.sign(header: ["typ": .string("audit-checkpoint"), "kid": .string(key.record.keyID)], claims: claims, key: key.privateKey, algorithm: Self.algorithm)
        let checkpoint = AuditCheckpoint(eventID: state.headID, hash: state.headHash, at: now, jws: jws)
        try await store.insertCheckpoint(checkpoint)
        return checkpoint
    }

    /// What `events verify` found.
    public struct Report: Sendable {
        public var events = 0
        public var unchained = 0
        public var checkpoints = 0
        /// The first break, in the chain or in a checkpoint; nil when everything holds.
        public var failure: String?
    }

    /// Walks every event from the chain's start and checks every checkpoint: its signature
    /// (with the signing key it names), and that the event it names, when retention kept it,
    /// still has the hash it signed.
    public func verify(now: Date) async throws -> Report {
        try await store.sealAuditChain()
        let state = try await store.auditChainState()
        var walker = AuditChain.Walker(state: state)
        var report = Report()
        var hashes: [Int64: [UInt8]] = [:]
        let checkpoints = try await store.checkpoints()
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
        let keys = try await signingKeys.keys(now: now)
        for checkpoint in checkpoints {
            report.checkpoints += 1
            if let failure = check(checkpoint, keys: keys, stored: hashes[checkpoint.eventID], retainedBefore: firstKeptAt ?? .distantFuture) {
                report.failure = "checkpoint \(checkpoint.id) (event \(checkpoint.eventID)): \(failure)"
                return report
            }
        }
        return report
    }

    /// `stored`: the hash the signed event has now, nil when it is not in the chain; that is
    /// right only for a checkpoint older than every event kept (retention removed its event).
    func check(_ checkpoint: AuditCheckpoint, keys: [SigningKeys.Key], stored: [UInt8]?, retainedBefore: Date) -> String? {
        guard let jws = try? JWS(compact: checkpoint.jws), case .string(let kid)? = jws.header["kid"],
              let key = keys.first(where: { $0.record.keyID == kid })
        else { return "its signature names no signing key this server has" }
        guard (try? jws.verify(with: key.privateKey.publicKey, policy: JWSPolicy(algorithms: [Self.algorithm]))) != nil else {
            return "its signature does not verify"
        }
        guard case .object(let claims)? = try? JSONValue(parsing: jws.payload),
              claims["event_id"] == .integer(checkpoint.eventID), claims["hash"] == .string(Base64URL.encode(checkpoint.hash))
        else { return "its row differs from what was signed" }
        guard let stored else { return checkpoint.at < retainedBefore ? nil : "the event it signed is gone" }
        guard stored == checkpoint.hash else { return "the event it signed has another hash now" }
        return nil
    }

    /// `GET /admin/api/events/checkpoints`: every checkpoint, for an operator to keep elsewhere.
    public func list() async throws -> JSONValue {
        .object(["checkpoints": .array(try await store.checkpoints().map { c in
            .object([
                "id": .integer(c.id), "event_id": .integer(c.eventID), "hash": .string(Base64URL.encode(c.hash)),
                "at": .string(PasskeySignIn.timestamp(c.at)), "jws": .string(c.jws),
            ])
        })])
    }
}
