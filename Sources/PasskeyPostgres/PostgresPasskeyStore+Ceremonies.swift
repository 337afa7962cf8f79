public import Foundation
public import PasskeyStorage
internal import NIOCore
internal import PostgresNIO

/// Ceremonies: stored at initialize, spent once at finalize together with what the ceremony writes.
extension PostgresPasskeyStore {
    // MARK: Ceremonies

    public func insertCeremony(_ c: CeremonyRecord) async throws {
        let row = try CeremonyRow(c)
        try await write { db in
            try await db.query(
                """
                INSERT INTO ceremonies (\(unescaped: CeremonyRow.columns)) VALUES (
                \(row.challenge), \(row.kind), \(row.userHandle), \(row.userName), \(row.displayName), \(row.isNewUser),
                \(row.userVerification), \(row.allowCredentialIDs), \(row.algorithms), \(row.createdAt), \(row.expiresAt),
                \(row.conditional), \(row.residentKey), \(row.sessionHash), \(row.invitationHash))
                """, logger: Self.quiet)
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
    public func spendCeremony(challenge: [UInt8], kind: CeremonyKind, markCloned credentialID: [UInt8]?, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        let challenge = ByteBuffer(bytes: challenge)
        let cloned = credentialID.map { ByteBuffer(bytes: $0) }
        return try await transaction { db in
            let spent = try await Self.count(db.query(
                "DELETE FROM ceremonies WHERE challenge = \(challenge) AND kind = \(kind.rawValue) RETURNING 1", logger: Self.quiet))
            if let cloned {
                try await db.query("UPDATE credentials SET possibly_cloned = true WHERE id = \(cloned)", logger: Self.quiet)
            }
            try await Self.insert(db, eventRow)
            return spent == 1
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
            if endingOtherSessions { try await db.query("DELETE FROM sessions WHERE user_handle = \(owner)", logger: Self.quiet) }
            try await Self.insert(db, sessionRow)
            try await Self.insert(db, eventRow)
            return .registered
        }
    }

    public func completeAuthentication(
        challenge: [UInt8], now: Date, credentialID: [UInt8], signCount: UInt32, backupState: Bool, userVerified: Bool,
        session: SessionRecord, renewing: Bool, signedIn: AuditEvent?, regression: AuditEvent?
    ) async throws -> AuthenticationOutcome {
        let signedInRow = try signedIn.map(EventRow.init)
        let regressionRow = try regression.map(EventRow.init)
        let challenge = ByteBuffer(bytes: challenge)
        let at = try now.storeMilliseconds()
        let id = ByteBuffer(bytes: credentialID)
        let count = Int64(signCount)
        let sessionRow = try SessionRow(session)
        // One statement, so one round trip and its own transaction: spend the ceremony; when it
        // was there, compare-and-set the counter (§7.2 step 25); when that applied, open the
        // session and record the sign-in, else mark the credential possibly cloned and record
        // the regression. Each step sees the previous one only through its RETURNING rows; the
        // two UPDATEs of the credential exclude each other (NOT EXISTS applied). Six round trips
        // (BEGIN … COMMIT) before, the most expensive part of a finalize on PostgreSQL.
        let s = sessionRow
        let e = try signedInRow ?? EventRow.placeholder()
        let r = try regressionRow ?? EventRow.placeholder()
        return try await write { db in
            let rows = try await db.query(
                """
                WITH spent AS (
                    DELETE FROM ceremonies
                    WHERE challenge = \(challenge) AND kind = \(CeremonyKind.authentication.rawValue) AND expires_at > \(at)
                    RETURNING 1
                ), applied AS (
                    UPDATE credentials AS c
                    SET sign_count = \(count), backup_state = \(backupState),
                        uv_initialized = c.uv_initialized OR \(userVerified), last_used_at = \(at)
                    FROM users AS u
                    WHERE c.id = \(id) AND u.handle = c.user_handle AND EXISTS (SELECT 1 FROM spent)
                      AND ((c.sign_count = 0 AND \(count) = 0) OR \(count) > c.sign_count)
                    RETURNING u.name
                ), cloned AS (
                    UPDATE credentials SET possibly_cloned = true
                    WHERE id = \(id) AND EXISTS (SELECT 1 FROM spent) AND NOT EXISTS (SELECT 1 FROM applied)
                ), opened AS (
                    INSERT INTO sessions (\(unescaped: SessionRow.columns))
                    SELECT \(s.tokenHash), \(s.userHandle), \(s.createdAt), \(s.expiresAt), \(s.credentialID), \(s.via), \(s.userVerified),
                        \(s.ip), \(s.userAgent), \(s.lastSeenAt), \(s.authTime)
                    WHERE NOT \(renewing) AND EXISTS (SELECT 1 FROM applied)
                ), renewed AS (
                    UPDATE sessions SET auth_time = \(s.authTime), user_verified = \(s.userVerified)
                    WHERE \(renewing) AND token_hash = \(s.tokenHash) AND user_handle = \(s.userHandle) AND expires_at > \(at)
                      AND EXISTS (SELECT 1 FROM applied)
                ), signed_in AS (
                    INSERT INTO events (user_handle, type, at, ip, user_agent, details)
                    SELECT \(e.userHandle), \(e.type), \(e.at), \(e.ip), \(e.userAgent), \(e.details)
                    WHERE \(signedInRow != nil) AND EXISTS (SELECT 1 FROM applied)
                ), regressed AS (
                    INSERT INTO events (user_handle, type, at, ip, user_agent, details)
                    SELECT \(r.userHandle), \(r.type), \(r.at), \(r.ip), \(r.userAgent), \(r.details)
                    WHERE \(regressionRow != nil) AND EXISTS (SELECT 1 FROM spent) AND NOT EXISTS (SELECT 1 FROM applied)
                )
                SELECT EXISTS (SELECT 1 FROM spent), (SELECT name FROM applied)
                """, logger: Self.quiet)
            let answer = try await Self.first(rows) { row -> (Bool, String?) in
                (try row[0].decode(Bool.self), try row[1].decode(String?.self))
            }
            guard let (spent, name) = answer else {
                throw StoreError.database("the finalize statement returned no row")
            }
            guard spent else { return .ceremonyGone }
            guard let name else { return .counterRegression }
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
