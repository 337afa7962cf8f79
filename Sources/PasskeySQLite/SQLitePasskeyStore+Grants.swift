public import PasskeyStorage
public import Foundation

/// The OpenID provider's held authorization requests and grants.
extension SQLitePasskeyStore {
    // MARK: Held requests

    public func insertHeldAuthorization(_ held: HeldAuthorizationRecord) async throws {
        let arguments: [SQLiteValue] = [
            .blob(held.handleHash), .text(held.clientID), .text(held.parameters), try .time(held.createdAt), try .time(held.expiresAt),
        ]
        try await database.write { db in
            try db.execute(
                "INSERT INTO oauth_authorizations (handle_hash, client_id, parameters, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments)
        }
    }

    public func heldAuthorization(handleHash: [UInt8], now: Date) async throws -> HeldAuthorizationRecord? {
        let arguments: [SQLiteValue] = [.blob(handleHash), try .time(now)]
        return try database.read { db in
            try db.row(
                """
                SELECT handle_hash, client_id, parameters, created_at, expires_at FROM oauth_authorizations
                WHERE handle_hash = ? AND expires_at > ?
                """, arguments
            ) { row in
                HeldAuthorizationRecord(
                    handleHash: row.blob(0), clientID: row.text(1), parameters: row.text(2),
                    createdAt: Date(storeMilliseconds: row.int64(3)), expiresAt: Date(storeMilliseconds: row.int64(4)))
            }
        }
    }

    public func deleteHeldAuthorization(handleHash: [UInt8]) async throws -> Bool {
        try await database.write { db in
            try db.execute("DELETE FROM oauth_authorizations WHERE handle_hash = ?", [.blob(handleHash)])
            return try db.changes() == 1
        }
    }

    // MARK: Grants

    static let grantColumns = """
        id, client_id, user_handle, session_hash, offline, scopes, nonce, auth_time, amr, acr, credential_id, code_hash, \
        code_challenge, redirect_uri, code_expires_at, code_spent, refresh_hash, refresh_expires_at, revoked, created_at, expires_at
        """

    public func insertGrant(_ grant: GrantRecord, event: AuditEvent?) async throws {
        let arguments = try Self.grantArguments(grant)
        let eventArguments = try event?.insertArguments()
        try await database.write { db in
            try Self.insertGrant(db, arguments)
            try Self.insertEvent(db, eventArguments)
        }
    }

    static func grantArguments(_ g: GrantRecord) throws -> [SQLiteValue] {
        [
            .text(g.id), .text(g.clientID), .blob(g.userHandle), .blob(g.sessionHash), .bool(g.offline),
            try ListCoding.encode(strings: g.scopes), .optionalText(g.nonce), try .time(g.authTime), try ListCoding.encode(strings: g.amr),
            .optionalText(g.acr), .optionalBlob(g.credentialID), .blob(g.codeHash), .text(g.codeChallenge), .text(g.redirectURI),
            try .time(g.codeExpiresAt), .bool(g.codeSpent), .optionalBlob(g.refreshHash), try .optionalTime(g.refreshExpiresAt),
            .bool(g.revoked), try .time(g.createdAt), try .time(g.expiresAt),
        ]
    }

    static func insertGrant(_ db: SQLiteConnection, _ arguments: [SQLiteValue]) throws {
        try db.execute(
            "INSERT INTO oauth_grants (\(Self.grantColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            arguments)
    }

    public func grant(id: String) async throws -> GrantRecord? {
        try database.read { db in
            try db.row("SELECT \(Self.grantColumns) FROM oauth_grants WHERE id = ?", [.text(id)], Self.grantRecord)
        }
    }

    public func grant(codeHash: [UInt8]) async throws -> GrantRecord? {
        try database.read { db in
            try db.row("SELECT \(Self.grantColumns) FROM oauth_grants WHERE code_hash = ?", [.blob(codeHash)], Self.grantRecord)
        }
    }

    public func grant(refreshHash: [UInt8]) async throws -> RefreshTokenLookup? {
        try database.read { db in
            if let current = try db.row(
                "SELECT \(Self.grantColumns) FROM oauth_grants WHERE refresh_hash = ?", [.blob(refreshHash)], Self.grantRecord)
            {
                return .current(current)
            }
            return try db.row(
                """
                SELECT \(Self.grantColumns) FROM oauth_grants
                WHERE id = (SELECT grant_id FROM oauth_retired_refresh_tokens WHERE token_hash = ?)
                """, [.blob(refreshHash)], Self.grantRecord
            ).map(RefreshTokenLookup.retired)
        }
    }

    public func spendCode(
        grantID: String, now: Date, refreshHash: [UInt8]?, refreshExpiresAt: Date?, expiresAt: Date, event: AuditEvent?
    ) async throws -> Bool {
        let arguments: [SQLiteValue] = [
            .optionalBlob(refreshHash), try .optionalTime(refreshExpiresAt), try .time(expiresAt), .text(grantID), try .time(now),
        ]
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                """
                UPDATE oauth_grants SET code_spent = 1, refresh_hash = ?, refresh_expires_at = ?, expires_at = ?
                WHERE id = ? AND code_spent = 0 AND revoked = 0 AND code_expires_at > ?
                """, arguments)
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func rotateRefreshToken(
        grantID: String, old: [UInt8], new: [UInt8], refreshExpiresAt: Date, expiresAt: Date, event: AuditEvent?
    ) async throws -> Bool {
        let arguments: [SQLiteValue] = [.blob(new), try .time(refreshExpiresAt), try .time(expiresAt), .text(grantID), .blob(old)]
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute(
                """
                UPDATE oauth_grants SET refresh_hash = ?, refresh_expires_at = ?, expires_at = max(expires_at, ?)
                WHERE id = ? AND refresh_hash = ? AND revoked = 0
                """, arguments)
            guard try db.changes() == 1 else { return false }
            try db.execute("INSERT INTO oauth_retired_refresh_tokens (token_hash, grant_id) VALUES (?, ?)", [.blob(old), .text(grantID)])
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    public func grants(userHandle: [UInt8]) async throws -> [GrantRecord] {
        try database.read { db in
            try db.rows(
                "SELECT \(Self.grantColumns) FROM oauth_grants WHERE user_handle = ? ORDER BY created_at DESC, id", [.blob(userHandle)],
                Self.grantRecord)
        }
    }

    public func revokeGrant(id: String, event: AuditEvent?) async throws -> Bool {
        let eventArguments = try event?.insertArguments()
        return try await database.write { db in
            try db.execute("UPDATE oauth_grants SET revoked = 1 WHERE id = ? AND revoked = 0", [.text(id)])
            guard try db.changes() == 1 else { return false }
            try Self.insertEvent(db, eventArguments)
            return true
        }
    }

    static func grantRecord(_ row: SQLiteRow) throws -> GrantRecord {
        GrantRecord(
            id: row.text(0), clientID: row.text(1), userHandle: row.blob(2), sessionHash: row.blob(3), offline: row.bool(4),
            scopes: try ListCoding.strings(row.text(5), column: "scopes"), nonce: row.optionalText(6),
            authTime: Date(storeMilliseconds: row.int64(7)), amr: try ListCoding.strings(row.text(8), column: "amr"),
            acr: row.optionalText(9), credentialID: row.optionalBlob(10), codeHash: row.blob(11), codeChallenge: row.text(12),
            redirectURI: row.text(13), codeExpiresAt: Date(storeMilliseconds: row.int64(14)), codeSpent: row.bool(15),
            refreshHash: row.optionalBlob(16), refreshExpiresAt: row.optionalInt64(17).map(Date.init(storeMilliseconds:)),
            revoked: row.bool(18), createdAt: Date(storeMilliseconds: row.int64(19)), expiresAt: Date(storeMilliseconds: row.int64(20)))
    }
}
