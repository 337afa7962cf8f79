public import Foundation
public import PasskeyStorage

/// `CeremonyStore` on SQLite.
extension SQLitePasskeyStore {
    // MARK: Ceremonies

    /// Not fsynced on its own (`durable: false`): a pending ceremony is in the WAL file, seen by
    /// every connection and kept if the process dies, but a power cut may lose it, which costs
    /// the user a retry; the next durable commit fsyncs it along.
    public func insertCeremony(_ c: CeremonyRecord) async throws {
        try await insertCeremony(c, durable: false)
    }

    /// The pending ceremony with this challenge and kind, if present and not expired at `now`.
    /// A read: nothing is spent (the ceremony is spent by `completeRegistration` or
    /// `spendCeremony`, atomically).
    public func ceremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord? {
        let arguments: [SQLiteValue] = [.blob(challenge), .text(kind.rawValue), try .time(now)]
        return try database.read { db in
            try db.row(
                "SELECT \(CeremonyRecord.columns) FROM ceremonies WHERE challenge = ? AND kind = ? AND expires_at > ?",
                arguments, CeremonyRecord.init(row:))
        }
    }

    /// One statement, so one snapshot: the credential and its owner's flag, NULL when absent.
    public func authenticationContext(credentialID: [UInt8]) async throws -> AuthenticationContext {
        try database.read { db in
            try db.row(Self.authenticationContextQuery, [.blob(credentialID)]) { row in
                AuthenticationContext(credential: try CredentialRecord(row: row), ownerDisabled: row.bool(CredentialRecord.columnCount))
            }
        } ?? AuthenticationContext(credential: nil, ownerDisabled: false)
    }

    /// Atomically removes and returns the ceremony with this challenge and kind, if present and
    /// not expired at `now` (DELETE … RETURNING). Two concurrent calls never both get it.
    ///
    /// A ceremony of the other kind, or an expired one, is left in place (sweepExpired removes
    /// expired ones) and nil is returned.
    public func consumeCeremony(challenge: [UInt8], kind: CeremonyKind, now: Date) async throws -> CeremonyRecord? {
        let arguments: [SQLiteValue] = [.blob(challenge), .text(kind.rawValue), try .time(now)]
        return try await database.write { db in
            try Self.consume(db, arguments)
        }
    }

    /// Spends the ceremony of a refused registration response (its challenge cannot be used
    /// again). Returns whether the ceremony was still there.
    @discardableResult
    public func spendCeremony(challenge: [UInt8], kind: CeremonyKind) async throws -> Bool {
        try await database.write { db in
            try db.execute("DELETE FROM ceremonies WHERE challenge = ? AND kind = ?", [.blob(challenge), .text(kind.rawValue)])
            return try db.changes() == 1
        }
    }

    /// Spends the sealed challenge of a refused sign-in response and, for a counter regression,
    /// marks the credential possibly cloned — in one write. Returns whether the challenge was
    /// not spent before; when it was, nothing is written.
    @discardableResult
    public func spendChallenge(
        keyHash: [UInt8], expiresAt: Date, now: Date, markCloned credentialID: [UInt8]?, event: AuditEvent?
    ) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        let spending: [SQLiteValue] = [.blob(keyHash), try .time(expiresAt), try .time(now)]
        return try await database.write { db in
            // Spent before (a replayed response): nothing changes.
            guard try Self.spend(db, spending) else { return false }
            if let credentialID {
                try db.execute("UPDATE credentials SET possibly_cloned = 1 WHERE id = ?", [.blob(credentialID)])
            }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    /// Finishes a verified registration in one atomic write: spends the ceremony, creates the
    /// user (when new), the credential and the session.
    public func completeRegistration(
        challenge: [UInt8], now: Date, credential: CredentialRecord, newUser: UserRecord?, session: SessionRecord,
        invitation: [UInt8]?, endingOtherSessions: Bool, event: AuditEvent?
    ) async throws -> RegistrationOutcome {
        let eventArguments = try event?.insertArguments()
        let invitationArguments: [SQLiteValue]? = try invitation.map { [.blob($0), try .time(now)] }
        let ceremonyArguments: [SQLiteValue] = [.blob(challenge), .text(CeremonyKind.registration.rawValue), try .time(now)]
        let credentialArguments = try credential.arguments()
        let userArguments = try newUser?.arguments()
        let sessionArguments = try session.arguments()
        return try await database.write { db in
            guard try Self.consume(db, ceremonyArguments) != nil else { return .ceremonyGone }
            var groups: [InvitationGroup] = []
            if let invitationArguments {
                guard let named = try Self.spendInvitation(db, invitationArguments) else { return .invitationGone }
                groups = named
            }
            // A conflict undoes the account rows, not the spending.
            if let conflict = try Self.insertAccount(db, credential, credentialArguments, newUser, userArguments) {
                return conflict
            }
            try Self.addMemberships(db, userHandle: credential.userHandle, groups)
            if endingOtherSessions { _ = try Self.revokeAccess(db, userHandle: credential.userHandle) }
            try db.execute(SessionRecord.insert, sessionArguments)
            try Self.insertEvent(db, eventArguments)
            return .registered
        }
    }

    /// Finishes a verified assertion in one atomic write: spends the challenge, compares and sets
    /// the sign counter (§7.2 step 25), stores backup state, last use and uvInitialized (which
    /// only rises), and creates the session.
    public func completeAuthentication(
        spending keyHash: [UInt8], until expiresAt: Date, now: Date, credentialID: [UInt8], signCount: UInt32,
        backupState: Bool, userVerified: Bool, session: SessionRecord, renewing: Bool, signedIn: AuditEvent?,
        regression: AuditEvent?
    ) async throws -> AuthenticationOutcome {
        let signedInArguments = try signedIn?.insertArguments()
        let regressionArguments = try regression?.insertArguments()
        let spending: [SQLiteValue] = [.blob(keyHash), try .time(expiresAt), try .time(now)]
        let assertionArguments = try Self.assertionArguments(
            credentialID: credentialID, signCount: signCount, backupState: backupState, uvInitialized: userVerified, at: now)
        let sessionArguments = try session.arguments()
        let renewArguments: [SQLiteValue] = [
            try .optionalTime(session.verifiedAt), session.userVerified.map(SQLiteValue.bool) ?? .null,
            session.credentialID.map(SQLiteValue.blob) ?? .null, .blob(session.tokenHash),
            .blob(session.userHandle), try .time(now),
        ]
        return try await database.write { db in
            guard try Self.spend(db, spending) else { return .ceremonyGone }
            guard try Self.applyAssertion(db, assertionArguments) else {
                try db.execute("UPDATE credentials SET possibly_cloned = 1 WHERE id = ?", [.blob(credentialID)])
                // The passkey was deleted (with its account, perhaps) since it was read: no
                // regression to record, and the spent challenge stands.
                guard try db.changes() == 1 else { return .ceremonyGone }
                try Self.insertEvent(db, regressionArguments)
                return .counterRegression
            }
            guard let name = try db.row("SELECT name FROM users WHERE handle = ?", [.blob(session.userHandle)], { $0.text(0) }) else {
                throw StoreError.database("the credential's user vanished")
            }
            if renewing {
                try db.execute(
                    "UPDATE sessions SET auth_time = ?, user_verified = ?, credential_id = COALESCE(?, credential_id) WHERE token_hash = ? AND user_handle = ? AND expires_at > ?",
                    renewArguments)
                guard try db.changes() == 1 else { return .sessionGone }
            } else {
                try db.execute(SessionRecord.insert, sessionArguments)
            }
            try Self.insertEvent(db, signedInArguments)
            return .signedIn(userName: name)
        }
    }
}
