public import PasskeyStorage
public import Foundation
internal import NIOCore
internal import PostgresNIO

/// The OpenID provider's held authorization requests and grants.
extension PostgresPasskeyStore {
    // MARK: Held requests

    public func insertHeldAuthorization(_ held: HeldAuthorizationRecord) async throws {
        let hash = ByteBuffer(bytes: held.handleHash)
        let created = try held.createdAt.storeMilliseconds()
        let expires = try held.expiresAt.storeMilliseconds()
        try await write { db in
            try await db.query(
                """
                INSERT INTO oauth_authorizations (handle_hash, client_id, parameters, created_at, expires_at)
                VALUES (\(hash), \(held.clientID), \(held.parameters), \(created), \(expires))
                """, logger: Self.quiet)
        }
    }

    public func heldAuthorization(handleHash: [UInt8], now: Date) async throws -> HeldAuthorizationRecord? {
        let hash = ByteBuffer(bytes: handleHash)
        let now = try now.storeMilliseconds()
        return try await withConnection { db in
            try await Self.first(
                db.query(
                    """
                    SELECT handle_hash, client_id, parameters, created_at, expires_at FROM oauth_authorizations
                    WHERE handle_hash = \(hash) AND expires_at > \(now)
                    """, logger: Self.quiet)
            ) { row in
                var c = Cursor(row)
                return HeldAuthorizationRecord(
                    handleHash: try c.bytes(), clientID: try c.next(), parameters: try c.next(), createdAt: try c.date(),
                    expiresAt: try c.date())
            }
        }
    }

    public func deleteHeldAuthorization(handleHash: [UInt8]) async throws -> Bool {
        let hash = ByteBuffer(bytes: handleHash)
        return try await write { db in
            try await Self.count(
                db.query("DELETE FROM oauth_authorizations WHERE handle_hash = \(hash) RETURNING 1", logger: Self.quiet)) == 1
        }
    }

    // MARK: Grants

    public func insertGrant(_ grant: GrantRecord, event: AuditEvent?) async throws {
        let eventRow = try event.map(EventRow.init)
        try await transaction { db in
            try await Self.insertGrant(db, grant)
            try await Self.insert(db, eventRow)
        }
    }

    static func insertGrant(_ db: PostgresConnection, _ g: GrantRecord) async throws {
        let handle = ByteBuffer(bytes: g.userHandle)
        let session = ByteBuffer(bytes: g.sessionHash)
        let credential = g.credentialID.map { ByteBuffer(bytes: $0) }
        let code = ByteBuffer(bytes: g.codeHash)
        let refresh = g.refreshHash.map { ByteBuffer(bytes: $0) }
        let authTime = try g.authTime.storeMilliseconds()
        let codeExpires = try g.codeExpiresAt.storeMilliseconds()
        let refreshExpires = try g.refreshExpiresAt.map { try $0.storeMilliseconds() }
        let created = try g.createdAt.storeMilliseconds()
        let expires = try g.expiresAt.storeMilliseconds()
        try await db.query(
            """
            INSERT INTO oauth_grants (\(unescaped: GrantRow.columns))
            VALUES (
                \(g.id), \(g.clientID), \(handle), \(session), \(g.offline), \(g.scopes), \(g.nonce), \(authTime), \(g.amr),
                \(g.acr), \(credential), \(code), \(g.codeChallenge), \(g.redirectURI), \(codeExpires), \(g.codeSpent),
                \(refresh), \(refreshExpires), \(g.revoked), \(created), \(expires))
            """, logger: Self.quiet)
    }

    public func grant(id: String) async throws -> GrantRecord? {
        try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: GrantRow.columns) FROM oauth_grants WHERE id = \(id)", logger: Self.quiet), GrantRow.record)
        }
    }

    public func grant(codeHash: [UInt8]) async throws -> GrantRecord? {
        let hash = ByteBuffer(bytes: codeHash)
        return try await withConnection { db in
            try await Self.first(
                db.query("SELECT \(unescaped: GrantRow.columns) FROM oauth_grants WHERE code_hash = \(hash)", logger: Self.quiet),
                GrantRow.record)
        }
    }

    public func grant(refreshHash: [UInt8]) async throws -> RefreshTokenLookup? {
        let hash = ByteBuffer(bytes: refreshHash)
        return try await withConnection { db in
            if let current = try await Self.first(
                db.query("SELECT \(unescaped: GrantRow.columns) FROM oauth_grants WHERE refresh_hash = \(hash)", logger: Self.quiet),
                GrantRow.record)
            {
                return .current(current)
            }
            return try await Self.first(
                db.query(
                    """
                    SELECT \(unescaped: GrantRow.columns) FROM oauth_grants
                    WHERE id = (SELECT grant_id FROM oauth_retired_refresh_tokens WHERE token_hash = \(hash))
                    """, logger: Self.quiet), GrantRow.record
            ).map(RefreshTokenLookup.retired)
        }
    }

    public func spendCode(
        grantID: String, now: Date, refreshHash: [UInt8]?, refreshExpiresAt: Date?, expiresAt: Date, event: AuditEvent?
    ) async throws -> Bool {
        let refresh = refreshHash.map { ByteBuffer(bytes: $0) }
        let refreshExpires = try refreshExpiresAt.map { try $0.storeMilliseconds() }
        let expires = try expiresAt.storeMilliseconds()
        let now = try now.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let spent = try await Self.count(
                db.query(
                    """
                    UPDATE oauth_grants SET code_spent = true, refresh_hash = \(refresh), refresh_expires_at = \(refreshExpires),
                        expires_at = \(expires)
                    WHERE id = \(grantID) AND NOT code_spent AND NOT revoked AND code_expires_at > \(now)
                    RETURNING id
                    """, logger: Self.quiet)) == 1
            if spent { try await Self.insert(db, eventRow) }
            return spent
        }
    }

    public func rotateRefreshToken(
        grantID: String, old: [UInt8], new: [UInt8], refreshExpiresAt: Date, expiresAt: Date, event: AuditEvent?
    ) async throws -> Bool {
        let oldHash = ByteBuffer(bytes: old)
        let newHash = ByteBuffer(bytes: new)
        let refreshExpires = try refreshExpiresAt.storeMilliseconds()
        let expires = try expiresAt.storeMilliseconds()
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let rotated = try await Self.count(
                db.query(
                    """
                    UPDATE oauth_grants SET refresh_hash = \(newHash), refresh_expires_at = \(refreshExpires),
                        expires_at = greatest(expires_at, \(expires))
                    WHERE id = \(grantID) AND refresh_hash = \(oldHash) AND NOT revoked
                    RETURNING id
                    """, logger: Self.quiet)) == 1
            guard rotated else { return false }
            try await db.query(
                "INSERT INTO oauth_retired_refresh_tokens (token_hash, grant_id) VALUES (\(oldHash), \(grantID))", logger: Self.quiet)
            try await Self.insert(db, eventRow)
            return true
        }
    }

    public func grants(userHandle: [UInt8]) async throws -> [GrantRecord] {
        let handle = ByteBuffer(bytes: userHandle)
        return try await withConnection { db in
            try await Self.all(
                db.query(
                    "SELECT \(unescaped: GrantRow.columns) FROM oauth_grants WHERE user_handle = \(handle) ORDER BY created_at DESC, id COLLATE \"C\"",
                    logger: Self.quiet), GrantRow.record)
        }
    }

    public func revokeGrant(id: String, event: AuditEvent?) async throws -> Bool {
        let eventRow = try event.map(EventRow.init)
        return try await transaction { db in
            let revoked = try await Self.count(
                db.query("UPDATE oauth_grants SET revoked = true WHERE id = \(id) AND NOT revoked RETURNING id", logger: Self.quiet)) == 1
            if revoked { try await Self.insert(db, eventRow) }
            return revoked
        }
    }
}

struct GrantRow {
    static let columns = """
        id, client_id, user_handle, session_hash, offline, scopes, nonce, auth_time, amr, acr, credential_id, code_hash, \
        code_challenge, redirect_uri, code_expires_at, code_spent, refresh_hash, refresh_expires_at, revoked, created_at, expires_at
        """

    static func record(_ row: PostgresRandomAccessRow) throws -> GrantRecord {
        var c = Cursor(row)
        return GrantRecord(
            id: try c.next(), clientID: try c.next(), userHandle: try c.bytes(), sessionHash: try c.bytes(), offline: try c.next(),
            scopes: try c.next(), nonce: try c.next(), authTime: try c.date(), amr: try c.next(), acr: try c.next(),
            credentialID: try c.optionalBytes(), codeHash: try c.bytes(), codeChallenge: try c.next(), redirectURI: try c.next(),
            codeExpiresAt: try c.date(), codeSpent: try c.next(), refreshHash: try c.optionalBytes(),
            refreshExpiresAt: try c.next(Int64?.self).map(Date.init(storeMilliseconds:)), revoked: try c.next(), createdAt: try c.date(),
            expiresAt: try c.date())
    }
}
