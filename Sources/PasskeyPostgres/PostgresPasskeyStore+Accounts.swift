public import Foundation
public import PasskeyStorage
internal import NIOCore
internal import PostgresNIO

/// Users, their credentials and sessions, and the audit trail.
extension PostgresPasskeyStore {
    // MARK: Users

    public func user(nameKey: String) async throws -> UserRecord? {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: UserRow.selectColumns) FROM users WHERE name_key = \(nameKey)", logger: Self.quiet),
                UserRow.record)
        }
    }

    public func user(handle: [UInt8]) async throws -> UserRecord? {
        let handle = ByteBuffer(bytes: handle)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: UserRow.selectColumns) FROM users WHERE handle = \(handle)", logger: Self.quiet),
                UserRow.record)
        }
    }

    public func deleteUser(handle: [UInt8]) async throws -> Bool {
        let handle = ByteBuffer(bytes: handle)
        return try await write { db in
            try await Self.count(db.query("DELETE FROM users WHERE handle = \(handle) RETURNING 1", logger: Self.quiet)) == 1
        }
    }

    // MARK: Credentials

    public func registerCredential(_ credential: CredentialRecord, newUser: UserRecord?) async throws {
        let credentialRow = try CredentialRow(credential)
        let userRow = try newUser.map(UserRow.init)
        try await transaction { db in
            switch try await Self.insertAccount(db, credentialRow, userRow) {
            case .userExists: throw StoreError(code: .userExists, reason: "users.name_key is taken")
            case .credentialExists: throw StoreError(code: .credentialExists, reason: "credentials.id is registered")
            default: return
            }
        }
    }

    /// One transaction of multi-row inserts, as many rows per statement as PostgreSQL's 65 535
    /// parameters allow; a conflict anywhere rolls the whole batch back (`.database`).
    public func loadAccounts(_ accounts: [NewAccount]) async throws {
        let users = try accounts.map { try UserRow($0.user) }
        let credentials = try accounts.flatMap { try $0.credentials.map(CredentialRow.init) }
        try await transaction { db in
            try await Self.insertAll(db, into: "users", columns: UserRow.columns, count: 5, users) { u, binds in
                binds.append(u.handle)
                binds.append(u.name)
                binds.append(u.nameKey)
                binds.append(u.displayName)
                binds.append(u.createdAt)
            }
            try await Self.insertAll(db, into: "credentials", columns: CredentialRow.columns, count: 20, credentials) { c, binds in
                binds.append(c.id)
                binds.append(c.userHandle)
                binds.append(c.publicKey)
                binds.append(c.algorithm)
                binds.append(c.signCount)
                binds.append(c.transports)
                binds.append(c.backupEligible)
                binds.append(c.backupState)
                binds.append(c.uvInitialized)
                binds.append(c.aaguid)
                binds.append(c.attestationFormat)
                binds.append(c.attestationType)
                binds.append(c.attestationTrusted)
                binds.append(c.authenticatorName)
                binds.append(c.name)
                binds.append(c.createdAt)
                binds.append(c.lastUsedAt)
                binds.append(c.possiblyCloned)
                binds.append(c.discoverable)
                binds.append(c.prfEnabled)
            }
        }
    }

    /// Inserts `rows` into `table` with multi-row statements, `bind` appending each row's `count`
    /// values in the order of `columns`.
    static func insertAll<Row>(
        _ db: PostgresConnection, into table: String, columns: String, count: Int, _ rows: [Row],
        bind: (Row, inout PostgresBindings) -> Void
    ) async throws {
        for chunk in chunks(rows, columns: count) {
            var binds = PostgresBindings(capacity: chunk.count * count)
            for row in chunk { bind(row, &binds) }
            let sql = "INSERT INTO \(table) (\(columns)) VALUES " + placeholders(rows: chunk.count, columns: count)
            try await db.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: quiet)
        }
    }

    /// `rows` in slices that keep a statement's parameters within PostgreSQL's limit (65 535).
    static func chunks<Row>(_ rows: [Row], columns: Int) -> [ArraySlice<Row>] {
        let size = max(1, 65_535 / columns)
        return stride(from: 0, to: rows.count, by: size).map { rows[$0..<min($0 + size, rows.count)] }
    }

    /// "($1, $2), ($3, $4)" for 2 rows of 2 columns.
    static func placeholders(rows: Int, columns: Int) -> String {
        var sql = ""
        sql.reserveCapacity(rows * columns * 7)
        for row in 0..<rows {
            sql += row == 0 ? "(" : ", ("
            for column in 0..<columns {
                if column > 0 { sql += ", " }
                sql += "$\(row * columns + column + 1)"
            }
            sql += ")"
        }
        return sql
    }

    /// Inserts the user (when new) and the credential in a savepoint of their own: on a conflict
    /// both are undone (nothing else the caller did) and the conflict returned.
    static func insertAccount(_ db: PostgresConnection, _ credential: CredentialRow, _ user: UserRow?) async throws -> RegistrationOutcome? {
        try await db.query("SAVEPOINT account", logger: quiet)
        if let user {
            let inserted = try await count(db.query(
                """
                INSERT INTO users (\(unescaped: UserRow.columns))
                VALUES (\(user.handle), \(user.name), \(user.nameKey), \(user.displayName), \(user.createdAt))
                ON CONFLICT (name_key) DO NOTHING RETURNING 1
                """, logger: quiet))
            if inserted == 0 {
                try await db.query("ROLLBACK TO SAVEPOINT account", logger: quiet)
                return .userExists
            }
        }
        let c = credential
        let inserted = try await count(db.query(
            """
            INSERT INTO credentials (\(unescaped: CredentialRow.columns)) VALUES (
            \(c.id), \(c.userHandle), \(c.publicKey), \(c.algorithm), \(c.signCount), \(c.transports),
            \(c.backupEligible), \(c.backupState), \(c.uvInitialized), \(c.aaguid), \(c.attestationFormat),
            \(c.attestationType), \(c.attestationTrusted), \(c.authenticatorName), \(c.name), \(c.createdAt),
            \(c.lastUsedAt), \(c.possiblyCloned), \(c.discoverable), \(c.prfEnabled))
            ON CONFLICT (id) DO NOTHING RETURNING 1
            """, logger: quiet))
        if inserted == 0 {
            try await db.query("ROLLBACK TO SAVEPOINT account", logger: quiet)
            return .credentialExists
        }
        try await db.query("RELEASE SAVEPOINT account", logger: quiet)
        return nil
    }

    public func credential(id: [UInt8]) async throws -> CredentialRecord? {
        let id = ByteBuffer(bytes: id)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: CredentialRow.columns) FROM credentials WHERE id = \(id)", logger: Self.quiet),
                CredentialRow.record)
        }
    }

    public func credentials(userHandle: [UInt8]) async throws -> [CredentialRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT \(unescaped: CredentialRow.columns) FROM credentials WHERE user_handle = \(handle)
                    ORDER BY created_at, seq
                    """, logger: Self.quiet),
                CredentialRow.record)
        }
    }

    public func recordAssertion(
        credentialID: [UInt8], signCount: UInt32, backupState: Bool, uvInitialized: Bool, at: Date
    ) async throws -> Bool {
        let id = ByteBuffer(bytes: credentialID)
        let at = try at.storeMilliseconds()
        return try await write { db in
            try await Self.applyAssertion(db, id, Int64(signCount), backupState, uvInitialized, at) != nil
        }
    }

    public func markPossiblyCloned(credentialID: [UInt8]) async throws {
        let id = ByteBuffer(bytes: credentialID)
        try await write { db in
            try await db.query("UPDATE credentials SET possibly_cloned = true WHERE id = \(id)", logger: Self.quiet)
        }
    }

    public func renameCredential(id: [UInt8], userHandle: [UInt8], name: String, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        let id = ByteBuffer(bytes: id)
        let handle = ByteBuffer(bytes: userHandle)
        return try await transaction { db in
            guard try await Self.count(db.query(
                "UPDATE credentials SET name = \(name) WHERE id = \(id) AND user_handle = \(handle) RETURNING 1",
                logger: Self.quiet)) == 1
            else { return false }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func updateDisplayName(userHandle: [UInt8], displayName: String, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        let handle = ByteBuffer(bytes: userHandle)
        let at = try (event?.at ?? Date()).storeMilliseconds()
        return try await transaction { db in
            guard try await Self.count(db.query(
                "UPDATE users SET display_name = \(displayName), updated_at = \(at) WHERE handle = \(handle) RETURNING 1", logger: Self.quiet)) == 1
            else { return false }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func deleteCredential(id: [UInt8], userHandle: [UInt8], event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        let id = ByteBuffer(bytes: id)
        let handle = ByteBuffer(bytes: userHandle)
        return try await transaction { db in
            guard try await Self.count(db.query(
                "DELETE FROM credentials WHERE id = \(id) AND user_handle = \(handle) RETURNING 1", logger: Self.quiet)) == 1
            else { return false }
            try await db.query(
                "DELETE FROM sessions WHERE credential_id = \(id) AND user_handle = \(handle)", logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return true
        }
    }

    // MARK: Sessions

    public func insertSession(_ s: SessionRecord) async throws {
        let row = try SessionRow(s)
        try await write { db in try await Self.insert(db, row) }
    }

    static func insert(_ db: PostgresConnection, _ s: SessionRow) async throws {
        try await db.query(
            """
            INSERT INTO sessions (\(unescaped: SessionRow.columns))
            VALUES (\(s.tokenHash), \(s.userHandle), \(s.createdAt), \(s.expiresAt), \(s.credentialID), \(s.via), \(s.userVerified),
                \(s.ip), \(s.userAgent), \(s.lastSeenAt), \(s.authTime))
            """, logger: quiet)
    }

    public func session(tokenHash: [UInt8], now: Date) async throws -> SessionRecord? {
        let hash = ByteBuffer(bytes: tokenHash)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    "SELECT \(unescaped: SessionRow.columns) FROM sessions WHERE token_hash = \(hash) AND expires_at > \(now)",
                    logger: Self.quiet),
                SessionRow.record)
        }
    }

    public func signedIn(tokenHash: [UInt8], now: Date) async throws -> (session: SessionRecord, user: UserRecord)? {
        let hash = ByteBuffer(bytes: tokenHash)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT \(unescaped: Self.signedInColumns) FROM sessions s JOIN users u ON u.handle = s.user_handle \
                    WHERE s.token_hash = \(hash) AND s.expires_at > \(now)
                    """,
                    logger: Self.quiet),
                { row in (try SessionRow.record(row), try UserRow.record(row, from: SessionRow.columnCount)) })
        }
    }

    static let signedInColumns = SessionRow.columns(of: "s") + ", " + UserRow.selectColumns(of: "u")

    public func insertEvent(_ event: AuditEvent) async throws {
        let row = try EventRow(event)
        try await write { db in try await Self.insert(db, row) }
    }

    public func sessions(userHandle: [UInt8], now: Date) async throws -> [SessionRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    """
                    SELECT \(unescaped: SessionRow.columns) FROM sessions WHERE user_handle = \(handle) AND expires_at > \(now)
                    ORDER BY created_at DESC, token_hash
                    """, logger: Self.quiet),
                SessionRow.record)
        }
    }

    public func deleteSession(tokenHash: [UInt8], event: AuditEvent?) async throws {
        let eventRow = try event.map(EventRow.init)
        let hash = ByteBuffer(bytes: tokenHash)
        try await transaction { db in
            if try await Self.count(db.query("DELETE FROM sessions WHERE token_hash = \(hash) RETURNING 1", logger: Self.quiet)) == 1 {
                try await Self.insert(db, eventRow)
            }
        }
    }

    public func touchSession(tokenHash: [UInt8], at: Date) async throws {
        let hash = ByteBuffer(bytes: tokenHash)
        let at = try at.storeMilliseconds()
        try await write { db in
            try await db.query("UPDATE sessions SET last_seen_at = \(at) WHERE token_hash = \(hash)", logger: Self.quiet)
        }
    }

    @discardableResult
    public func deleteSessions(userHandle: [UInt8], event: AuditEvent?) async throws -> Int {
        let eventRow = try event.map(EventRow.init)
        let handle = ByteBuffer(bytes: userHandle)
        return try await transaction { db in
            let count = try await Self.count(db.query("DELETE FROM sessions WHERE user_handle = \(handle) RETURNING 1", logger: Self.quiet))
            try await Self.insert(db, eventRow)
            return count
        }
    }

    // MARK: Audit events

    /// Inserts an event in the caller's transaction (nothing for nil).
    /// Inserts an event in the caller's transaction (nothing for nil). It joins the audit chain
    /// when `sealAuditChain` next runs (within a second, from any instance): linking it here
    /// would lock the chain's head until this transaction's commit, and every commit of every
    /// instance would wait for the one before it.
    static func insert(_ db: PostgresConnection, _ e: EventRow?) async throws {
        guard let e else { return }
        try await db.query(
            """
            INSERT INTO events (user_handle, type, at, ip, user_agent, details)
            VALUES (\(e.userHandle), \(e.type), \(e.at), \(e.ip), \(e.userAgent), \(e.details))
            """, logger: quiet)
    }

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

    static let sealBatch = 2000

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
