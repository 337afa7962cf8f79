public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// `AuditStore` on PostgreSQL.
extension PostgresPasskeyStore {
    public func events(userHandle: [UInt8], before: Int64?, limit: Int) async throws -> [AuditEvent] {
        let handle = ByteBuffer(bytes: userHandle)
        let before = before ?? Int64.max
        let limit = Int64(max(0, limit))
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT \(unescaped: EventRow.columns) FROM events WHERE user_handle = \(handle) AND id < \(before)
                    ORDER BY id DESC LIMIT \(limit)
                    """, logger: Self.quiet),
                EventRow.record)
        }
    }

    public func events(userHandle: [UInt8]?, since: Date?, after: Int64?, limit: Int) async throws -> [AuditEvent] {
        let handle = userHandle.map { ByteBuffer(bytes: $0) }
        let since = try (since ?? Date(timeIntervalSince1970: 0)).storeMilliseconds()
        let after = after ?? 0
        let limit = Int64(max(0, limit))
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT \(unescaped: EventRow.columns) FROM events
                    WHERE (\(handle)::bytea IS NULL OR user_handle = \(handle)) AND at >= \(since) AND id > \(after)
                    ORDER BY id LIMIT \(limit)
                    """, logger: Self.quiet),
                EventRow.record)
        }
    }

    public func deleteEvents(olderThan cutoff: Date) async throws -> Int {
        let cutoff = try cutoff.storeMilliseconds()
        // What is written by now joins the chain first, so that retention sees all of it.
        try await sealAuditChain()
        return try await transaction { db in
            // A whole prefix of the chain, under its lock: the sealed events before the first
            // sealed one that is not older than the cutoff; the chain then starts at the last
            // deleted one's hash. Events not sealed yet wait for a later sweep.
            try await db.query("SELECT 1 FROM audit_chain WHERE id = 1 FOR UPDATE", logger: Self.quiet)
            guard let last = try await Self.first(
                db.query(
                    """
                    SELECT chain_seq, hash FROM events
                    WHERE chain_seq < coalesce(
                        (SELECT min(chain_seq) FROM events WHERE at >= \(cutoff) AND chain_seq IS NOT NULL), 9223372036854775807)
                    ORDER BY chain_seq DESC LIMIT 1
                    """, logger: Self.quiet),
                { row -> (Int64, ByteBuffer?) in (try row[0].decode(Int64.self), try row[1].decode(ByteBuffer?.self)) })
            else { return 0 }
            let deleted = try await Self.count(db.query("DELETE FROM events WHERE chain_seq <= \(last.0) RETURNING 1", logger: Self.quiet))
            if let hash = last.1 {
                try await db.query("UPDATE audit_chain SET start_hash = \(hash) WHERE id = 1", logger: Self.quiet)
            }
            return deleted
        }
    }

    /// Links the events not in the audit chain yet, in the order of their ids, after the
    /// chain's head: each gets its place (`chain_seq`), `prev_hash` and `hash`, and the head
    /// moves, in one transaction under the head's lock (so instances seal one after another).
    /// An event that commits later with a smaller id simply takes a later place. Answers how
    /// many were sealed.
    /// Nothing to seal, the usual case between bursts, costs one read of the unsealed events'
    /// partial index: no lock on the head row and no commit.
    @discardableResult
    public func sealAuditChain() async throws -> Int {
        guard try await hasUnsealedEvents() else { return 0 }
        var total = 0
        while true {
            let sealed = try await transaction { db -> Int in
                guard let head = try await Self.first(
                    db.query("SELECT head_hash, head_seq FROM audit_chain WHERE id = 1 FOR UPDATE", logger: Self.quiet),
                    { row -> ([UInt8], Int64) in
                        var c = Cursor(row)
                        return (try c.bytes(), try c.next())
                    })
                else { return 0 }
                let pending = try await Self.all(
                    db.query(
                        """
                        SELECT id, user_handle, type, at, ip, user_agent, details FROM events
                        WHERE chain_seq IS NULL ORDER BY id LIMIT \(Self.sealBatch)
                        """, logger: Self.quiet)
                ) { row -> ChainedEvent in
                    var c = Cursor(row)
                    return ChainedEvent(
                        id: try c.next(), userHandle: try c.bytes(), type: try c.next(), atMilliseconds: try c.next(), ip: try c.next(),
                        userAgent: try c.next(), details: try c.next(), prevHash: nil, hash: nil)
                }
                guard !pending.isEmpty else { return 0 }
                var previous = head.0
                var ids: [Int64] = [], prevs: [ByteBuffer] = [], hashes: [ByteBuffer] = [], seqs: [Int64] = []
                for (offset, event) in pending.enumerated() {
                    let details = (try? EventDetails.decode(event.details)) ?? ["unreadable_details": event.details]
                    let hash = AuditChain.link(
                        previous: previous,
                        canonical: AuditChain.canonical(
                            userHandle: event.userHandle, type: event.type, atMilliseconds: event.atMilliseconds, ip: event.ip,
                            userAgent: event.userAgent, details: details))
                    ids.append(event.id)
                    prevs.append(ByteBuffer(bytes: previous))
                    hashes.append(ByteBuffer(bytes: hash))
                    seqs.append(head.1 + Int64(offset) + 1)
                    previous = hash
                }
                try await db.query(
                    """
                    UPDATE events AS e SET prev_hash = v.prev_hash, hash = v.hash, chain_seq = v.chain_seq
                    FROM unnest(\(ids)::bigint[], \(prevs)::bytea[], \(hashes)::bytea[], \(seqs)::bigint[]) AS v(id, prev_hash, hash, chain_seq)
                    WHERE e.id = v.id
                    """, logger: Self.quiet)
                let lastHash = ByteBuffer(bytes: previous)
                try await db.query(
                    "UPDATE audit_chain SET head_id = \(ids[ids.count - 1]), head_hash = \(lastHash), head_seq = \(seqs[seqs.count - 1]) WHERE id = 1",
                    logger: Self.quiet)
                return pending.count
            }
            total += sealed
            if sealed < Self.sealBatch { return total }
        }
    }

    func hasUnsealedEvents() async throws -> Bool {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT EXISTS (SELECT 1 FROM events WHERE chain_seq IS NULL)", logger: Self.quiet)
            ) { try $0.decode(Bool.self) } ?? false
        }
    }

    public func auditChainState() async throws -> AuditChainState {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT start_hash, head_id, head_hash FROM audit_chain WHERE id = 1", logger: Self.quiet)
            ) { row in
                var c = Cursor(row)
                return AuditChainState(startHash: try c.bytes(), headID: try c.next(), headHash: try c.bytes())
            } ?? AuditChainState(startHash: AuditChain.genesis, headID: 0, headHash: AuditChain.genesis)
        }
    }

    public func chainedEvents(after: Int64, limit: Int) async throws -> [ChainedEvent] {
        let limit = Int64(max(0, limit))
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT id, user_handle, type, at, ip, user_agent, details, prev_hash, hash, chain_seq FROM events
                    WHERE chain_seq > \(after) ORDER BY chain_seq LIMIT \(limit)
                    """, logger: Self.quiet)
            ) { row in
                var c = Cursor(row)
                var event = ChainedEvent(
                    id: try c.next(), userHandle: try c.bytes(), type: try c.next(), atMilliseconds: try c.next(), ip: try c.next(),
                    userAgent: try c.next(), details: try c.next(), prevHash: try c.optionalBytes(), hash: try c.optionalBytes())
                event.position = try c.next()
                return event
            }
        }
    }

    public func insertCheckpoint(_ checkpoint: AuditCheckpoint) async throws {
        let hash = ByteBuffer(bytes: checkpoint.hash)
        let at = try checkpoint.at.storeMilliseconds()
        try await write { db in
            try await db.query(
                "INSERT INTO audit_checkpoints (event_id, hash, at, jws) VALUES (\(checkpoint.eventID), \(hash), \(at), \(checkpoint.jws))",
                logger: Self.quiet)
        }
    }

    public func checkpoints() async throws -> [AuditCheckpoint] {
        try await withConnection { db in
            try await Self.all(db.query("SELECT id, event_id, hash, at, jws FROM audit_checkpoints ORDER BY id", logger: Self.quiet)) { row in
                var c = Cursor(row)
                return AuditCheckpoint(id: try c.next(), eventID: try c.next(), hash: try c.bytes(), at: try c.date(), jws: try c.next())
            }
        }
    }
}
