public import Foundation

/// The audit trail: the events, and the hash chain and checkpoints that make it tamper-evident.
/// A slice of the store's contract (`PasskeyStore`): both engines keep it, in the same
/// transactions, durable when a call returns.
public protocol AuditStore: Sendable {
    // MARK: Audit events

    /// The account's events with an id below `before` (all when nil), newest first, at most `limit`.
    func events(userHandle: [UInt8], before: Int64?, limit: Int) async throws -> [AuditEvent]

    /// Events for operators, oldest first: of one account or of all, from `since` on, after the
    /// event `after` (for paging), at most `limit`.
    func events(userHandle: [UInt8]?, since: Date?, after: Int64?, limit: Int) async throws -> [AuditEvent]

    /// Deletes events older than `cutoff` (retention), as a whole prefix of the chain: every
    /// event before the first one that is not older than `cutoff` (an older event after that one
    /// waits for a later sweep); the chain then starts at the hash of the last one deleted.
    /// Returns how many.
    func deleteEvents(olderThan cutoff: Date) async throws -> Int

    // MARK: The audit chain (docs/contracts/accounts.md, "A tamper-evident audit trail")

    /// The chain's head row: where it starts, its last event and hash.
    func auditChainState() async throws -> AuditChainState
    /// Events in the chain after the place `after`, in the chain's order, at most `limit`, as
    /// stored (hashes included). On PostgreSQL, events not sealed yet are not listed.
    func chainedEvents(after: Int64, limit: Int) async throws -> [ChainedEvent]
    /// Links the events that are not in the chain yet and answers how many: PostgreSQL seals
    /// after the commit (the server does it every second); SQLite links in the write, and has
    /// none to seal.
    @discardableResult
    func sealAuditChain() async throws -> Int
    /// Keeps a signed checkpoint.
    func insertCheckpoint(_ checkpoint: AuditCheckpoint) async throws
    /// Every checkpoint, oldest first.
    func checkpoints() async throws -> [AuditCheckpoint]
}
