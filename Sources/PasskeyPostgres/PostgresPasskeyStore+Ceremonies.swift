public import Foundation
internal import NIOCore
public import PasskeyStorage
internal import PostgresNIO

/// Ceremonies: a registration's stored at initialize, a sign-in's sealed in its challenge; each
/// spent once at finalize together with what the ceremony writes.
extension PostgresPasskeyStore {
    enum InsertCeremonySQL: PreparedSQL {
        static let name = "passkey_insert_ceremony"
        static let sql = """
            INSERT INTO ceremonies (\(CeremonyRow.columns))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
            """
        static let types: [PostgresDataType] = [
            .bytea, .text, .bytea, .text, .text, .bool, .text, .byteaArray, .int8Array, .int8, .int8, .bool, .text, .bytea, .bytea,
        ]
    }

    enum AuthenticationContextSQL: PreparedSQL {
        static let name = "passkey_authentication_context"
        static let sql = """
            SELECT \(CredentialRow.columns(of: "c")), u.disabled
            FROM credentials AS c JOIN users AS u ON u.handle = c.user_handle
            WHERE c.id = $1
            """
        static let types: [PostgresDataType] = [.bytea]
    }

    /// `completeAuthentication`'s statement. $1 the challenge's spent key, $33 its expiry, $2
    /// now, $3 the new count, $4 backup state, $5 user verified, $6 the credential; $7–$17 the
    /// session's columns, $18 renewing (a step-up whose session is gone records no sign-in, and
    /// the third column says so; a step-up's $11 is the passkey that now stands for the session,
    /// or null to keep its own); $19–$25 the sign-in event (present, user, type, at, ip, user
    /// agent, details) and $26–$32 the regression event, alike. The fourth column says whether
    /// the passkey is still there (deleted since it was read: no regression, and the spent
    /// challenge stands).
    enum CompleteAuthenticationSQL: PreparedSQL {
        static let name = "passkey_complete_authentication"
        static let sql = """
            WITH spent AS (
                INSERT INTO spent_ids (key_hash, expires_at) VALUES ($1, $33)
                ON CONFLICT (key_hash) DO UPDATE SET expires_at = excluded.expires_at WHERE spent_ids.expires_at <= $2
                RETURNING 1
            ), present AS (
                SELECT 1 FROM credentials WHERE id = $6
            ), applied AS (
                UPDATE credentials AS c
                SET sign_count = $3, backup_state = $4, uv_initialized = c.uv_initialized OR $5, last_used_at = $2
                FROM users AS u
                WHERE c.id = $6 AND u.handle = c.user_handle AND EXISTS (SELECT 1 FROM spent)
                  AND ((c.sign_count = 0 AND $3 = 0) OR $3 > c.sign_count)
                RETURNING u.name
            ), cloned AS (
                UPDATE credentials SET possibly_cloned = true
                WHERE id = $6 AND EXISTS (SELECT 1 FROM spent) AND NOT EXISTS (SELECT 1 FROM applied)
            ), opened AS (
                INSERT INTO sessions (\(SessionRow.columns))
                SELECT $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17
                WHERE NOT $18 AND EXISTS (SELECT 1 FROM applied)
            ), renewed AS (
                UPDATE sessions SET auth_time = $17, user_verified = $13, credential_id = COALESCE($11, credential_id)
                WHERE $18 AND token_hash = $7 AND user_handle = $8 AND expires_at > $2
                  AND EXISTS (SELECT 1 FROM applied)
                RETURNING 1
            ), signed_in AS (
                INSERT INTO events (user_handle, type, at, ip, user_agent, details)
                SELECT $20, $21, $22, $23, $24, $25
                WHERE $19 AND EXISTS (SELECT 1 FROM applied) AND (NOT $18 OR EXISTS (SELECT 1 FROM renewed))
            ), regressed AS (
                INSERT INTO events (user_handle, type, at, ip, user_agent, details)
                SELECT $27, $28, $29, $30, $31, $32
                WHERE $26 AND EXISTS (SELECT 1 FROM spent) AND NOT EXISTS (SELECT 1 FROM applied)
                  AND EXISTS (SELECT 1 FROM present)
            )
            SELECT EXISTS (SELECT 1 FROM spent), (SELECT name FROM applied), NOT $18 OR EXISTS (SELECT 1 FROM renewed),
                EXISTS (SELECT 1 FROM present)
            """
        static let types: [PostgresDataType] =
            [.bytea, .int8, .int8, .bool, .bool, .bytea]
            + [.bytea, .bytea, .int8, .int8, .bytea, .text, .bool, .text, .text, .int8, .int8, .bool]
            + [.bool, .bytea, .text, .int8, .text, .text, .text]
            + [.bool, .bytea, .text, .int8, .text, .text, .text]
            + [.int8]
    }

}

/// `CeremonyStore` on PostgreSQL.
extension PostgresPasskeyStore {
    // MARK: Ceremonies

    /// A prepared statement: every initialize stores one.
    public func insertCeremony(_ c: CeremonyRecord) async throws {
        let row = try CeremonyRow(c)
        var binds = PostgresBindings(capacity: InsertCeremonySQL.types.count)
        binds.append(row.challenge)
        binds.append(row.kind)
        binds.append(row.userHandle)
        binds.append(row.userName)
        binds.append(row.displayName)
        binds.append(row.isNewUser)
        binds.append(row.userVerification)
        binds.append(row.allowCredentialIDs)
        binds.append(row.algorithms)
        binds.append(row.createdAt)
        binds.append(row.expiresAt)
        binds.append(row.conditional)
        binds.append(row.residentKey)
        binds.append(row.sessionHash)
        binds.append(row.invitationHash)
        let statement = Prepared<InsertCeremonySQL>(binds)
        try await write { db in
            _ = try await db.execute(statement, logger: Self.quiet)
        }
    }

    public func ceremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord? {
        let challenge = ByteBuffer(bytes: challenge)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT \(unescaped: CeremonyRow.columns) FROM ceremonies
                    WHERE challenge = \(challenge) AND kind = \(kind.rawValue) AND expires_at > \(now)
                    """, logger: Self.quiet),
                CeremonyRow.record)
        }
    }

    /// One prepared statement (one round trip, parsed and planned once per connection): the
    /// credential and its owner's flag.
    public func authenticationContext(credentialID: [UInt8]) async throws -> AuthenticationContext {
        var binds = PostgresBindings(capacity: 1)
        binds.append(ByteBuffer(bytes: credentialID))
        let statement = Prepared<AuthenticationContextSQL>(binds)
        return try await withConnection { db in
            try await Self.first(db.execute(statement, logger: Self.quiet)) { row in
                AuthenticationContext(
                    credential: try CredentialRow.record(row, from: 0),
                    ownerDisabled: try row[CredentialRow.columnCount].decode(Bool.self))
            } ?? AuthenticationContext(credential: nil, ownerDisabled: false)
        }
    }

    public func consumeCeremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord? {
        let challenge = ByteBuffer(bytes: challenge)
        let now = try now.storeMilliseconds()
        return try await write { db in
            try await Self.consume(db, challenge, kind, now)
        }
    }

    static func consume(_ db: PostgresConnection, _ challenge: ByteBuffer, _ kind: CeremonyKind, _ now: Int64) async throws -> CeremonyRecord? {
        try await first(
            db.query(
                """
                DELETE FROM ceremonies WHERE challenge = \(challenge) AND kind = \(kind.rawValue) AND expires_at > \(now)
                RETURNING \(unescaped: CeremonyRow.columns)
                """, logger: quiet),
            CeremonyRow.record)
    }

    @discardableResult
    public func spendCeremony(challenge: [UInt8], kind: CeremonyKind) async throws -> Bool {
        let challenge = ByteBuffer(bytes: challenge)
        return try await write { db in
            try await Self.count(db.query(
                "DELETE FROM ceremonies WHERE challenge = \(challenge) AND kind = \(kind.rawValue) RETURNING 1", logger: Self.quiet)) == 1
        }
    }

    @discardableResult
    public func spendChallenge(
        keyHash: [UInt8], expiresAt: Date, now: Date, markCloned credentialID: [UInt8]?, event: AuditEvent?
    ) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        let key = ByteBuffer(bytes: keyHash)
        let expiry = try expiresAt.storeMilliseconds()
        let at = try now.storeMilliseconds()
        let cloned = credentialID.map { ByteBuffer(bytes: $0) }
        return try await transaction { db in
            // Spent before (a replayed response): nothing changes.
            guard try await Self.spend(db, key, expiry, at) else { return false }
            if let cloned {
                try await db.query("UPDATE credentials SET possibly_cloned = true WHERE id = \(cloned)", logger: Self.quiet)
            }
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func completeRegistration(
        challenge: [UInt8], now: Date, credential: CredentialRecord, newUser: UserRecord?, session: SessionRecord,
        invitation: [UInt8]?, endingOtherSessions: Bool, event: AuditEvent?
    ) async throws -> RegistrationOutcome {
        let eventRow = try event.map(EventRow.init)
        let invitation = invitation.map { ByteBuffer(bytes: $0) }
        let owner = ByteBuffer(bytes: credential.userHandle)
        let challenge = ByteBuffer(bytes: challenge)
        let now = try now.storeMilliseconds()
        let credentialRow = try CredentialRow(credential)
        let userRow = try newUser.map(UserRow.init)
        let sessionRow = try SessionRow(session)
        return try await transaction { db in
            guard try await Self.consume(db, challenge, .registration, now) != nil else { return .ceremonyGone }
            var groups: [InvitationGroup] = []
            if let invitation {
                guard let named = try await Self.spendInvitation(db, invitation, now: now) else { return .invitationGone }
                groups = named
            }
            if let conflict = try await Self.insertAccount(db, credentialRow, userRow) { return conflict }
            try await Self.addMemberships(db, userHandle: owner, groups)
            if endingOtherSessions { _ = try await Self.revokeAccess(db, userHandle: owner) }
            try await Self.insert(db, sessionRow)
            try await Self.insert(db, eventRow)
            return .registered
        }
    }

    public func completeAuthentication(
        spending keyHash: [UInt8], until expiresAt: Date, now: Date, credentialID: [UInt8], signCount: UInt32,
        backupState: Bool, userVerified: Bool, session: SessionRecord, renewing: Bool, signedIn: AuditEvent?,
        regression: AuditEvent?
    ) async throws -> AuthenticationOutcome {
        let signedInRow = try signedIn.map(EventRow.init)
        let regressionRow = try regression.map(EventRow.init)
        let key = ByteBuffer(bytes: keyHash)
        let expiry = try expiresAt.storeMilliseconds()
        let at = try now.storeMilliseconds()
        let id = ByteBuffer(bytes: credentialID)
        let count = Int64(signCount)
        let sessionRow = try SessionRow(session)
        // One statement, so one round trip and its own transaction: spend the challenge; when it
        // was not spent before, compare-and-set the counter (§7.2 step 25); when that applied,
        // open the session and record the sign-in, else mark the credential possibly cloned and
        // record the regression. Each step sees the previous one only through its RETURNING rows; the
        // two UPDATEs of the credential exclude each other (NOT EXISTS applied). Six round trips
        // (BEGIN … COMMIT) before, the most expensive part of a finalize on PostgreSQL.
        // A prepared statement: parsed and planned once per connection.
        let s = sessionRow
        let e = try signedInRow ?? EventRow.placeholder()
        let r = try regressionRow ?? EventRow.placeholder()
        var binds = PostgresBindings(capacity: CompleteAuthenticationSQL.types.count)
        binds.append(key)
        binds.append(at)
        binds.append(count)
        binds.append(backupState)
        binds.append(userVerified)
        binds.append(id)
        binds.append(s.tokenHash)
        binds.append(s.userHandle)
        binds.append(s.createdAt)
        binds.append(s.expiresAt)
        binds.append(s.credentialID)
        binds.append(s.via)
        binds.append(s.userVerified)
        binds.append(s.ip)
        binds.append(s.userAgent)
        binds.append(s.lastSeenAt)
        binds.append(s.verifiedAt)
        binds.append(renewing)
        for (present, event) in [(signedInRow != nil, e), (regressionRow != nil, r)] {
            binds.append(present)
            binds.append(event.userHandle)
            binds.append(event.type)
            binds.append(event.at)
            binds.append(event.ip)
            binds.append(event.userAgent)
            binds.append(event.details)
        }
        binds.append(expiry)
        let statement = Prepared<CompleteAuthenticationSQL>(binds)
        return try await write { db in
            let rows = try await db.execute(statement, logger: Self.quiet)
            let answer = try await Self.first(rows) { row -> (Bool, String?, Bool, Bool) in
                (try row[0].decode(Bool.self), try row[1].decode(String?.self), try row[2].decode(Bool.self), try row[3].decode(Bool.self))
            }
            guard let (spent, name, sessionStands, present) = answer else {
                throw StoreError.database("the finalize statement returned no row")
            }
            guard spent, present else { return .ceremonyGone }
            guard let name else { return .counterRegression }
            guard sessionStands else { return .sessionGone }
            return .signedIn(userName: name)
        }
    }

    /// The compare-and-set of WebAuthn §7.2 step 25 in one statement; the account's name when it
    /// applied, nil when the counter did not rise (or there is no such credential).
    static func applyAssertion(
        _ db: PostgresConnection, _ id: ByteBuffer, _ count: Int64, _ backupState: Bool, _ userVerified: Bool, _ at: Int64
    ) async throws -> String? {
        try await first(
            db.query(
                """
                UPDATE credentials AS c
                SET sign_count = \(count), backup_state = \(backupState),
                    uv_initialized = c.uv_initialized OR \(userVerified), last_used_at = \(at)
                FROM users AS u
                WHERE c.id = \(id) AND u.handle = c.user_handle
                  AND ((c.sign_count = 0 AND \(count) = 0) OR \(count) > c.sign_count)
                RETURNING u.name
                """, logger: quiet)
        ) { try $0.decode(String.self) }
    }
}
